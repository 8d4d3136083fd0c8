// The `memdir` CLI on Node: the commands of `host-harness/src/cli.rs` and
// `host-harness/src/commands/*.rs`, ported onto the same memory core loaded through jco
// (`dist/core.js`), printing byte for byte what the Rust CLI prints. It is the third backend
// the conformance cases replay (conformance.mjs).
//
//   run(["scan", dir, "--json"], env, cwd) -> { status, stdout, stderr }
//   node test/cli.mjs scan DIR --json
//
// `args` leaves out the program name; `env` is what the core may consult (an object or
// [name, value] pairs, the last definition winning); `cwd` stands for the process's working
// directory: relative paths are taken from it and model commands run in it.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError, parseArgs } from "./args.mjs";
import { LlmError, SpecError, envVar, fromSpec } from "./model.mjs";
import { debugStr, decodeUtf8, ioMessage, isoMillis, parseI32, parseRfc3339, parseU64, pretty, sortedKeys, trim, trimEnd } from "./rust.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, "../dist");
const { MemoryCore, ConfinedFs, CoreError, CoreTrap } = createRequire(import.meta.url)(path.join(dist, "core.js"));

// One core for the process, as the extension keeps one: its instance holds nothing between
// calls, and compiling the modules once keeps the replay fast.
let shared;
/** The process's MemoryCore (dist/core.js). */
export const core = () => (shared ??= new MemoryCore(dist));

const INDEX_FILE = "MEMORY.md";

// ---------------------------------------------------------------------------------------------
// Failures and the context a command runs in (cli.rs)

/** A failed command: exit status 2 for bad input, 1 for anything else. */
class Failure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const input = (message) => new Failure(2, message);

/** Core errors that are the caller's input (cli.rs `From<Error> for Failure`). */
const INPUT_ERRORS = new Set([
  "invalid-input",
  "fs:not-found",
  "fs:not-a-directory",
  "fs:is-a-directory",
  "fs:invalid-path",
  "fs:outside-root",
]);

/** What a thrown error means for the exit status; a bug in this file is thrown on. */
function failureOf(e) {
  if (e instanceof Failure) return e;
  if (e instanceof CoreError) return new Failure(INPUT_ERRORS.has(e.kind) ? 2 : 1, e.message);
  if (e instanceof CoreTrap) return new Failure(1, e.message);
  if (typeof e?.code === "string") return new Failure(1, ioMessage(e)); // an I/O error, as `?` reports one
  throw e;
}

/** `Path::join`: `p` itself when absolute. */
const joinPath = (base, p) => (p.startsWith("/") ? p : base.endsWith("/") ? base + p : `${base}/${p}`);

/** `Path::parent`: "" for a lone relative name, undefined for `/`. */
function parentOf(p) {
  const trimmed = p.replace(/\/+$/, "");
  if (trimmed === "") return undefined;
  const cut = trimmed.lastIndexOf("/");
  if (cut < 0) return "";
  return trimmed.slice(0, cut).replace(/(\/\.?)+$/, "") || "/";
}

/** `Path::file_stem`. */
function fileStem(p) {
  const name = p.replace(/(\/\.?)+$/, "").split("/").pop();
  if (name === "" || name === "." || name === "..") return undefined;
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? name : name.slice(0, dot);
}

function isDir(p) {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `fs::read_to_string`. */
const readToString = (file) => decodeUtf8(fs.readFileSync(file));

class Context {
  constructor(env, cwd, nowMs) {
    this.env = env;
    this.cwd = cwd;
    this.nowMs = nowMs;
    this.stdout = "";
    this.stderr = "";
  }

  print(line) {
    this.stdout += `${line}\n`;
  }

  warn(message) {
    this.stderr += `memdir: warning: ${message}\n`;
  }

  /** The environment variable `name`, when set and not empty (the last definition wins). */
  var(name) {
    return envVar(this.env, name);
  }

  /** "Now" in ms since the epoch, for the core: `--now`, else the clock. */
  now() {
    return BigInt(this.nowMs ?? Date.now());
  }

  /** The user's UTC offset in minutes: `--utc-offset` when given, else this machine's. */
  utcOffset(given) {
    return given ?? (-new Date().getTimezoneOffset() || 0);
  }

  /** Where a path given on the command line is, for Node's `fs`. */
  path(p) {
    return joinPath(this.cwd, p);
  }

  /** `cli::absolute` (`std::path::absolute`): `.` parts and repeated `/` go, `..` stays. */
  absolute(p) {
    const parts = p.split("/").filter((part) => part !== "" && part !== ".");
    let root = this.cwd;
    if (p.startsWith("/")) root = p.startsWith("//") && !p.startsWith("///") ? "//" : "/";
    const joined = parts.reduce(joinPath, root);
    return p.endsWith("/") && !joined.endsWith("/") ? `${joined}/` : joined;
  }

  /** The model `spec` names; `null` for offline. */
  fromSpec(spec) {
    try {
      return fromSpec(spec, this.env, this.cwd);
    } catch (e) {
      if (e instanceof SpecError) throw input(e.message);
      throw e;
    }
  }

  /** The model a command that cannot work without one uses: `--llm`, else `$MEMDIR_LLM`. */
  model(spec, who) {
    const chosen = spec ?? this.var("MEMDIR_LLM");
    const model = chosen === undefined ? null : this.fromSpec(chosen);
    if (!model) throw input(`${who} needs a model: pass --llm (command:, anthropic: or openai:)`);
    return model;
  }
}

// ---------------------------------------------------------------------------------------------
// Granted filesystems

/** Instruction files, repositories and `@imports` live anywhere: the whole tree, read-only. */
const wholeTree = () => new ConfinedFs().grantRead("/");

/** `cli::read_root`: read access to an existing directory given on the command line. */
function readRoot(ctx, dir) {
  try {
    return new ConfinedFs().grantRead(ctx.path(dir));
  } catch (e) {
    throw input(e.code === "ENOENT" ? `${dir}: no such directory` : `${dir}: ${ioMessage(e)}`);
  }
}

/**
 * `save::Target::open`: the memory directory (`--memory-dir`, else the working directory's),
 * created when missing, and a filesystem granting write access to it alone.
 */
function openTarget(ctx, a) {
  const dir =
    a.memoryDir !== undefined
      ? ctx.absolute(a.memoryDir)
      : core().locate(wholeTree(), ctx.absolute(a.cwd ?? "."), ctx.env).memoryDir;
  try {
    fs.mkdirSync(dir, { recursive: true });
    return { dir, grant: new ConfinedFs().grantWrite(dir) };
  } catch (e) {
    throw input(`${dir}: ${ioMessage(e)}`);
  }
}

/** The model's reply, or the message of the LlmError it failed with. */
function ask(model, request) {
  try {
    return { reply: model.complete(request) };
  } catch (e) {
    if (e instanceof LlmError) return { error: e.message };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// manifest, scan, index

function manifest(ctx, a) {
  const dir = ctx.absolute(a.dir);
  const report = core().scan(readRoot(ctx, a.dir), dir);
  ctx.stdout += core().manifest(report.headers);
}

function scan(ctx, a) {
  const dir = ctx.absolute(a.dir);
  const report = core().scan(readRoot(ctx, a.dir), dir);
  if (a.json) {
    ctx.stdout += pretty(
      report.headers.map((h) => ({
        path: h.path,
        mtime_ms: Number(h.mtimeMs),
        name: h.name ?? null,
        description: h.description ?? null,
        type: h.memoryType ?? null,
        diagnostics: h.diagnostics,
      })),
    );
    return;
  }
  for (const h of report.headers) {
    ctx.print(`${isoMillis(h.mtimeMs)}  ${(h.memoryType ?? "-").padEnd(9)}  ${h.path}  ${h.name ?? "(no name)"}`);
    for (const d of h.diagnostics) ctx.print(`    ! ${d}`);
  }
  const kept = report.headers.length;
  if (report.found > kept) ctx.print(`(${report.found} memory files found; the newest ${kept} are kept)`);
  for (const s of report.skipped) ctx.print(`skipped ${s.path}: ${s.reason}`);
}

const TRUNCATION = { lines: "lines", bytes: "bytes", "lines-and-bytes": "lines+bytes" };

function index(ctx, a) {
  const file = isDir(ctx.path(a.file)) ? joinPath(a.file, INDEX_FILE) : a.file;
  const dir = parentOf(file) || ".";
  if (!isDir(ctx.path(dir))) throw input(`${dir}: no such directory`);
  const target = ctx.absolute(file);
  const loaded = core().loadIndex(readRoot(ctx, dir), target);
  for (const d of loaded.diagnostics) ctx.warn(d);
  if (a.json) {
    ctx.stdout += pretty({
      text: loaded.text,
      truncated: loaded.truncated ? TRUNCATION[loaded.truncated] : null,
      lines: loaded.lines,
      bytes: loaded.bytes,
      dropped_entries: loaded.droppedEntries,
      warning: loaded.warning ?? null,
    });
  } else if (loaded.text !== "") {
    ctx.print(loaded.text);
  }
}

// ---------------------------------------------------------------------------------------------
// path, instructions, prompt, status

function pathCommand(ctx, a) {
  const cwd = ctx.absolute(a.cwd ?? ".");
  // Finding the repository means reading `.git` entries in any parent, and a linked
  // worktree's git dir may live anywhere.
  const grant = wholeTree();
  if (a.agent !== undefined && a.scope !== undefined) {
    ctx.print(core().call("paths.agent-dir", grant, (r) => r.paths.agentDir(cwd, ctx.env, a.agent, a.scope)));
    return;
  }
  const loc = core().locate(grant, cwd, ctx.env);
  if (!a.json) {
    ctx.print(loc.memoryDir);
    return;
  }
  ctx.stdout += pretty({
    memory_dir: loc.memoryDir,
    project_root: loc.projectRoot,
    from_git: loc.fromGit,
    slug: loc.slug,
    config_dir: loc.configDir,
  });
}

/** `LoadArgs::resolve`: every path absolute, `--touching` relative to `--cwd`. */
function loadRequest(ctx, a) {
  const cwd = ctx.absolute(a.cwd ?? ".");
  return {
    cwd,
    env: ctx.env,
    touching: a.touching.map((t) => ctx.absolute(joinPath(cwd, t))),
    addDirs: a.addDir.map((d) => ctx.absolute(d)),
  };
}

/** Problems that belong to no single file. */
function warnLoaded(ctx, loaded) {
  for (const d of [...loaded.switches.diagnostics, ...loaded.diagnostics]) ctx.warn(d);
}

const FILE_TYPES = {
  managed: "Managed",
  user: "User",
  project: "Project",
  local: "Local",
  "auto-mem": "AutoMem",
  "team-mem": "TeamMem",
};

/** `prompt::render_file`: one file as the model sees it. */
const renderFile = (f) => `Contents of ${f.path} ${f.suffix}:\n\n${trimEnd(f.content)}\n\n`;

function instructions(ctx, a) {
  const loaded = core().instructions(wholeTree(), loadRequest(ctx, a));
  warnLoaded(ctx, loaded);
  if (a.json) {
    ctx.stdout += pretty(
      loaded.files.map((f) => ({
        path: f.path,
        type: FILE_TYPES[f.fileType],
        suffix: f.suffix,
        chars: f.chars,
        truncated: f.truncated,
        imports: f.imports,
        diagnostics: f.diagnostics,
      })),
    );
    return;
  }
  for (const f of loaded.files) {
    for (const d of f.diagnostics) ctx.warn(`${f.path}: ${d}`);
  }
  for (const f of loaded.files) ctx.stdout += renderFile(f);
}

function prompt(ctx, a) {
  const request = loadRequest(ctx, a);
  const grant = wholeTree();
  // Loaded once for the warnings; the prompt itself is rendered by the core.
  warnLoaded(ctx, core().instructions(grant, request));
  ctx.stdout += core().prompt(grant, request, !a.noIndexStep, a.ignoreMemory);
}

function status(ctx, a) {
  const { switches, location } = core().status(wholeTree(), ctx.absolute(a.cwd ?? "."), ctx.env);
  for (const d of switches.diagnostics) ctx.warn(d);
  const json = {
    auto_memory: switches.autoMemory,
    decided_by: switches.decidedBy,
    instructions: switches.instructions,
    bare: switches.bare,
    team_memory: switches.teamMemory,
    daily_log: switches.dailyLog,
    memory_dir: location.memoryDir,
    project_root: location.projectRoot,
  };
  if (a.json) {
    ctx.stdout += pretty(json);
    return;
  }
  const on = (b) => (b ? "on" : "off");
  ctx.print(`auto memory:   ${on(json.auto_memory)} (decided by ${json.decided_by})`);
  ctx.print(`instructions:  ${on(json.instructions)}${json.bare ? " (bare mode)" : ""}`);
  ctx.print(`team memory:   ${on(json.team_memory)}`);
  ctx.print(`daily log:     ${on(json.daily_log)}`);
  ctx.print(`memory dir:    ${json.memory_dir}`);
  ctx.print(`project root:  ${json.project_root}`);
}

// ---------------------------------------------------------------------------------------------
// Sessions (commands/session.rs): kept on the host as JSON, worked on as the core's resource

/** A session file's JSON ("" for a new session), as `load_session` reads it. */
function loadSession(ctx, file) {
  if (file === undefined) return "";
  let text;
  try {
    text = readToString(ctx.path(file));
  } catch (e) {
    if (e.code === "ENOENT") return "";
    throw input(`${file}: ${ioMessage(e)}`);
  }
  const parsed = core().call("budget.session", undefined, (r) => {
    try {
      return { json: r.budget.Session.fromJson(text).toJson() };
    } catch (e) {
      if (typeof e?.payload !== "string") throw e;
      return { error: e.payload };
    }
  });
  if ("error" in parsed) {
    throw input(`${file}: not a memdir session file (${parsed.error}); remove it to start afresh`);
  }
  return parsed.json;
}

/** A name as the tempfile crate makes one: `.tmp` and six random letters or digits. */
function tempName() {
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return `.tmp${Array.from(crypto.randomBytes(6), (b) => letters[b % letters.length]).join("")}`;
}

/** `save_session`: a temporary file beside it (0600, as tempfile makes it), then a rename. */
function saveSession(ctx, file, json) {
  const dir = parentOf(file) || ".";
  const tmp = joinPath(ctx.absolute(dir), tempName());
  let fd;
  try {
    fd = fs.openSync(tmp, "wx", 0o600);
  } catch (e) {
    throw input(`${dir}: cannot write the session here: ${ioMessage(e)} at path ${debugStr(tmp)}`);
  }
  try {
    fs.writeSync(fd, json);
    fs.closeSync(fd);
    fs.renameSync(tmp, ctx.path(file));
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e.syscall === "rename" ? input(`${file}: ${ioMessage(e)}`) : e;
  }
}

/**
 * Runs `body(root, session)` with the session in `holder.json` as a core resource and keeps
 * what it became, also when the core returns an error (as the harness's `with_session` does:
 * a recall that fails has still begun its turn).
 */
function withSession(operation, grant, holder, body) {
  return core().call(operation, grant, (root) => {
    const session = holder.json ? root.budget.Session.fromJson(holder.json) : new root.budget.Session();
    try {
      const value = body(root, session);
      holder.json = session.toJson();
      return value;
    } catch (e) {
      if (e && typeof e === "object" && "payload" in e) holder.json = session.toJson();
      throw e;
    }
  });
}

function sessionCompact(ctx, a) {
  const holder = { json: loadSession(ctx, a.session) };
  const before = withSession("budget.session", undefined, holder, (_, s) => {
    const counts = { memories: s.surfaced().length, bytes: s.sessionBytes() };
    s.compact();
    return counts;
  });
  saveSession(ctx, a.session, holder.json);
  ctx.print(`session compacted: ${before.memories} memories and ${before.bytes} bytes forgotten`);
}

// ---------------------------------------------------------------------------------------------
// recall (commands/recall.rs, recall.rs)

const emptyOutcome = () => ({ selected: [], attachments: [], diagnostics: [] });

/** One recall turn: prepare, then the model's selection or the offline one. */
function driveRecall(grant, input, holder, model) {
  const prepared = withSession("recall.prepare", grant, holder, (r, s) => r.recall.prepare(input, s));
  if (prepared.tag === "skipped") return { skipped: prepared.val, outcome: emptyOutcome() };
  const pending = prepared.val;
  if (!model) {
    const outcome = withSession("recall.offline", grant, holder, (r, s) => r.recall.offline(input, s, pending));
    return { skipped: null, outcome };
  }
  const answer = ask(model, pending.request);
  if ("error" in answer) {
    return { skipped: null, outcome: { ...emptyOutcome(), diagnostics: [`${answer.error}; nothing recalled this turn`] } };
  }
  const complete = (r, s) => r.recall.complete(input, s, pending, answer.reply);
  return { skipped: null, outcome: withSession("recall.complete", grant, holder, complete) };
}

function recallTurn(ctx, query, holder, model) {
  const grant = wholeTree();
  const { switches, location } = core().status(grant, query.cwd, ctx.env);
  const input = {
    memoryDir: query.memoryDir ?? location.memoryDir,
    query: query.query,
    recentTools: query.recentTools,
    alreadyRead: query.alreadyRead,
    autoMemory: switches.autoMemory,
    ignoreMemory: query.ignoreMemory,
    nowMs: ctx.now(),
  };
  const selector = model ? model.label : "offline";
  try {
    return { selector, ...driveRecall(grant, input, holder, model) };
  } catch (e) {
    // A memory directory that does not exist yet simply has nothing to recall.
    if (e instanceof CoreError && e.kind === "fs:not-found") {
      return { selector, skipped: "no-memories", outcome: emptyOutcome() };
    }
    throw e;
  }
}

function recall(ctx, a) {
  const model = ctx.fromSpec(a.llm ?? ctx.var("MEMDIR_LLM") ?? "offline");
  const holder = { json: loadSession(ctx, a.session) };
  const query = {
    cwd: ctx.absolute(a.cwd ?? "."),
    memoryDir: a.memoryDir === undefined ? undefined : ctx.absolute(a.memoryDir),
    query: a.query,
    recentTools: a.recentTool,
    alreadyRead: a.read,
    ignoreMemory: a.ignoreMemory,
  };
  const report = recallTurn(ctx, query, holder, model);
  if (a.session !== undefined) saveSession(ctx, a.session, holder.json);
  const { outcome } = report;
  if (a.json) {
    const bytes = withSession("budget.session", undefined, holder, (_, s) => [s.turnBytes(), s.sessionBytes()]);
    ctx.stdout += pretty({
      skipped: report.skipped,
      selector: report.selector,
      selected: outcome.selected,
      attachments: outcome.attachments.map(({ path, freshness, bytes, truncated, text }) => ({ path, freshness, bytes, truncated, text })),
      turn_bytes: bytes[0],
      session_bytes: bytes[1],
      diagnostics: outcome.diagnostics,
    });
    return;
  }
  for (const d of outcome.diagnostics) ctx.warn(d);
  if (report.skipped) ctx.stderr += `memdir: nothing recalled (${report.skipped})\n`;
  for (const attachment of outcome.attachments) ctx.print(`${attachment.text}\n`);
}

// ---------------------------------------------------------------------------------------------
// save, forget (commands/save.rs)

/** `MemoryType::parse`, as `--type`'s value parser. */
function parseType(value) {
  const type = trim(value);
  if (["user", "feedback", "project", "reference"].includes(type)) return type;
  throw `${debugStr(value)} is not a memory type: use user, feedback, project or reference`;
}

/** The memory's text: `--body`, `--body-file` or `-` (standard input). */
function saveBody(ctx, a) {
  if (a.body !== undefined) return a.body;
  if (a.bodyFile !== undefined) {
    try {
      return readToString(ctx.path(a.bodyFile));
    } catch (e) {
      throw input(`${a.bodyFile}: ${ioMessage(e)}`);
    }
  }
  if (a.stdin !== undefined) {
    try {
      return readToString(0);
    } catch (e) {
      throw input(`standard input: ${ioMessage(e)}`);
    }
  }
  throw input("give the memory's text with --body, --body-file or -");
}

function save(ctx, a) {
  const body = saveBody(ctx, a);
  const { dir, grant } = openTarget(ctx, a);
  const { switches } = core().status(wholeTree(), ctx.absolute(a.cwd ?? "."), ctx.env);
  const report = core().save(grant, {
    memoryDir: dir,
    memoryType: a.type,
    name: a.name,
    description: a.description,
    topic: a.topic,
    body,
    nowMs: ctx.now(),
    utcOffsetMinutes: ctx.utcOffset(a.utcOffset),
    scope: a.scope,
    teamMemory: switches.teamMemory,
  });
  if (a.json) {
    ctx.stdout += pretty({
      path: report.path,
      created: report.created,
      index_line: report.indexLine,
      conversions: report.conversions.map(({ from, to }) => ({ from, to })),
    });
    return;
  }
  ctx.print(`${report.created ? "saved" : "updated"} ${report.path}`);
  ctx.print(`MEMORY.md: ${report.indexLine}`);
  for (const c of report.conversions) ctx.print(`date: "${c.from}" → ${c.to}`);
}

function forget(ctx, a) {
  const { dir, grant } = openTarget(ctx, a);
  const report = core().forget(grant, dir, a.path);
  if (a.json) {
    ctx.stdout += pretty(sortedKeys({ path: report.path, index_lines_removed: report.indexLinesRemoved }));
  } else {
    ctx.print(`forgot ${report.path} (${report.indexLinesRemoved} index line(s) removed)`);
  }
}

// ---------------------------------------------------------------------------------------------
// extract (commands/extract.rs, extraction.rs)

/** Begin, round 1 (what to read), round 2 (the operations), apply. */
function runExtraction(grant, input, model) {
  const report = { skipped: null, cursor: input.messages.length, read: [], operations: [], diagnostics: [] };
  const begun = core().extractBegin(grant, input);
  if (begun.tag === "skipped") return { ...report, skipped: begun.val };
  const first = ask(model, begun.val.request);
  if ("error" in first) {
    report.diagnostics.push(`round 1: ${first.error}; nothing changed`);
    return report;
  }
  const round2 = core().extractRead(grant, input, begun.val, first.reply);
  report.read = round2.read;
  report.diagnostics.push(...round2.diagnostics);
  const second = ask(model, round2.request);
  if ("error" in second) {
    report.diagnostics.push(`round 2: ${second.error}; nothing changed`);
    return report;
  }
  const applied = core().extractApply(grant, input, second.reply);
  report.operations = applied.operations;
  report.diagnostics.push(...applied.diagnostics);
  return report;
}

/** The conversation's id, for its cursor: `--conversation`, else the transcript's file stem. */
function conversationId(a) {
  const id = a.conversation ?? fileStem(a.transcript) ?? "conversation";
  if (!/^[A-Za-z0-9._-]+$/.test(id)) {
    throw input(`conversation id ${debugStr(id)}: use letters, digits, \`.\`, \`_\`, \`-\``);
  }
  return id;
}

/** The messages already processed, from the cursor file; 0 when it is missing or unreadable. */
function readCursor(file) {
  try {
    const n = parseU64(trim(readToString(file)));
    return n === undefined ? 0 : Number(n > 0xffffffffn ? 0xffffffffn : n);
  } catch {
    return 0;
  }
}

function extract(ctx, a) {
  const model = ctx.model(a.llm, "extraction");
  let text;
  try {
    text = readToString(ctx.path(a.transcript));
  } catch (e) {
    throw input(`${a.transcript}: ${ioMessage(e)}`);
  }
  const conversation = conversationId(a);
  const { dir, grant } = openTarget(ctx, a);
  const cursorFile = joinPath(joinPath(dir, ".cursors"), conversation);
  const cursor = readCursor(cursorFile);
  let messages;
  try {
    messages = core().call("extract.parse-transcript", grant, (r) => r.extract.parseTranscript(text));
  } catch (e) {
    throw input(`${a.transcript}: ${failureOf(e).message}`);
  }
  const { switches } = core().status(wholeTree(), ctx.absolute("."), ctx.env);
  const extractInput = {
    memoryDir: dir,
    messages,
    cursor,
    written: a.written,
    mainAgent: !a.subagent,
    autoMemory: switches.autoMemory,
    nowMs: ctx.now(),
    utcOffsetMinutes: ctx.utcOffset(a.utcOffset),
  };
  const report = runExtraction(grant, extractInput, model);
  fs.mkdirSync(path.dirname(cursorFile), { recursive: true });
  fs.writeFileSync(cursorFile, `${report.cursor}\n`);
  printExtraction(ctx, a, report);
}

function printExtraction(ctx, a, report) {
  const applied = report.operations.filter((o) => o.rejected === undefined).map(({ op, path }) => ({ op, path }));
  const rejected = report.operations
    .filter((o) => o.rejected !== undefined)
    .map(({ op, path, rejected: reason }) => ({ op, path, reason }));
  if (a.json) {
    ctx.stdout += pretty({
      skipped: report.skipped,
      cursor: report.cursor,
      read: report.read,
      applied,
      rejected,
      diagnostics: report.diagnostics,
    });
    return;
  }
  if (report.skipped) ctx.print(`skipped (${report.skipped}); cursor at ${report.cursor}`);
  for (const o of applied) ctx.print(`${o.op} ${o.path}`);
  for (const o of rejected) ctx.print(`rejected ${o.op} ${o.path}: ${o.reason}`);
  for (const d of report.diagnostics) ctx.print(`note: ${d}`);
}

// ---------------------------------------------------------------------------------------------
// log, dream (commands/log.rs, dream.rs)

function log(ctx, a) {
  const { dir, grant } = openTarget(ctx, a);
  const file = core().logAppend(grant, dir, a.text, ctx.now(), ctx.utcOffset(a.utcOffset));
  ctx.print(a.json ? JSON.stringify({ path: file }) : `logged to ${file}`);
}

/** Plans the chunks, then asks, applies and commits each; a failed chunk waits for next time. */
function runDream(grant, dir, nowMs, utcOffset, model) {
  const chunks = core().dreamPlan(grant, dir);
  const report = { chunks: chunks.length, committed: 0, operations: [], diagnostics: [] };
  chunks.forEach((chunk, i) => {
    const answer = ask(model, chunk.request);
    if ("error" in answer) {
      report.diagnostics.push(`chunk ${i + 1}: ${answer.error}; it will be retried next time`);
      return;
    }
    const applied = core().dreamApply(grant, dir, nowMs, utcOffset, answer.reply);
    report.operations.push(...applied.operations);
    report.diagnostics.push(...applied.diagnostics);
    core().dreamCommit(grant, dir, chunk.logs);
    report.committed++;
  });
  return report;
}

// The harness draws a progress bar when stderr is a terminal; `run` captures stderr, so never.
function dream(ctx, a) {
  const model = ctx.model(a.llm, "a dream");
  const { dir, grant } = openTarget(ctx, a);
  const report = runDream(grant, dir, ctx.now(), ctx.utcOffset(a.utcOffset), model);
  if (a.json) {
    const operations = report.operations.map(({ op, path, rejected }) => ({ op, path, rejected: rejected ?? null }));
    ctx.stdout += pretty(sortedKeys({ ...report, operations }));
    return;
  }
  if (report.chunks === 0) ctx.print("nothing new in the logs");
  for (const o of report.operations) {
    ctx.print(o.rejected === undefined ? `${o.op} ${o.path}` : `rejected ${o.op} ${o.path}: ${o.rejected}`);
  }
  for (const d of report.diagnostics) ctx.print(`note: ${d}`);
}

// ---------------------------------------------------------------------------------------------
// The command line (cli.rs and each command's `Args`)

function parseNow(text) {
  try {
    return parseRfc3339(text);
  } catch (message) {
    throw `not an RFC 3339 time (${message}); write e.g. 2026-11-29T12:00:00Z`;
  }
}

const pathValue = (name) => ({ value: name, path: true });
const json = { json: {} };
const llm = { llm: { value: "LLM" } };
const utcOffset = { "utc-offset": { value: "UTC_OFFSET", hyphen: true, parse: parseI32 } };
const target = { cwd: { ...pathValue("CWD"), conflicts: ["memory-dir"] }, "memory-dir": pathValue("MEMORY_DIR") };
const load = {
  cwd: pathValue("CWD"),
  touching: { ...pathValue("PATH"), multiple: true },
  "add-dir": { ...pathValue("DIR"), multiple: true },
};
const positional = (name, key, more = {}) => ({ name, key, required: true, ...more });

const PROGRAM = {
  globals: { now: { value: "NOW", parse: parseNow } },
  subcommands: {
    manifest: { run: manifest, positionals: [positional("DIR", "dir", { path: true })] },
    scan: { run: scan, options: json, positionals: [positional("DIR", "dir", { path: true })] },
    index: { run: index, options: json, positionals: [positional("FILE", "file", { path: true })] },
    path: {
      run: pathCommand,
      options: {
        cwd: pathValue("CWD"),
        agent: { value: "AGENT", requires: ["scope"] },
        scope: { value: "SCOPE", choices: ["user", "project", "local"], requires: ["agent"] },
        json: { conflicts: ["agent"] },
      },
    },
    instructions: { run: instructions, options: { ...load, ...json } },
    prompt: { run: prompt, options: { ...load, "no-index-step": {}, "ignore-memory": {} } },
    status: { run: status, options: { cwd: pathValue("CWD"), ...json } },
    recall: {
      run: recall,
      positionals: [positional("QUERY", "query")],
      options: {
        ...target,
        "recent-tool": { value: "NAME", multiple: true },
        read: { value: "PATH", multiple: true },
        session: pathValue("SESSION"),
        ...llm,
        "ignore-memory": {},
        ...json,
      },
    },
    session: {
      subcommands: { compact: { run: sessionCompact, options: { session: { ...pathValue("SESSION"), required: true } } } },
    },
    save: {
      run: save,
      positionals: [{ name: "-", key: "stdin", choices: ["-"] }],
      options: {
        type: { value: "MEMORY_TYPE", required: true, parse: parseType },
        name: { value: "NAME", required: true },
        description: { value: "DESCRIPTION", required: true },
        topic: { value: "TOPIC" },
        body: { value: "BODY", conflicts: ["body-file", "-"] },
        "body-file": { ...pathValue("BODY_FILE"), conflicts: ["-"] },
        ...utcOffset,
        scope: { value: "SCOPE", choices: ["private", "team"] },
        ...target,
        ...json,
      },
    },
    forget: { run: forget, positionals: [positional("PATH", "path")], options: { ...target, ...json } },
    extract: {
      run: extract,
      options: {
        transcript: { ...pathValue("TRANSCRIPT"), required: true },
        conversation: { value: "CONVERSATION" },
        subagent: {},
        written: { value: "PATH", multiple: true },
        ...llm,
        ...utcOffset,
        ...target,
        ...json,
      },
    },
    log: { run: log, positionals: [positional("TEXT", "text")], options: { ...utcOffset, ...target, ...json } },
    dream: { run: dream, options: { ...llm, ...utcOffset, ...target, ...json } },
  },
};

/** Runs `memdir ARGS`; returns the exit status and what the command printed. */
export function run(args, env = process.env, cwd = process.cwd()) {
  let parsed;
  try {
    parsed = parseArgs(args, PROGRAM);
  } catch (e) {
    if (e instanceof UsageError) return { status: 2, stdout: "", stderr: e.message };
    throw e;
  }
  const ctx = new Context(Array.isArray(env) ? env : Object.entries(env), cwd, parsed.globals.now);
  const command = parsed.path.reduce((spec, name) => spec.subcommands[name], PROGRAM);
  let status = 0;
  try {
    command.run(ctx, parsed.args);
  } catch (e) {
    const failure = failureOf(e);
    ctx.stderr += `memdir: ${failure.message}\n`;
    status = failure.status;
  }
  return { status, stdout: ctx.stdout, stderr: ctx.stderr };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = run(process.argv.slice(2));
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.status;
}
