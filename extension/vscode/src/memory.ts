// The memory of the open workspace: where it lives, which switches are on, and the core's
// operations with the right grants. Every other part of the extension goes through here.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { ConfinedFs, MemoryCore } from "./core";
import type { Env, MemoryHeader, MemoryLocation, MemoryStatus, ModelRequest, RecallResult, SaveReport } from "./core";

/** The memory types, in the order the view lists them. */
export const TYPES = ["user", "feedback", "project", "reference"] as const;
export type MemoryType = (typeof TYPES)[number];

/** The environment variables the core reads; nothing else from `process.env` reaches it. */
const PASSED = /^(HOME|CLAUDE_CONFIG_DIR|CLAUDE_CODE_[A-Z_]+|MEMDIR_[A-Z_]+)$/;

/** The environment the core sees: the user's, overridden by the extension's settings. */
export function coreEnv(): Env {
  const env = new Map<string, string>();
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && PASSED.test(k)) env.set(k, v);
  if (!env.has("HOME")) env.set("HOME", os.homedir());
  const config = vscode.workspace.getConfiguration("memdir");
  const flag = (key: string, name: string, invert = false) => {
    const value = config.get<boolean | null>(key);
    if (typeof value === "boolean") env.set(name, value !== invert ? "1" : "0");
  };
  flag("autoMemory", "CLAUDE_CODE_DISABLE_AUTO_MEMORY", true);
  flag("dailyLog", "MEMDIR_DAILY_LOG");
  flag("teamMemory", "MEMDIR_TEAM_MEMORY");
  const configDir = config.get<string>("configDirectory");
  if (configDir) env.set("CLAUDE_CONFIG_DIR", configDir.replace(/^~(?=\/|$)/, os.homedir()));
  return [...env];
}

/** The whole tree, read-only: instruction files live anywhere from `/` down. */
const readEverything = () => new ConfinedFs().grantRead("/");

/** A memory as the view and the tools show it. */
export interface Memory {
  header: MemoryHeader;
  file: string;
  team: boolean;
}

export class Workspace {
  readonly core: MemoryCore;

  constructor(
    wasmDir: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.core = new MemoryCore(wasmDir, (m) => log.error(m));
  }

  /** The working directory: the first workspace folder, else the home directory. */
  cwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  }

  status(): MemoryStatus {
    return this.core.status(readEverything(), this.cwd(), coreEnv());
  }

  location(): MemoryLocation {
    return this.status().location;
  }

  /** The memory directory, created when missing, with a grant to write it alone. */
  private writable(location: MemoryLocation = this.location()): { dir: string; grant: ConfinedFs } {
    const dir = location.memoryDir;
    fs.mkdirSync(dir, { recursive: true });
    return { dir, grant: new ConfinedFs().grantWrite(dir) };
  }

  /** Every memory, newest first; none when the directory does not exist yet. */
  memories(): Memory[] {
    const dir = this.location().memoryDir;
    if (!fs.existsSync(dir)) return [];
    const report = this.core.scan(new ConfinedFs().grantRead(dir), dir);
    for (const d of report.skipped) this.log.warn(`${d.path}: ${d.reason}`);
    return report.headers.map((header) => ({
      header,
      file: path.join(dir, header.path),
      team: header.path.startsWith("team/"),
    }));
  }

  manifest(): string {
    return this.core.manifest(this.memories().map((m) => m.header));
  }

  /** MEMORY.md as the model sees it, and the warning when it was cut. */
  index(): { text: string; warning?: string; file: string } {
    const dir = this.location().memoryDir;
    const file = path.join(dir, "MEMORY.md");
    if (!fs.existsSync(file)) return { text: "", file };
    const loaded = this.core.loadIndex(new ConfinedFs().grantRead(dir), file);
    return { text: loaded.text, warning: loaded.warning, file };
  }

  /** The memory part of the system prompt: instructions, guidance, MEMORY.md (R12.1). */
  prompt(ignoreMemory = false): string {
    const request = { cwd: this.cwd(), env: coreEnv(), touching: [], addDirs: [] };
    return this.core.prompt(readEverything(), request, true, ignoreMemory);
  }

  save(request: {
    type: MemoryType;
    name: string;
    description: string;
    body: string;
    topic?: string;
    scope?: "private" | "team";
  }): SaveReport {
    const status = this.status();
    const { dir, grant } = this.writable(status.location);
    return this.core.save(grant, {
      memoryDir: dir,
      memoryType: request.type,
      name: request.name,
      description: request.description,
      topic: request.topic || undefined,
      body: request.body,
      nowMs: BigInt(Date.now()),
      utcOffsetMinutes: -new Date().getTimezoneOffset(),
      scope: request.scope,
      teamMemory: status.switches.teamMemory,
    });
  }

  forget(relative: string) {
    const { dir, grant } = this.writable();
    return this.core.forget(grant, dir, relative);
  }

  appendLog(text: string): string {
    const { dir, grant } = this.writable();
    return this.core.logAppend(grant, dir, text, BigInt(Date.now()), -new Date().getTimezoneOffset());
  }

  /**
   * One recall turn for `query` (R7): the model picks (or the offline selector ranks), and the
   * session (JSON) keeps budgets and what was surfaced.
   */
  async recall(
    query: string,
    session: { json: string },
    ask: ((request: ModelRequest) => Promise<string>) | undefined,
    options: { recentTools?: string[]; alreadyRead?: string[]; ignoreMemory?: boolean } = {},
  ): Promise<{ skipped?: string; result: RecallResult }> {
    const status = this.status();
    const dir = status.location.memoryDir;
    const empty = { selected: [], attachments: [], diagnostics: [] };
    if (!fs.existsSync(dir)) return { skipped: "no-memories", result: empty };
    const grant = new ConfinedFs().grantRead(dir);
    const input = {
      memoryDir: dir,
      query,
      recentTools: options.recentTools ?? [],
      alreadyRead: options.alreadyRead ?? [],
      autoMemory: status.switches.autoMemory,
      ignoreMemory: options.ignoreMemory ?? false,
      nowMs: BigInt(Date.now()),
    };
    const started = this.core.recallPrepare(grant, input, session.json);
    session.json = started.session;
    if (started.prepared.tag === "skipped") return { skipped: started.prepared.val, result: empty };
    const pending = started.prepared.val;
    let reply: string | undefined;
    if (ask) {
      try {
        reply = await ask(pending.request);
      } catch (e) {
        // A model that fails costs this turn its attachments, never more (R7).
        return { result: { ...empty, diagnostics: [`${(e as Error).message}; nothing recalled this turn`] } };
      }
    }
    const finished = this.core.recallFinish(grant, input, session.json, pending, reply);
    session.json = finished.session;
    return { result: finished.result };
  }

  /**
   * Writer B over a finished turn (R9.2): two model rounds, each operation checked by the core.
   * Returns the files written; skipped when the turn already saved.
   */
  async extract(
    messages: { role: "user" | "assistant"; text: string }[],
    ask: (request: ModelRequest) => Promise<string>,
  ): Promise<{ skipped?: string; written: string[]; diagnostics: string[] }> {
    const status = this.status();
    const { dir, grant } = this.writable(status.location);
    const input = {
      memoryDir: dir,
      messages: messages.map((m) => ({ role: m.role, text: m.text, wrote: [] })),
      cursor: 0,
      written: [],
      mainAgent: true,
      autoMemory: status.switches.autoMemory,
      nowMs: BigInt(Date.now()),
      utcOffsetMinutes: -new Date().getTimezoneOffset(),
    };
    const begun = this.core.extractBegin(grant, input);
    if (begun.tag === "skipped") return { skipped: begun.val, written: [], diagnostics: [] };
    const first = await ask(begun.val.request);
    const read = this.core.extractRead(grant, input, begun.val, first);
    const second = await ask(read.request);
    const applied = this.core.extractApply(grant, input, second);
    const rejected = applied.operations.filter((o) => o.rejected).map((o) => `${o.op} ${o.path}: ${o.rejected}`);
    return {
      written: applied.operations.filter((o) => !o.rejected).map((o) => o.path),
      diagnostics: [...read.diagnostics, ...applied.diagnostics, ...rejected],
    };
  }

  /** Folds what the daily logs gained into memories (R9.4), chunk by chunk. */
  async dream(ask: (request: ModelRequest) => Promise<string>, progress: (done: number, total: number) => void) {
    const { dir, grant } = this.writable();
    const chunks = this.core.dreamPlan(grant, dir);
    const written: string[] = [];
    const diagnostics: string[] = [];
    for (const [i, chunk] of chunks.entries()) {
      progress(i, chunks.length);
      const reply = await ask(chunk.request);
      const applied = this.core.dreamApply(grant, dir, BigInt(Date.now()), -new Date().getTimezoneOffset(), reply);
      written.push(...applied.operations.filter((o) => !o.rejected).map((o) => o.path));
      diagnostics.push(...applied.diagnostics);
      this.core.dreamCommit(grant, dir, chunk.logs);
    }
    progress(chunks.length, chunks.length);
    return { chunks: chunks.length, written, diagnostics };
  }
}

/** "today", "yesterday", "N days ago" (R7.6). */
export function freshness(mtimeMs: bigint, now = Date.now()): string {
  const days = Math.max(0, Math.floor((now - Number(mtimeMs)) / 86_400_000));
  return days === 0 ? "today" : days === 1 ? "yesterday" : `${days} days ago`;
}

/**
 * Days after which a memory is shown as possibly stale. Types age differently (R1.6): project
 * state goes stale fastest, who the user is and how they work hardly at all.
 */
const STALE_AFTER_DAYS: Record<string, number> = { project: 30, reference: 90, feedback: 365, user: 365 };

export function isStale(header: MemoryHeader, now = Date.now()): boolean {
  const days = (now - Number(header.mtimeMs)) / 86_400_000;
  return days > (STALE_AFTER_DAYS[header.memoryType ?? "project"] ?? 30);
}
