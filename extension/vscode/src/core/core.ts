// The memory core, loaded through jco: the component transpiled with `--instantiation sync`
// (see scripts/build.mjs), instantiated with our WASI and the confined host filesystem.
//
// Every call names the filesystem it grants. A trap (a panic in the core, `exit`) poisons the
// instance, so it is logged and the next call gets a fresh one. Sessions are kept as JSON
// between calls so they survive a new instance.

import * as fs from "node:fs";
import * as path from "node:path";
import { instantiate } from "../../generated/memdir-core.js";
import type { Root } from "../../generated/memdir-core.js";
import type { ConfinedFs } from "./hostfs";
import { wasiImports } from "./wasi";

export type { Root };
export type ScanReport = ReturnType<Root["scan"]["scan"]>;
export type MemoryHeader = ScanReport["headers"][number];
export type LoadedIndex = ReturnType<Root["index"]["load"]>;
export type MemoryLocation = ReturnType<Root["paths"]["locate"]>;
export type Loaded = ReturnType<Root["instructions"]["load"]>;
export type LoadRequest = Parameters<Root["instructions"]["load"]>[0];
export type MemoryStatus = ReturnType<Root["instructions"]["status"]>;
export type SaveRequest = Parameters<Root["writer"]["save"]>[0];
export type SaveReport = ReturnType<Root["writer"]["save"]>;
export type ForgetReport = ReturnType<Root["writer"]["forget"]>;
export type RecallInput = Parameters<Root["recall"]["prepare"]>[0];
export type Prepared = ReturnType<Root["recall"]["prepare"]>;
export type Pending = Extract<Prepared, { tag: "ask" }>["val"];
export type ModelRequest = Pending["request"];
export type RecallResult = ReturnType<Root["recall"]["offline"]>;
export type ExtractInput = Parameters<Root["extract"]["begin"]>[0];
export type Begun = ReturnType<Root["extract"]["begin"]>;
export type ApplyResult = ReturnType<Root["extract"]["apply"]>;
export type Chunk = ReturnType<Root["dailyLog"]["plan"]>[number];
export type Env = Array<[string, string]>;

/** The imports memdir grants the core: anything else makes loading fail. */
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
      if (typeof key === "string" && !ALLOWED_IMPORTS.includes(key)) {
        throw new Error(`the memory core imports \`${key}\`, which memdir does not grant; refusing to run it`);
      }
      return (target as Record<string | symbol, unknown>)[key];
    },
  });
}

/** An error the core returned: its message reads as the harness prints it. */
export class CoreError extends Error {
  constructor(readonly kind: string, message: string) {
    super(message);
  }
}

/** The core trapped; the instance was dropped and the next call gets a new one. */
export class CoreTrap extends Error {}

const FS_MESSAGES: Record<string, string> = {
  "not-found": "not found",
  "permission-denied": "permission denied",
  "outside-root": "outside the directories memdir may use",
  "read-only": "read-only",
  "not-a-directory": "not a directory",
  "is-a-directory": "is a directory",
  "invalid-path": "invalid path",
};

function coreError(payload: { tag: string; val: any }): CoreError {
  if (payload.tag === "fs") {
    const { tag, val } = payload.val as { tag: string; val: string };
    return new CoreError(`fs:${tag}`, tag in FS_MESSAGES ? `${val}: ${FS_MESSAGES[tag]}` : val);
  }
  return new CoreError(payload.tag, String(payload.val));
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
  ) {}

  private instance(): Root {
    if (this.root) return this.root;
    // jco keeps the functions it is given at instantiation, so each one looks up the
    // filesystem of the call in progress.
    const hostFs: Record<string, (...args: unknown[]) => unknown> = {};
    for (const name of HOST_FS_FUNCTIONS) {
      hostFs[name] = (...args: unknown[]) => {
        if (!this.fs) throw { payload: { tag: "other", val: "the memory core used the filesystem outside a call" } };
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
      const payload = (e as { payload?: { tag: string; val: unknown } }).payload;
      if (payload && typeof payload === "object" && "tag" in payload) throw coreError(payload as never);
      if (e instanceof Error && e.message.includes("does not grant")) throw e;
      const detail = this.wasi.stderr() || (e instanceof Error ? e.message : String(e));
      this.root = undefined;
      this.log(`memdir: the memory core failed during \`${operation}\`: ${detail}; starting a fresh instance`);
      throw new CoreTrap(`the memory core failed during \`${operation}\`: ${detail}`);
    } finally {
      this.fs = previous;
    }
  }

  scan(grant: ConfinedFs, dir: string): ScanReport {
    return this.call("scan", grant, (r) => r.scan.scan(dir));
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

  instructions(grant: ConfinedFs, request: LoadRequest): Loaded {
    return this.call("instructions.load", grant, (r) => r.instructions.load(request));
  }

  prompt(grant: ConfinedFs, request: LoadRequest, indexStep = true, ignoreMemory = false): string {
    return this.call("instructions.prompt", grant, (r) => r.instructions.prompt(request, { indexStep, ignoreMemory }));
  }

  save(grant: ConfinedFs, request: SaveRequest): SaveReport {
    return this.call("writer.save", grant, (r) => r.writer.save(request));
  }

  forget(grant: ConfinedFs, memoryDir: string, file: string): ForgetReport {
    return this.call("writer.forget", grant, (r) => r.writer.forget(memoryDir, file));
  }

  logAppend(grant: ConfinedFs, memoryDir: string, text: string, nowMs: bigint, utcOffsetMinutes: number): string {
    return this.call("daily-log.append", grant, (r) => r.dailyLog.append(memoryDir, text, nowMs, utcOffsetMinutes));
  }

  dreamPlan(grant: ConfinedFs, memoryDir: string): Chunk[] {
    return this.call("daily-log.plan", grant, (r) => r.dailyLog.plan(memoryDir));
  }

  dreamApply(grant: ConfinedFs, memoryDir: string, nowMs: bigint, utcOffsetMinutes: number, reply: string): ApplyResult {
    return this.call("daily-log.apply", grant, (r) => r.dailyLog.apply(memoryDir, nowMs, utcOffsetMinutes, reply));
  }

  dreamCommit(grant: ConfinedFs, memoryDir: string, logs: Chunk["logs"]): void {
    this.call("daily-log.commit", grant, (r) => r.dailyLog.commit(memoryDir, logs));
  }

  extractBegin(grant: ConfinedFs, input: ExtractInput): Begun {
    return this.call("extract.begin", grant, (r) => r.extract.begin(input));
  }

  extractRead(grant: ConfinedFs, input: ExtractInput, round: Extract<Begun, { tag: "ask" }>["val"], reply: string) {
    return this.call("extract.read-round", grant, (r) => r.extract.readRound(input, round, reply));
  }

  extractApply(grant: ConfinedFs, input: ExtractInput, reply: string): ApplyResult {
    return this.call("extract.apply", grant, (r) => r.extract.apply(input, reply));
  }

  /**
   * Starts a recall turn (R7.2): a skip reason, or the model request. `session` is the
   * session's JSON (empty for a new one) and comes back with the turn begun. The model is
   * asked between this call and `recallFinish`, so it may be asynchronous.
   */
  recallPrepare(grant: ConfinedFs, input: RecallInput, session: string): { prepared: Prepared; session: string } {
    return this.call("recall.prepare", grant, (r) => {
      const s = session ? r.budget.Session.fromJson(session) : new r.budget.Session();
      const prepared = r.recall.prepare(input, s);
      return { prepared, session: s.toJson() };
    });
  }

  /** Finishes a recall with the model's reply, or with the offline selector when there is none. */
  recallFinish(
    grant: ConfinedFs,
    input: RecallInput,
    session: string,
    pending: Pending,
    reply: string | undefined,
  ): { result: RecallResult; session: string } {
    return this.call(reply === undefined ? "recall.offline" : "recall.complete", grant, (r) => {
      const s = r.budget.Session.fromJson(session);
      const result =
        reply === undefined ? r.recall.offline(input, s, pending) : r.recall.complete(input, s, pending, reply);
      return { result, session: s.toJson() };
    });
  }
}
