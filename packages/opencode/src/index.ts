// memdir in opencode (R14): the memory core runs inside opencode's own process through
// `@memdir/core`, with no subprocess per request.
// - Every model request of the main agent: the memory part of the system prompt (guidance and
//   MEMORY.md), as `memdir hook X session-start` gives it.
// - Each user prompt: one core operation (`hook.prompt`, granted the core's own plan): offline
//   recall within the session's budgets (R8), the session kept by the core in the memory
//   directory's `.sessions/` beside the shell hooks' ones, the recall index kept; what is
//   recalled goes into the prompt as a part of its own, framed as data.
// - When the session goes idle (a turn ended): the turn's prompts and the reply go to
//   `memdir hook opencode stop`, which runs writer B detached (R9.2, R9.3); only with a memdir
//   binary and a model, as the shell hooks.
// - Compaction: the recall session starts again (R8.3).
// Nothing here may stand in the way of a turn: every failure is logged through opencode and
// swallowed.

import { ConfinedFs, MemoryCore, coreEnv } from "@memdir/core";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** What the plugin is configured with: `[["…/index.js", { memdir, llm }]]` in opencode.json, or a shim's call. */
export interface Options {
  /** The memdir binary that runs extraction when a turn ends; without it, nothing is extracted. */
  memdir?: string;
  /** The model extraction uses (`command:…`, `openai:…`, `anthropic:…`); default `$MEMDIR_LLM`. */
  llm?: string;
}

/** The parts of opencode's plugin context memdir uses (`@opencode-ai/plugin`'s `PluginInput`). */
interface Context {
  directory: string;
  client: {
    session: { messages(args: { path: { id: string } }): Promise<{ data?: Message[] } | Message[]> };
    app?: { log(args: { body: { service: string; level: string; message: string } }): Promise<unknown> };
  };
}
interface Part {
  type: string;
  text?: string;
  synthetic?: boolean;
}
interface Message {
  info: { role: string };
  parts: Part[];
}

/** The client name memdir's hooks and session files use. */
const CLIENT = "opencode";
/** Set in the environment of everything memdir starts: an `opencode run` used as the model does not start memdir again. */
const CHILD_GUARD = "MEMDIR_HOOK_CHILD";
/** The system prompts of opencode's own side requests (titles, summaries), which get no memory. */
const SIDE_REQUEST = /^You are (a title generator|a context summarization agent)/;

const here = path.dirname(fileURLToPath(import.meta.url));

/** The plugin. Each export of an opencode plugin module must be one, so this module exports nothing else. */
export const MemdirPlugin = async (ctx: Context, options: Options = {}) => {
  if (process.env[CHILD_GUARD]) return {};
  const core = new MemoryCore(here, (m) => log(ctx, m));
  const cwd = ctx.directory;
  const readEverything = () => new ConfinedFs().grantRead("/");
  const env = coreEnv();
  /** Each session's prompts since its last stop, and when that turn began. */
  const turns = new Map<string, { prompts: string[]; began: number }>();
  /** Stops handed to memdir, awaited before opencode exits (`opencode run` ends right after the turn). */
  const pending = new Set<Promise<void>>();

  // Writes this plugin makes are the agent's, for the timeline (issue 48).
  const target = { cwd, env, memoryDir: undefined, by: "agent:opencode" };

  const guarded = <A extends unknown[]>(what: string, body: (...args: A) => unknown) =>
    async (...args: A) => {
      try {
        await body(...args);
      } catch (e) {
        log(ctx, `memdir: ${what}: ${e instanceof Error ? e.message : String(e)}`);
      }
    };

  return {
    // Path A, on every request of the main agent: the same text every time, so the provider's
    // prompt cache keeps it.
    "experimental.chat.system.transform": guarded("session start", (_input: unknown, output: { system: string[] }) => {
      if (SIDE_REQUEST.test(output.system[0] ?? "")) return;
      const request = { cwd, env, touching: [], addDirs: [] };
      const text = core.prompt(readEverything(), request, true, false, false);
      if (text.trim()) output.system.push(core.hookFit(text));
    }),

    // Path B: recall for the prompt, once per memory and session.
    "chat.message": guarded("prompt", (input: { sessionID: string }, output: { message: { id: string }; parts: (Part & Record<string, unknown>)[] }) => {
      const prompt = output.parts.filter((p) => p.type === "text" && !p.synthetic && p.text).map((p) => p.text).join("\n");
      if (!prompt.trim()) return;
      const turn = turns.get(input.sessionID) ?? { prompts: [], began: Date.now() };
      turn.prompts.push(prompt);
      turns.set(input.sessionID, turn);
      // One core operation: the plan it grants, then the session, recall and the framed text
      // (the core keeps the session files; this plugin keeps the turn and hands it over whole).
      const event = { client: CLIENT, session: input.sessionID, cwd, env, prompt, inject: true, keepTurn: false, capBytes: undefined, nowMs: BigInt(Date.now()), embeddings: undefined };
      return core.hookPrompt(core.open("hook", target), event).then(({ text, diagnostics }) => {
        for (const d of diagnostics) log(ctx, `memdir: prompt: ${d}`);
        if (!text) return;
        output.parts.push({ id: `prt_memdir_${Date.now()}`, sessionID: input.sessionID, messageID: output.message.id, type: "text", text, synthetic: true });
      });
    }),

    event: guarded("event", async ({ event }: { event: { type: string; properties?: { sessionID?: string } } }) => {
      const sessionID = event.properties?.sessionID;
      if (!sessionID) return;
      if (event.type === "session.compacted") {
        core.hookReset(core.open("hook", target), CLIENT, sessionID, cwd, env);
      } else if (event.type === "session.idle") {
        const turn = turns.get(sessionID);
        turns.delete(sessionID);
        if (!turn || !options.memdir) return;
        const stop = lastReply(ctx, sessionID).then((reply) =>
          handOver(options, { session_id: sessionID, cwd, prompts: turn.prompts, turn_began_ms: turn.began, last_assistant_message: reply }),
        );
        const tracked = stop.catch((e) => log(ctx, `memdir: stop: ${e instanceof Error ? e.message : String(e)}`)).finally(() => pending.delete(tracked));
        pending.add(tracked);
      }
    }),

    // opencode awaits this before it exits: a stop still being handed over finishes first.
    dispose: async () => {
      await Promise.all(pending);
    },
  };
};

/** The assistant's last reply in the session, as text. */
async function lastReply(ctx: Context, sessionID: string): Promise<string | undefined> {
  const answer = await ctx.client.session.messages({ path: { id: sessionID } });
  const messages = Array.isArray(answer) ? answer : (answer.data ?? []);
  const last = [...messages].reverse().find((m) => m.info.role === "assistant");
  const text = last?.parts.filter((p) => p.type === "text" && p.text).map((p) => p.text).join("\n");
  return text || undefined;
}

/** Starts `memdir hook opencode stop` with the turn on its standard input; it detaches its own worker and exits. */
function handOver(options: Options, payload: object): Promise<void> {
  const args = ["hook", CLIENT, "stop", ...(options.llm ? ["--llm", options.llm] : [])];
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env[CHILD_GUARD];
    const child = spawn(options.memdir as string, args, { stdio: ["pipe", "ignore", "ignore"], env });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`memdir hook exited with ${code}`))));
    child.stdin.end(JSON.stringify(payload));
  });
}

function log(ctx: Context, message: string) {
  void ctx.client.app?.log({ body: { service: "memdir", level: "warn", message } }).catch(() => {});
}
