// The memory core, loaded through jco: the component transpiled with `--instantiation sync`
// (see scripts/build.mjs), instantiated with our WASI and the confined host filesystem.
//
// Every call names the filesystem it grants. A trap (a panic in the core, `exit`) poisons the
// instance, so it is logged and the next call gets a fresh one. Sessions are kept as JSON
// between calls so they survive a new instance.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { instantiate } from "../generated/memdir-core.js";
import type { Root } from "../generated/memdir-core.js";
import { ConfinedFs, FsFailure } from "./hostfs";
import { wasiImports } from "./wasi";

export type { Root };
export type ScanReport = ReturnType<Root["scan"]["scan"]>;
export type MemoryHeader = ScanReport["headers"][number];
export type LoadedIndex = ReturnType<Root["index"]["load"]>;
export type MemoryLocation = ReturnType<Root["paths"]["locate"]>;
export type Loaded = ReturnType<Root["instructions"]["load"]>;
export type LoadRequest = Parameters<Root["instructions"]["load"]>[0];
export type MemoryStatus = ReturnType<Root["instructions"]["status"]>;
export type DecidedBy = MemoryStatus["switches"]["decidedBy"];
export type SaveRequest = Parameters<Root["writer"]["save"]>[0];
export type SaveReport = ReturnType<Root["writer"]["save"]>;
export type ForgetReport = ReturnType<Root["writer"]["forget"]>;
export type Target = SaveRequest["target"];
export type RecallInput = Parameters<Root["recall"]["start"]>[0];
export type CheckStep = ReturnType<Root["check"]["start"]>;
export type CheckReport = Extract<CheckStep, { tag: "done" }>["val"];
export type Finding = CheckReport["findings"][number];
export type RecallStep = ReturnType<Root["recall"]["start"]>;
export type RecallResult = Extract<RecallStep, { tag: "done" }>["val"];
export type ModelCall = Extract<RecallStep, { tag: "ask" }>["val"];
export type ModelRequest = ModelCall["request"];
export type EmbedCall = Extract<RecallStep, { tag: "embed" }>["val"];
export type ModelReply = Parameters<Root["recall"]["resume"]>[1];
export type ExtractInput = Parameters<Root["extract"]["start"]>[0];
export type ExtractStep = ReturnType<Root["extract"]["start"]>;
export type ExtractResult = Extract<ExtractStep, { tag: "done" }>["val"];
export type OpReport = ExtractResult["operations"][number];
export type Op = OpReport["op"];

/** An operation as people read it: `create`, `update`, `delete`, or what the model wrote. */
export const opName = (op: Op): string => (op.tag === "other" ? op.val : op.tag);
export type DreamInput = Parameters<Root["dream"]["start"]>[0];
export type DreamStep = ReturnType<Root["dream"]["start"]>;
export type DreamResult = Extract<DreamStep, { tag: "done" }>["val"];
export type TeamInput = Parameters<Root["team"]["start"]>[0];
export type TeamStep = ReturnType<Root["team"]["start"]>;
export type TeamReport = Extract<TeamStep, { tag: "done" }>["val"];
export type GitCommand = Extract<TeamStep, { tag: "run" }>["val"]["command"];
export type GitOutput = Parameters<Root["team"]["resume"]>[1];
export type HookRecall = ReturnType<Root["hook"]["recallContext"]>;
export type Operation = Parameters<Root["paths"]["plan"]>[0];
export type Grant = ReturnType<Root["paths"]["plan"]>;
export type PromptEvent = Parameters<Root["hook"]["prompt"]>[0];
export type PromptStep = ReturnType<Root["hook"]["prompt"]>;
export type Injected = Extract<PromptStep, { tag: "done" }>["val"];
export type PauseState = ReturnType<Root["writer"]["pause"]>;
export type Proposal = ReturnType<Root["writer"]["pending"]>[number];
/** One write in the timeline (issue 48): when, which file, what happened and who asked. */
export type Written = ReturnType<Root["writer"]["timeline"]>[number];
export type Env = Array<[string, string]>;
export type Tool = ReturnType<Root["tools"]["catalog"]>[number];
/** A tool's answer as the core words it (issue 45): the text, the structured content as JSON, and the error flag. */
export type ToolStep = ReturnType<Root["tools"]["call"]>;
export type ToolAnswer = Extract<ToolStep, { tag: "done" }>["val"];

/** What a tool call brings besides its arguments (only `memory_recall` uses them). */
export interface ToolAsking {
  /** The recall session kept between calls (`json`, empty for a new one); updated in place. */
  session?: { json: string };
  /** The model recall may ask; without it recall ranks offline. */
  ask?: (request: ModelRequest) => Promise<string>;
  /** The embeddings model and its name as its vectors are cached. */
  embeddings?: { label: string; embed: Embed };
  /** Whom a recall's receipt names (`vscode:tool`); none keeps no receipt. */
  givenTo?: string;
  /** This machine's name, for a team sync's commit (default: the system's). */
  hostName?: string;
  /** Runs the git commands check and team sync ask for (`runGitSync`). */
  runGit?: (command: GitCommand) => GitOutput;
}
export type Verdict = ReturnType<Root["hook"]["judgeTurn"]>;
export type LearnedEvent = Parameters<Root["hook"]["learned"]>[0];
export type Learning = ReturnType<Root["hook"]["learningSummary"]>;
export type Receipt = Parameters<Root["hook"]["recordReceipt"]>[1];

/** The environment variables the core reads; nothing else from the process's environment reaches it. */
const PASSED_ENV = /^(HOME|CLAUDE_CONFIG_DIR|CLAUDE_CODE_[A-Z_]+|MEMDIR_[A-Z_]+)$/;

/** What the core sees of `source` (the process's environment): the variables it reads, `HOME` always. */
export function coreEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const env = new Map<string, string>();
  for (const [k, v] of Object.entries(source)) if (v !== undefined && PASSED_ENV.test(k)) env.set(k, v);
  if (!env.has("HOME")) env.set("HOME", os.homedir());
  return [...env];
}

/** One step of a workflow: ask the model, ask the embeddings model (recall only), or done. */
export type Step<T> = { tag: "ask"; val: ModelCall } | { tag: "embed"; val: EmbedCall } | { tag: "done"; val: T };

/** An embeddings model: one vector per text, in order (an OpenAI-compatible `/v1/embeddings`, say). */
export type Embed = (texts: string[]) => Promise<number[][]>;

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const failure = (why: string): ModelReply => ({ tag: "failed", val: why });

/**
 * The whole loop a host runs over a workflow (recall, extraction, dream): while the core asks,
 * ask the model (or, for recall given `embeddings`, the embeddings model) and resume with its
 * reply, or with its failure — what a failure means is the core's to decide.
 */
export async function drive<T>(
  first: Step<T>,
  ask: (request: ModelRequest) => Promise<string>,
  resume: (state: string, reply: ModelReply) => Step<T>,
  progress: (call: ModelCall) => void = () => {},
  embed?: Embed,
): Promise<T> {
  let step = first;
  while (step.tag !== "done") {
    let reply: ModelReply;
    if (step.tag === "ask") {
      progress(step.val);
      try {
        reply = { tag: "text", val: await ask(step.val.request) };
      } catch (e) {
        reply = failure(message(e));
      }
    } else if (embed) {
      try {
        reply = { tag: "vectors", val: (await embed(step.val.texts)).map((v) => Float32Array.from(v)) };
      } catch (e) {
        reply = failure(`embeddings: ${message(e)}`);
      }
    } else {
      reply = failure("no embeddings model is configured");
    }
    step = resume(step.val.state, reply);
  }
  return step.val;
}

/**
 * The imports memdir grants the core: anything else makes loading fail. jco's keys carry no
 * version; the Rust harness's ALLOWED_IMPORTS is the one list, and cli/tests/harness.rs checks
 * this copy against it.
 */
export const ALLOWED_IMPORTS = [
  "memdir:memory/host-fs",
  "memdir:memory/types",
  "wasi:cli/environment",
  "wasi:cli/exit",
  "wasi:cli/stdin",
  "wasi:cli/stdout",
  "wasi:cli/stderr",
  "wasi:cli/terminal-input",
  "wasi:cli/terminal-output",
  "wasi:cli/terminal-stdin",
  "wasi:cli/terminal-stdout",
  "wasi:cli/terminal-stderr",
  "wasi:io/error",
  "wasi:io/poll",
  "wasi:io/streams",
];

const HOST_FS_FUNCTIONS = [
  "listDir",
  "readHead",
  "stat",
  "realPath",
  "readFile",
  "writeFile",
  "appendFile",
  "rename",
  "removeFile",
  "createDirAll",
  "lock",
  "unlock",
];

/**
 * The import object jco reads at instantiation, refusing any key memdir does not grant: a
 * core whose imports grew (`wasi:filesystem`, `wasi:random`, ...) fails to load.
 */
export function guardImports<T extends object>(granted: T): T {
  return new Proxy(granted, {
    get: (target, key) => {
      if (typeof key === "string" && !ALLOWED_IMPORTS.includes(key)) throw new ForbiddenImport(key);
      return (target as Record<string | symbol, unknown>)[key];
    },
  });
}

/** The core imports something memdir does not grant (R0.2). */
export class ForbiddenImport extends Error {
  constructor(readonly name: string) {
    super(`the memory core imports \`${name}\`, which memdir does not grant; refusing to run it`);
  }
}

/** An error the core returned: its message reads as the harness prints it; `payload` is the WIT `error`. */
export class CoreError extends Error {
  constructor(
    readonly kind: string,
    message: string,
    readonly payload: ErrorPayload,
  ) {
    super(message);
  }
}

/** The core trapped; the instance was dropped and the next call gets a new one. */
export class CoreTrap extends Error {}

// The core's wording (`FsError` in guest/src/base/fs.rs), which the WIT error does not carry;
// cli/tests/harness.rs (`every_host_words_filesystem_errors_alike`) holds this copy to it.
const FS_MESSAGES: Record<string, string> = {
  "not-found": "not found",
  "permission-denied": "permission denied",
  "outside-root": "outside the directories memdir may use",
  "read-only": "read-only",
  "not-a-directory": "not a directory",
  "is-a-directory": "is a directory",
  "invalid-path": "invalid path",
};

/** The core's `error` variant, as jco hands it over in a `ComponentError`'s `payload`. */
type ErrorPayload = { tag: "fs"; val: { tag: string; val: string } } | { tag: "invalid-input" | "other"; val: string };

function isErrorPayload(value: unknown): value is ErrorPayload {
  return typeof value === "object" && value !== null && "tag" in value && "val" in value;
}

function coreError(payload: ErrorPayload): CoreError {
  if (payload.tag === "fs") {
    const { tag, val } = payload.val;
    return new CoreError(`fs:${tag}`, tag in FS_MESSAGES ? `${val}: ${FS_MESSAGES[tag]}` : val, payload);
  }
  return new CoreError(payload.tag, payload.val, payload);
}

/** Where the core's wasm files are: beside the bundle. */
const defaultWasmDir = () => path.join(__dirname);

export class MemoryCore {
  private root: Root | undefined;
  private fs: ConfinedFs | undefined;
  private readonly wasi = wasiImports();
  private readonly modules = new Map<string, WebAssembly.Module>();

  constructor(
    private readonly wasmDir: string = defaultWasmDir(),
    private readonly log: (message: string) => void = () => {},
    /** Where timings go (the end-to-end benchmark reads them from the output channel). */
    private readonly info: (message: string) => void = () => {},
  ) {}

  private instance(): Root {
    if (this.root) return this.root;
    const started = performance.now();
    // jco keeps the functions it is given at instantiation, so each one looks up the
    // filesystem of the call in progress.
    const hostFs: Record<string, (...args: unknown[]) => unknown> = {};
    for (const name of HOST_FS_FUNCTIONS) {
      hostFs[name] = (...args: unknown[]) => {
        if (!this.fs) throw new FsFailure({ tag: "other", val: "the memory core used the filesystem outside a call" });
        return (this.fs.imports() as Record<string, (...a: unknown[]) => unknown>)[name](...args);
      };
    }
    const granted: Record<string, object> = { ...this.wasi.imports, "memdir:memory/host-fs": hostFs, "memdir:memory/types": {} };
    const imports = guardImports(granted);
    const getCoreModule = (name: string) => {
      let module = this.modules.get(name);
      if (!module) {
        module = new WebAssembly.Module(fs.readFileSync(path.join(this.wasmDir, name)));
        this.modules.set(name, module);
      }
      return module;
    };
    this.root = instantiate(getCoreModule, imports as never);
    this.info(`memdir: the memory core loaded in ${(performance.now() - started).toFixed(1)} ms`);
    return this.root;
  }

  /** Runs `body` with `grant` as the core's filesystem. */
  call<T>(operation: string, grant: ConfinedFs | undefined, body: (root: Root) => T): T {
    const previous = this.fs;
    this.fs = grant;
    this.wasi.clear();
    try {
      return body(this.instance());
    } catch (e) {
      if (e instanceof ForbiddenImport) throw e;
      const payload = e instanceof Error && "payload" in e ? e.payload : undefined;
      if (isErrorPayload(payload)) throw coreError(payload);
      const detail = this.wasi.stderr() || (e instanceof Error ? e.message : String(e));
      this.root = undefined;
      this.log(`memdir: the memory core failed during \`${operation}\`: ${detail}; starting a fresh instance`);
      throw new CoreTrap(`the memory core failed during \`${operation}\`: ${detail}`);
    } finally {
      this.fs = previous;
    }
  }

  scan(grant: ConfinedFs, dir: string, nowMs: bigint): ScanReport {
    return this.call("scan", grant, (r) => r.scan.scan(dir, nowMs));
  }

  manifest(headers: MemoryHeader[]): string {
    return this.call("manifest", undefined, (r) => r.manifest.format(headers));
  }

  loadIndex(grant: ConfinedFs, file: string): LoadedIndex {
    return this.call("index.load", grant, (r) => r.index.load(file));
  }

  locate(grant: ConfinedFs, cwd: string, env: Env): MemoryLocation {
    return this.call("paths.locate", grant, (r) => r.paths.locate(cwd, env));
  }

  status(grant: ConfinedFs, cwd: string, env: Env): MemoryStatus {
    return this.call("instructions.status", grant, (r) => r.instructions.status(cwd, env));
  }

  /** Approves imports from outside the project of `cwd` in ~/.claude.json; returns the file. */
  approveExternal(grant: ConfinedFs, cwd: string, env: Env): string {
    return this.call("instructions.approve-external", grant, (r) => r.instructions.approveExternal(cwd, env));
  }

  instructions(grant: ConfinedFs, request: LoadRequest): Loaded {
    return this.call("instructions.load", grant, (r) => r.instructions.load(request));
  }

  /** The memory part of the system prompt (R12.1); without the instruction files when the agent reads them itself. */
  prompt(grant: ConfinedFs, request: LoadRequest, indexStep = true, ignoreMemory = false, instructionFiles = true): string {
    return this.call("instructions.prompt", grant, (r) => r.instructions.prompt(request, { indexStep, ignoreMemory, instructionFiles }));
  }

  /**
   * Recalled memories as hook text (R14): framed as data, whole ones only, within `capBytes`
   * (default: the common limit). Keep the session it returns: what did not fit is taken back.
   */
  hookRecallContext(result: RecallResult, capBytes?: number): HookRecall {
    return this.call("hook.recall-context", undefined, (r) => r.hook.recallContext(result.session, result.attachments, capBytes));
  }

  /** Hook text within `capBytes`, cut at a line end with a note when too long. */
  hookFit(text: string, capBytes?: number): string {
    return this.call("hook.fit", undefined, (r) => r.hook.fit(text, capBytes));
  }

  /** When `teamSync: auto` syncs, in milliseconds, the same in every host: a session's first sync skips a directory synced within `sessionIntervalMs`; after a write it waits `writeDelayMs`. */
  autoSyncSchedule(): { sessionIntervalMs: number; writeDelayMs: number } {
    const s = this.call("team.auto-sync", undefined, (r) => r.team.autoSync());
    return { sessionIntervalMs: Number(s.sessionIntervalMs), writeDelayMs: Number(s.writeDelayMs) };
  }

  /** The tools every host that offers tools shows a model: one name, description and argument schema for every client. */
  toolCatalog(): Tool[] {
    return this.call("tools.catalog", undefined, (r) => r.tools.catalog());
  }

  /** What a call of the tool `name` may read and write (plan it with `open`); undefined for a name that is no tool. */
  toolOperation(name: string): Operation | undefined {
    return this.call("tools.operation-of", undefined, (r) => r.tools.operationOf(name));
  }

  /**
   * A tool call (issue 45): `args` as the tool's input schema names them; the answer as the
   * core words it, a refusal with `isError`. Recall asks `asking`'s model or embeddings model
   * on the way, and the session it keeps is written back. Arguments that do not fit throw.
   * Grant it `open(toolOperation(name), target)`.
   */
  async callTool(
    grant: ConfinedFs,
    name: string,
    args: object,
    target: Target,
    nowMs: bigint,
    utcOffsetMinutes: number,
    asking: ToolAsking = {},
  ): Promise<ToolAnswer> {
    const call = {
      name,
      args: JSON.stringify(args),
      target,
      nowMs,
      utcOffsetMinutes,
      session: asking.session?.json ?? "",
      model: asking.ask !== undefined,
      embeddings: asking.embeddings?.label,
      givenTo: asking.givenTo,
      notes: [],
      hostName: asking.hostName ?? os.hostname(),
    };
    let step: ToolStep = this.call("tools.call", grant, (r) => r.tools.call(call));
    // Git first (check, team sync), run here as the core asks; then the model's questions.
    while (step.tag === "run") {
      const { command, state } = step.val;
      if (!asking.runGit) throw new Error(`${name} runs git: pass runGit (runGitSync) to callTool`);
      const output = asking.runGit(command);
      step = this.call("tools.resume-git", grant, (r) => r.tools.resumeGit(state, output));
    }
    const resume = (state: string, reply: ModelReply) => this.call("tools.resume", grant, (r) => r.tools.resume(state, reply));
    const noModel = () => Promise.reject(new Error("no model"));
    const answer = await drive(step as Step<ToolAnswer>, asking.ask ?? noModel, resume as (state: string, reply: ModelReply) => Step<ToolAnswer>, () => {}, asking.embeddings?.embed);
    if (answer.session !== undefined && asking.session) asking.session.json = answer.session;
    return answer;
  }

  /**
   * Whether a turn's user messages may have taught something (issue 46): the gate a host asks
   * before it spends a model call on extraction. Offline, in six languages.
   */
  judgeTurn(messages: string[]): Verdict {
    return this.call("hook.judge-turn", undefined, (r) => r.hook.judgeTurn(messages));
  }

  /** Records a turn's learning (skipped by the gate, or an extraction) in the learning log. Grant it `open("hook", ...)`. */
  hookLearned(grant: ConfinedFs, event: LearnedEvent): boolean {
    return this.call("hook.learned", grant, (r) => r.hook.learned(event));
  }

  /** Records what an agent was given outside the hooks (a tool's recall) in `target`'s memory. Grant it `open("recall", ...)`. */
  recordReceipt(grant: ConfinedFs, target: Target, receipt: Receipt): boolean {
    return this.call("hook.record-receipt", grant, (r) => r.hook.recordReceipt(target, receipt));
  }

  /** The last seven days of the learning log of `cwd`'s memory. */
  learningSummary(grant: ConfinedFs, cwd: string, env: Env, nowMs: bigint): Learning {
    return this.call("hook.learning-summary", grant, (r) => r.hook.learningSummary(cwd, env, nowMs));
  }

  /** A client's session as a file name in `.sessions/` (no id can name a path outside it). */
  hookSessionName(client: string, session: string | undefined): string {
    return this.call("hook.session-name", undefined, (r) => r.hook.sessionName(client, session));
  }

  save(grant: ConfinedFs, request: SaveRequest): SaveReport {
    return this.call("writer.save", grant, (r) => r.writer.save(request));
  }

  /**
   * What has drifted, what the memories cite that is gone or changed (issue 14). The core asks
   * for the git commands it needs in the project; `runGit` runs each (`runGitSync`), or answers
   * with no status to let the core search the tree itself.
   */
  check(grant: ConfinedFs, target: Target, nowMs: bigint, runGit: (command: GitCommand) => GitOutput): CheckReport {
    let step = this.call("check.start", grant, (r) => r.check.start(target, nowMs));
    while (step.tag === "run") {
      const { command, state } = step.val;
      const output = runGit(command);
      step = this.call("check.resume", grant, (r) => r.check.resume(state, output));
    }
    return step.val;
  }

  /** The safe repairs to MEMORY.md; each change, in words. */
  fix(grant: ConfinedFs, target: Target, nowMs: bigint): string[] {
    return this.call("check.fix", grant, (r) => r.check.fix(target, nowMs));
  }

  rebuildIndex(grant: ConfinedFs, target: Target, nowMs: bigint): { path: string; entries: number } | undefined {
    return this.call("writer.rebuild-index", grant, (r) => r.writer.rebuildIndex(target, nowMs));
  }

  /** The proposals waiting under `memoryWrites: review`, oldest first (issue 28). */
  pending(grant: ConfinedFs, target: Target): Proposal[] {
    return this.call("writer.pending", grant, (r) => r.writer.pending(target));
  }

  /** Applies a waiting proposal, or a dream's whole batch, through the background writer's checks, and takes each off the queue. */
  accept(grant: ConfinedFs, target: Target, id: string, nowMs: bigint, utcOffsetMinutes: number): Proposal[] {
    return this.call("writer.accept", grant, (r) => r.writer.accept(target, id, nowMs, utcOffsetMinutes));
  }

  /** Takes a proposal, or a dream's whole batch, off the queue and remembers each, so none is proposed again. */
  reject(grant: ConfinedFs, target: Target, id: string): Proposal[] {
    return this.call("writer.reject", grant, (r) => r.writer.reject(target, id));
  }

  /** Pauses automatic writes (extraction, the dream) until `untilMs`, or until `resume` (issue 28). */
  pause(grant: ConfinedFs, target: Target, nowMs: bigint, untilMs?: bigint): PauseState {
    return this.call("writer.pause", grant, (r) => r.writer.pause(target, nowMs, untilMs));
  }

  /** Ends the pause; whether one was in force. */
  resume(grant: ConfinedFs, target: Target, nowMs: bigint): boolean {
    return this.call("writer.resume", grant, (r) => r.writer.resume(target, nowMs));
  }

  /** The pause in force at `nowMs`, if any. */
  paused(grant: ConfinedFs, target: Target, nowMs: bigint): PauseState | undefined {
    return this.call("writer.paused", grant, (r) => r.writer.paused(target, nowMs));
  }

  forget(grant: ConfinedFs, target: Target, file: string, nowMs: bigint): ForgetReport {
    return this.call("writer.forget", grant, (r) => r.writer.forget(target, file, nowMs));
  }

  /** The timeline of writes to the memory directory (or to one `file` in it), newest first. Grant it `open("read", ...)`. */
  timeline(grant: ConfinedFs, target: Target, file: string | undefined, limit: number): Written[] {
    return this.call("writer.timeline", grant, (r) => r.writer.timeline(target, file, limit));
  }

  logAppend(grant: ConfinedFs, target: Target, text: string, nowMs: bigint, utcOffsetMinutes: number): string {
    return this.call("daily-log.append", grant, (r) => r.dailyLog.append(target, text, nowMs, utcOffsetMinutes));
  }

  /**
   * A recall turn (R7): the model selects through `ask`, or the offline selector ranks. When
   * `input.embeddings` names the model `embed` calls (issue 27), meaning ranks beside words
   * offline, and the memories closest in meaning join a model's shortlist.
   */
  recall(grant: ConfinedFs, input: RecallInput, ask: (request: ModelRequest) => Promise<string>, embed?: Embed): Promise<RecallResult> {
    const first = this.call("recall.start", grant, (r) => r.recall.start(input));
    const resume = (state: string, reply: ModelReply) => this.call("recall.resume", grant, (r) => r.recall.resume(state, reply));
    return drive(first, ask, resume, () => {}, embed);
  }

  /**
   * What `operation` may read and write on `target`, as the core plans it (issue 45), applied:
   * a filesystem reading the plan's `read` roots and writing its `write` roots, each created
   * when missing. Hosts compute no grant of their own.
   */
  open(operation: Operation, target: Target): ConfinedFs {
    const everything = new ConfinedFs().grantRead("/");
    const plan: Grant = this.call("paths.plan", everything, (r) => r.paths.plan(operation, target));
    const grant = new ConfinedFs();
    for (const dir of plan.read) grant.grantRead(dir);
    for (const dir of plan.write) {
      fs.mkdirSync(dir, { recursive: true });
      grant.grantWrite(dir);
    }
    return grant;
  }

  /**
   * One user prompt through a hook (R14.2): the core keeps the turn's log and the recall
   * session in `.sessions/`, recalls offline and frames what fits. Grant it `open("hook", ...)`.
   */
  hookPrompt(grant: ConfinedFs, event: PromptEvent, embed?: Embed): Promise<Injected> {
    const first = this.call("hook.prompt", grant, (r) => r.hook.prompt(event));
    const resume = (state: string, reply: ModelReply) => this.call("hook.resume", grant, (r) => r.hook.resume(state, reply));
    return drive(first, () => Promise.reject(new Error("prompt time never waits for a model")), resume, () => {}, embed);
  }

  /** The recall session of `client`'s `session` starts again (R8.3); true when there was one. */
  hookReset(grant: ConfinedFs, client: string, session: string | undefined, cwd: string, env: Env): boolean {
    return this.call("hook.reset", grant, (r) => r.hook.reset(client, session, cwd, env));
  }

  /** Writer B over a conversation (R9.2): two model rounds, each operation checked by the core. */
  extract(grant: ConfinedFs, input: ExtractInput, ask: (request: ModelRequest) => Promise<string>): Promise<ExtractResult> {
    const first = this.call("extract.start", grant, (r) => r.extract.start(input));
    return drive(first, ask, (state, reply) => this.call("extract.resume", grant, (r) => r.extract.resume(state, reply)));
  }

  /** The dream (R9.4): one model call per chunk of new log text. */
  dream(
    grant: ConfinedFs,
    input: DreamInput,
    ask: (request: ModelRequest) => Promise<string>,
    progress: (call: ModelCall) => void,
  ): Promise<DreamResult> {
    const first = this.call("dream.start", grant, (r) => r.dream.start(input));
    const resume = (state: string, reply: ModelReply) => this.call("dream.resume", grant, (r) => r.dream.resume(state, reply));
    return drive(first, ask, resume, progress);
  }

  /**
   * A team (or private) memory sync, init or status (issue 13): the core decides each git
   * command; `runLocal` runs the local ones to their end (the core holds the writers' lock
   * across them) and `runNetwork` the ones that talk to the remote (it does not).
   */
  async team(
    grant: ConfinedFs,
    input: TeamInput,
    runLocal: (command: GitCommand) => GitOutput,
    runNetwork: (command: GitCommand) => Promise<GitOutput>,
  ): Promise<TeamReport> {
    let step = this.call("team.start", grant, (r) => r.team.start(input));
    while (step.tag === "run") {
      const { command, state } = step.val;
      const output = command.network ? await runNetwork(command) : runLocal(command);
      step = this.call("team.resume", grant, (r) => r.team.resume(state, output));
    }
    return step.val;
  }
}
