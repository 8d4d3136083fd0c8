// The memory of the open workspace: where it lives, which switches are on, and the core's
// operations with the right grants. Every other part of the extension goes through here.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { ConfinedFs, MemoryCore, coreEnv as baseEnv, openAiEmbeddings, opName, runGitAsync, runGitSync } from "@memdir/core";
import type { CheckReport, Embed, OpReport, Env, MemoryHeader, MemoryLocation, MemoryStatus, ModelCall, ModelRequest, PauseState, Proposal, RecallResult, SaveReport, Target, TeamReport, ToolAsking } from "@memdir/core";

/** The memory types, in the order the view lists them. */
export const TYPES = ["user", "feedback", "project", "reference"] as const;
export type MemoryType = (typeof TYPES)[number];

/**
 * The environment the core sees: the user's. The memory switches (auto memory, team memory, the
 * daily log, team sync) are the shared settings files' and their variables, as for every other
 * agent (issue 47: one spelling per switch); the editor adds only where its memory lives.
 */
export function coreEnv(): Env {
  const env = new Map<string, string>(baseEnv());
  const config = vscode.workspace.getConfiguration("memdir");
  const configDir = config.get<string>("configDirectory");
  if (configDir) env.set("CLAUDE_CONFIG_DIR", configDir.replace(/^~(?=\/|$)/, os.homedir()));
  // Restricted Mode: no instruction file of this workspace (nor any other) reaches a model (R4.1).
  if (!vscode.workspace.isTrusted) env.set("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1");
  return [...env];
}

/**
 * The user's embeddings model for recall (issue 27), when both its settings are set.
 * Application settings only: a repository cannot send memory to a server of its choosing.
 */
function embeddings(): { label: string; embed: Embed } | undefined {
  const config = vscode.workspace.getConfiguration("memdir");
  const model = (config.get<string>("embeddings.model") ?? "").trim();
  const baseUrl = (config.get<string>("embeddings.baseUrl") ?? "").trim();
  return model && baseUrl ? openAiEmbeddings({ baseUrl, model }) : undefined;
}

/** The whole tree, read-only: instruction files and settings live anywhere from `/` down. */
const readEverything = () => new ConfinedFs().grantRead("/");

/** The user's UTC offset in minutes, so "today" is the user's day. */
const utcOffset = () => -new Date().getTimezoneOffset();

/** Who the timeline says asked for a write made through the editor's own commands and views. */
const PERSON = "person:editor";
/** ... and through the tools the editor's agent calls. */
const AGENT = "agent:vscode";

/** A memory as the view and the tools show it. */
export interface Memory {
  header: MemoryHeader;
  file: string;
  team: boolean;
}

export class Workspace {
  readonly core: MemoryCore;
  /** Told after every write (save, forget, log): team sync runs after writes pause. */
  onWrite: () => void = () => {};

  constructor(
    core: MemoryCore | string,
    private readonly log: vscode.LogOutputChannel,
    /** The folder this workspace is bound to; undefined: the active one. */
    private readonly folder?: string,
  ) {
    this.core = typeof core === "string" ? new MemoryCore(core, (m) => log.error(m), (m) => log.info(m)) : core;
  }

  /**
   * The working directory. Each folder of a multi-root workspace has its own memory: a bound
   * workspace uses its folder; otherwise the folder of the active editor, else the first
   * folder, else the home directory.
   */
  cwd(): string {
    if (this.folder) return this.folder;
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.fsPath ?? os.homedir();
  }

  /** The same memory operations, bound to one folder. */
  forFolder(folder: string): Workspace {
    const bound = new Workspace(this.core, this.log, folder);
    bound.onWrite = () => this.onWrite();
    return bound;
  }

  /** One workspace per folder, named; a single entry (this one) unless there are several folders. */
  folders(): Array<{ name: string; workspace: Workspace }> {
    const all = vscode.workspace.workspaceFolders ?? [];
    if (all.length <= 1) return [{ name: all[0]?.name ?? "home", workspace: this }];
    return all.map((f) => ({ name: f.name, workspace: this.forFolder(f.uri.fsPath) }));
  }

  /**
   * The folder a command acts on: the only one; the active editor's; else the one the user
   * picks (undefined when they cancel).
   */
  async choose(title: string): Promise<Workspace | undefined> {
    const all = vscode.workspace.workspaceFolders ?? [];
    if (this.folder || all.length <= 1) return this;
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = active && vscode.workspace.getWorkspaceFolder(active);
    if (folder) return this.forFolder(folder.uri.fsPath);
    const picked = await vscode.window.showQuickPick(
      all.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
      { title: `${title}: which folder's memory?` },
    );
    return picked && this.forFolder(picked.folder.uri.fsPath);
  }

  status(): MemoryStatus {
    return this.core.status(readEverything(), this.cwd(), coreEnv());
  }

  location(): MemoryLocation {
    return this.status().location;
  }

  /**
   * Whose memory: the core locates it and resolves the switches from the folder and the
   * environment. `by` is who asks, for the timeline of writes (issue 48): the person through
   * the editor unless an agent's tool call says otherwise.
   */
  target(by: string = PERSON): Target {
    return { cwd: this.cwd(), env: coreEnv(), memoryDir: undefined, by };
  }

  /**
   * The memory directory, created when missing, with the grant the core plans for a writer
   * (issue 45): everything to read, the memory directory to write; `shared` (a save or a
   * forget) also the user-wide and group memories the user turned on (issue 28).
   */
  private writable(shared = false): { target: Target; dir: string; grant: ConfinedFs } {
    assertTrusted();
    const target = this.target();
    const grant = this.core.open(shared ? "write-shared" : "write", target);
    return { target, dir: this.location().memoryDir, grant };
  }

  /**
   * What recall may touch, as the core plans it: everything to read, and the recall index
   * (issue 27) to write in each memory directory it searches that exists, in a trusted
   * workspace.
   */
  private indexGrant(): ConfinedFs {
    if (!vscode.workspace.isTrusted) return readEverything();
    return this.core.open("recall", this.target());
  }

  /** Every memory, newest first; none when the directory does not exist yet. */
  memories(): Memory[] {
    const dir = this.location().memoryDir;
    if (!fs.existsSync(dir)) return [];
    const report = this.core.scan(new ConfinedFs().grantRead(dir), dir, BigInt(Date.now()));
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

  /**
   * Approves `@imports` that lead outside this project (R3.4), as the terminal agent records it
   * in ~/.claude.json; until then the core leaves them out. Returns the file written.
   */
  approveExternalImports(): string {
    assertTrusted();
    const target = this.target();
    // The core's plan: the folder of the state file it writes, nothing else.
    const grant = this.core.open("approve-external", target);
    return this.core.approveExternal(grant, target.cwd, target.env);
  }

  /** What the instruction files say about themselves: large files, imports not loaded (R3.4). */
  instructionDiagnostics(): string[] {
    const request = { cwd: this.cwd(), env: coreEnv(), touching: [], addDirs: [] };
    return this.core.instructions(readEverything(), request).files.flatMap((f) => f.diagnostics.map((d) => `${f.path}: ${d}`));
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
    file?: string;
    replaces?: string;
    scope?: "private" | "team" | "user" | "group";
  }): SaveReport {
    const { target, grant } = this.writable(true);
    const report = this.core.save(grant, {
      target,
      memoryType: request.type,
      name: request.name,
      description: request.description,
      file: request.file || undefined,
      replaces: request.replaces || undefined,
      body: request.body,
      nowMs: BigInt(Date.now()),
      utcOffsetMinutes: utcOffset(),
      scope: request.scope,
    });
    this.onWrite();
    return report;
  }

  /**
   * Checks the memories (issue 14): drift, secrets, and what they cite in this project, with
   * what the project's git says when it is a repository (the core asks; this runs git).
   */
  check(): CheckReport {
    // Trusted, the core's plan: the memory folder writable when it exists, to finish a write
    // a killed writer left half-done. Untrusted, nothing is written.
    const target = this.target();
    const grant = vscode.workspace.isTrusted ? this.core.open("check", target) : readEverything();
    // Git runs in a trusted workspace only: elsewhere the core searches the tree itself.
    const untrusted = { status: undefined, stdout: "", stderr: "not run: the workspace is not trusted" };
    return this.core.check(grant, target, BigInt(Date.now()), (command) => (vscode.workspace.isTrusted ? runGitSync(command) : untrusted));
  }

  /** The safe repairs to MEMORY.md (never a memory file); each change. */
  fix(): string[] {
    const { target, grant } = this.writable();
    return this.core.fix(grant, target, BigInt(Date.now()));
  }

  /** Writes MEMORY.md when memory files exist and it does not (R6.5); what was done, if anything. */
  rebuildIndex(): string | undefined {
    if (!vscode.workspace.isTrusted) return undefined;
    // A check's plan: the memory folder writable when it exists, never created.
    const target = this.target();
    const rebuilt = this.core.rebuildIndex(this.core.open("check", target), target, BigInt(Date.now()));
    return rebuilt && `MEMORY.md was missing: wrote ${rebuilt.path} with ${rebuilt.entries} entries`;
  }

  /** The proposals waiting for the user under `memoryWrites: review` (issue 28). */
  pending(): Proposal[] {
    return this.core.pending(readEverything(), this.target());
  }

  /** Accepts a proposal: the same checked, journaled write as the background writer's. */
  accept(id: string): Proposal[] {
    const { target, grant } = this.writable();
    const accepted = this.core.accept(grant, target, id, BigInt(Date.now()), -new Date().getTimezoneOffset());
    this.onWrite();
    return accepted;
  }

  /** Rejects a proposal; it is not proposed again. */
  reject(id: string): Proposal[] {
    const { target, grant } = this.writable();
    return this.core.reject(grant, target, id);
  }

  /** Pauses automatic writes for this folder's memory until `untilMs`, or until resumed (issue 28). */
  pause(untilMs?: number): PauseState {
    const { target, grant } = this.writable();
    return this.core.pause(grant, target, BigInt(Date.now()), untilMs === undefined ? undefined : BigInt(untilMs));
  }

  /** Ends the pause; whether one was in force. */
  resume(): boolean {
    const { target, grant } = this.writable();
    return this.core.resume(grant, target, BigInt(Date.now()));
  }

  /** The pause in force now, if any. */
  paused(): PauseState | undefined {
    return this.core.paused(readEverything(), this.target(), BigInt(Date.now()));
  }

  /**
   * A tool the core answers (issue 45: recall, index, list, save, forget, the daily log): the
   * core plans what it may touch and words the answer, as for every host's tools; recall asks
   * `asking`'s model and the user's embeddings model on the way. A refusal throws with the
   * core's words, which the model reads. In Restricted Mode only reading tools run, and recall
   * keeps neither its index nor a receipt.
   */
  async callTool(name: string, args: object, by: string = AGENT, asking: ToolAsking = {}): Promise<string> {
    const operation = this.core.toolOperation(name);
    if (!operation) throw new Error(`${name} is not a tool the core answers`);
    // Only reading runs untrusted: every other operation's grant may write (check recovers
    // the memory, sync and extraction write it).
    if (operation !== "read" && operation !== "recall") assertTrusted();
    const writes = operation === "write" || operation === "write-shared";
    const target = this.target(by);
    const grant = operation === "recall" ? this.indexGrant() : this.core.open(operation, target);
    const embedder = embeddings();
    const givenTo = vscode.workspace.isTrusted ? asking.givenTo : undefined;
    const answer = await this.core.callTool(grant, name, args, target, BigInt(Date.now()), utcOffset(), {
      ...asking,
      embeddings: embedder,
      givenTo,
    });
    if (writes && !answer.isError) this.onWrite();
    if (answer.isError) throw new Error(answer.text);
    return answer.text;
  }

  forget(relative: string) {
    const { target, grant } = this.writable(true);
    const report = this.core.forget(grant, target, relative, BigInt(Date.now()));
    this.onWrite();
    return report;
  }

  appendLog(text: string): string {
    const { target, grant } = this.writable();
    const file = this.core.logAppend(grant, target, text, BigInt(Date.now()), utcOffset());
    this.onWrite();
    return file;
  }

  /** When memory synced through git syncs: `off`, `manual` or `auto` (issue 13). */
  teamSync(): "off" | "manual" | "auto" {
    return this.status().switches.teamSync;
  }

  /**
   * Syncs team/ and the private directory, each that is a git working copy (`memdir team
   * init`), through the core's step machine; git runs here. `minIntervalMs`: skip a directory
   * synced that recently. Nothing when the workspace is not trusted.
   */
  async sync(minIntervalMs?: number): Promise<TeamReport[]> {
    if (!vscode.workspace.isTrusted) return [];
    const dir = this.location().memoryDir;
    const reports: TeamReport[] = [];
    for (const which of ["team", "private"] as const) {
      const copy = which === "team" ? path.join(dir, "team", ".git") : path.join(dir, ".git");
      if (!fs.existsSync(copy)) continue;
      const { target, grant } = this.writable();
      const input = {
        target,
        which,
        action: { tag: "sync" as const },
        nowMs: BigInt(Date.now()),
        hostName: os.hostname(),
        minIntervalMs: minIntervalMs === undefined ? undefined : BigInt(minIntervalMs),
      };
      reports.push(await this.core.team(grant, input, runGitSync, runGitAsync));
    }
    return reports;
  }

  /**
   * One recall turn for `query` (R7): the model picks, or the offline selector ranks when there
   * is no model. With the `memdir.embeddings` settings, meaning ranks beside words offline and
   * brings the closest memories into the model's shortlist. `session` keeps the session's JSON
   * (budgets, what was surfaced) between turns.
   */
  async recall(
    query: string,
    session: { json: string },
    ask: ((request: ModelRequest) => Promise<string>) | undefined,
    options: { recentTools?: string[]; alreadyRead?: string[]; ignoreMemory?: boolean; givenTo?: string } = {},
  ): Promise<RecallResult> {
    const input = {
      target: this.target(),
      query,
      recentTools: options.recentTools ?? [],
      alreadyRead: options.alreadyRead ?? [],
      ignoreMemory: options.ignoreMemory ?? false,
      nowMs: BigInt(Date.now()),
      session: session.json,
      offline: ask === undefined,
      embeddings: undefined as string | undefined,
    };
    const embedder = embeddings();
    input.embeddings = embedder?.label;
    const noModel = () => Promise.reject(new Error("no model"));
    const started = performance.now();
    let modelMs = 0;
    const timed = async (request: ModelRequest) => {
      const asked = performance.now();
      try {
        return await (ask ?? noModel)(request);
      } finally {
        modelMs += performance.now() - asked;
      }
    };
    const grant = this.indexGrant();
    const result = await this.core.recall(grant, input, timed, embedder?.embed);
    // What an agent was given is kept as a receipt, which `memdir ui` shows (issue 48).
    if (options.givenTo && vscode.workspace.isTrusted) {
      this.core.recordReceipt(grant, input.target, {
        atMs: BigInt(Date.now()),
        client: options.givenTo,
        session: undefined,
        kind: "tool",
        memories: result.attachments.map((a) => a.path),
        bytes: result.attachments.reduce((n, a) => n + Buffer.byteLength(a.text), 0),
      });
    }
    const ms = (n: number) => n.toFixed(1);
    this.log.info(`memdir: recall took ${ms(performance.now() - started)} ms, of which the model ${ms(modelMs)} ms`);
    session.json = result.session;
    return result;
  }

  /**
   * Writer B over a finished turn (R9.2): two model rounds, each operation checked by the core.
   * Returns the files written; skipped when the turn already saved.
   */
  async extract(
    messages: { role: "user" | "assistant"; text: string }[],
    ask: (request: ModelRequest) => Promise<string>,
    learning?: { client: string; model: string },
  ): Promise<{ skipped?: string; written: string[]; diagnostics: string[] }> {
    // After a turn (not for /remember), the core's gate decides first whether the user taught
    // anything, and the learning log counts what it cost (issue 46).
    if (learning) {
      const said = messages.filter((m) => m.role === "user").map((m) => m.text);
      if (!this.core.judgeTurn(said).teaches) {
        this.learned(learning, { skipped: true, calls: 0, written: 0 });
        return { skipped: "the turn taught nothing to keep", written: [], diagnostics: [] };
      }
    }
    let calls = 0;
    const counted = (request: ModelRequest) => {
      calls += 1;
      return ask(request);
    };
    let result: { skipped?: string; written: string[]; diagnostics: string[] };
    try {
      result = await this.extractTurn(messages, counted);
    } catch (e) {
      if (learning) this.learned(learning, { skipped: false, calls, written: 0, error: (e as Error).message });
      throw e;
    }
    if (learning) this.learned(learning, { skipped: false, calls, written: result.written.length });
    return result;
  }

  /** One line in the learning log of this workspace's memory. */
  private learned(learning: { client: string; model: string }, what: { skipped: boolean; calls: number; written: number; error?: string }) {
    if (!vscode.workspace.isTrusted) return;
    const target = this.target();
    const grant = this.core.open("hook", target);
    this.core.hookLearned(grant, {
      client: learning.client,
      skipped: what.skipped,
      cwd: target.cwd,
      env: target.env,
      model: learning.model,
      calls: what.calls,
      tokens: undefined,
      written: what.written,
      error: what.error,
      nowMs: BigInt(Date.now()),
    });
  }

  /** The last seven days of the learning log of this workspace's memory. */
  learning() {
    return this.core.learningSummary(readEverything(), this.cwd(), coreEnv(), BigInt(Date.now()));
  }

  private async extractTurn(
    messages: { role: "user" | "assistant"; text: string }[],
    ask: (request: ModelRequest) => Promise<string>,
  ): Promise<{ skipped?: string; written: string[]; diagnostics: string[] }> {
    const { target, grant } = this.writable();
    const input = {
      target,
      messages: messages.map((m) => ({ role: m.role, text: m.text, wrote: [] })),
      conversation: undefined,
      written: [],
      mainAgent: true,
      nowMs: BigInt(Date.now()),
      utcOffsetMinutes: utcOffset(),
    };
    const result = await this.core.extract(grant, input, ask);
    const rejected = result.operations.filter((o) => o.rejected).map((o) => `${opName(o.op)} ${o.path}: ${o.rejected}`);
    return {
      skipped: result.skipped,
      written: result.operations.filter((o) => !o.rejected && !o.proposed).map((o) => o.path),
      diagnostics: [...result.diagnostics, ...rejected, ...proposedNotes(result.operations)],
    };
  }

  /** Folds what the daily logs gained into memories (R9.4), chunk by chunk. */
  async dream(ask: (request: ModelRequest) => Promise<string>, progress: (done: number, total: number) => void) {
    const { target, grant } = this.writable();
    const input = { target, nowMs: BigInt(Date.now()), utcOffsetMinutes: utcOffset() };
    const result = await this.core.dream(grant, input, ask, (call: ModelCall) => progress(call.call - 1, call.calls));
    progress(result.chunks, result.chunks);
    return {
      chunks: result.chunks,
      written: result.operations.filter((o) => !o.rejected && !o.proposed).map((o) => o.path),
      diagnostics: [...result.diagnostics, ...proposedNotes(result.operations)],
    };
  }
}

/** What waits for review instead of being written (issue 28), as notes. */
function proposedNotes(operations: OpReport[]): string[] {
  return operations.filter((o) => o.proposed).map((o) => `proposed ${opName(o.op)} ${o.path} for review (Memory: Review Memories…)`);
}

/** How the status shows which rule decided auto memory (R4.2). */
export function decidedBy(status: MemoryStatus): string {
  const d = status.switches.decidedBy;
  return d.tag === "settings" ? `settings:${d.val}` : d.tag;
}

/** Refuses a write in Restricted Mode: an untrusted workspace leaves memory as it is. */
function assertTrusted(): void {
  if (!vscode.workspace.isTrusted) {
    throw new Error("this workspace is in Restricted Mode, where memory is read-only: trust the workspace to change memories");
  }
}
