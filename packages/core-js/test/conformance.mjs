// The call scripts (`tests/conformance/*/calls.json`, see `tests/README.md`) replayed through
// the jco-loaded component: each case's tree prepared as `cli/tests/conformance.rs`
// prepares it, then every call made by name on the core, its result compared with the script's.
// This is the whole driver: the JSON form of WIT values maps onto jco's with camelCase record
// fields, BigInt for 64-bit integers, `undefined` for `none` and thrown errors for `err`.
//
//   node test/conformance.mjs [NAME-FILTER]

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isDeepStrictEqual } from "node:util";

import { core as pkg, dist, repo } from "./package.mjs";

const casesDir = path.join(repo, "tests/conformance");
const { MemoryCore, ConfinedFs, CoreError } = pkg;
const core = new MemoryCore(dist);

/** Every file's mtime unless the case says otherwise: 2026-01-01T00:00:00.000Z. */
const DEFAULT_MTIME_MS = 1_767_225_600_000;

const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Script JSON to jco: record fields in camelCase, `null` for none; integers stay numbers (jco takes them for 64-bit too). */
function toJs(value) {
  if (Array.isArray(value)) return value.map(toJs);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), toJs(v)]));
  return value;
}

/** jco to script JSON: fields back in kebab-case, BigInt as numbers, `undefined` as null. */
function fromJs(value) {
  if (value === undefined) return null;
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(fromJs);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !(k === "val" && value[k] === undefined)).map(([k, v]) => [kebab(k), fromJs(v)]));
  }
  return value;
}

/** Calls `interface.function` on the core with `grant`; a WIT `result` comes back tagged. */
function callByName(grant, func, args, returnsResult) {
  const [iface, name] = func.split(".");
  try {
    const value = fromJs(core.call(func, grant, (root) => root[camel(iface)][camel(name)](...args.map(toJs))));
    return returnsResult ? { tag: "ok", val: value } : value;
  } catch (e) {
    if (e instanceof CoreError) return { tag: "err", val: fromJs(e.payload) };
    throw e;
  }
}

const CASE_KEYS = ["description", "args", "status", "env", "mtimes", "generate", "symlinks", "outside", "git", "then", "show", "stdin"];

function readCase(dir, name) {
  const raw = JSON.parse(fs.readFileSync(path.join(dir, "case.json"), "utf8"));
  const unknown = Object.keys(raw).filter((k) => !CASE_KEYS.includes(k));
  if (unknown.length) throw new Error(`${name}/case.json: unknown field(s) ${unknown.join(", ")}`);
  return { env: {}, mtimes: {}, generate: [], symlinks: {}, outside: {}, git: [], ...raw };
}

/** Copies a tree; a path component named `dot-git` becomes `.git` (git cannot hold a `.git`). */
function copyTree(from, to) {
  let entries;
  try {
    entries = fs.readdirSync(from, { withFileTypes: true });
  } catch {
    return;
  }
  fs.mkdirSync(to, { recursive: true });
  for (const entry of entries) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name === "dot-git" ? ".git" : entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else fs.copyFileSync(source, target);
  }
}

/**
 * Sets a file's mtime to `ms`. Node's `utimes` goes through a double of seconds and keeps
 * microseconds, so the time is aimed at the middle of the millisecond: the whole milliseconds
 * the core sees (truncated toward zero, as in Rust) are then exact. It is given as a numeric
 * string because Node reads a negative number (before 1970) as "now".
 */
function setMtime(file, ms) {
  const middle = ms + (ms < 0 ? -0.5 : 0.5);
  fs.utimesSync(file, fs.statSync(file).atime, String(middle / 1000));
}

function setMtimes(dir, ms) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) setMtimes(file, ms);
    else if (entry.isFile()) setMtime(file, ms);
  }
}

const parseMtime = (when) => (typeof when === "number" ? when : Date.parse(when));

/** Runs `git` in `dir` with a fixed identity and no user or system configuration. */
function runGit(dir, tmp, args) {
  const identity = ["-c", "user.name=memdir", "-c", "user.email=memdir@example.invalid", "-c", "init.defaultBranch=main"];
  const result = spawnSync("git", [...identity, ...args], {
    cwd: dir,
    env: { ...process.env, HOME: path.join(tmp, "home"), GIT_CONFIG_NOSYSTEM: "1" },
    stdio: ["inherit", "ignore", "inherit"],
  });
  if (result.status !== 0) throw new Error(`git ${JSON.stringify(args)} failed`);
}

/** Writes generated files; `{i}` and `names` are substituted in paths, prefixes and suffixes. */
function generate(input, g, names) {
  const count = g.count ?? 1;
  for (let i = 0; i < count; i++) {
    const index = String(i).padStart(g.pad ?? 0, "0");
    const fill = (s) => names.reduce((text, [name, value]) => text.replaceAll(name, value), s.replaceAll("{i}", index));
    const file = path.join(input, fill(g.path));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, fill(g.prefix ?? "") + (g.repeat ?? "").repeat(g.times ?? 0) + fill(g.suffix ?? ""));
    setMtime(file, DEFAULT_MTIME_MS + i * (g.mtime_step_ms ?? 0));
  }
}

/** Builds the case's tree in a fresh temporary directory; returns its paths and names. */
function prepare(dir, c) {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), ".tmp")));
  const input = path.join(tmp, "input");
  copyTree(path.join(dir, "input"), input);
  fs.mkdirSync(input, { recursive: true });
  fs.mkdirSync(path.join(tmp, "home"), { recursive: true });
  setMtimes(input, DEFAULT_MTIME_MS);
  for (const [rel, text] of Object.entries(c.outside)) {
    const file = path.join(tmp, "outside", rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  const subst = (s) => s.replaceAll("{input}", input).replaceAll("{tmp}", tmp);
  for (const args of c.git) runGit(input, tmp, args.map(subst));
  const names = [["{input}", input], ["{tmp}", tmp], ["{tmp-slug}", core.call("paths.slug", undefined, (r) => r.paths.slug(tmp))]];
  for (const g of c.generate) generate(input, g, names);
  for (const [rel, when] of Object.entries(c.mtimes)) setMtime(path.join(input, rel), parseMtime(when));
  for (const [link, target] of Object.entries(c.symlinks)) fs.symlinkSync(subst(target), path.join(input, link));
  return { tmp, input, names, subst };
}

/** Maps every string through `f`, and every `{"$file": PATH}` through `file`. */
function mapStrings(value, f, file) {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f, file));
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "$file") return file(value.$file);
    return Object.fromEntries(keys.map((k) => [k, mapStrings(value[k], f, file)]));
  }
  return value;
}

const clip = (text) => (text.length > 600 ? `${text.slice(0, 600)}…` : text);

/** Replays one case's script; returns why it failed, or undefined. */
function replay(dir, c) {
  const script = JSON.parse(fs.readFileSync(path.join(dir, "calls.json"), "utf8"));
  const { tmp, names } = prepare(dir, c);
  try {
    const subst = (s) => names.reduce((t, [name, value]) => t.replaceAll(name, value), s);
    const resolve = (v) => mapStrings(v, subst, (p) => fs.readFileSync(subst(p), "utf8"));
    for (const [i, call] of script.entries()) {
      const grant = new ConfinedFs();
      for (const root of call.grant.read) grant.grantRead(subst(root));
      for (const root of call.grant.write) {
        fs.mkdirSync(subst(root), { recursive: true });
        grant.grantWrite(subst(root));
      }
      const expected = resolve(call.result);
      const returnsResult = expected && typeof expected === "object" && ["ok", "err"].includes(expected.tag);
      const got = callByName(grant, call.fn, resolve(call.args), returnsResult);
      if (!isDeepStrictEqual(got, expected)) {
        return `call ${i} (${call.fn}):\n  expected ${clip(JSON.stringify(expected))}\n  got      ${clip(JSON.stringify(got))}`;
      }
    }
    return undefined;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function main() {
  const filter = process.argv.slice(2).find((a) => !a.startsWith("-"));
  const names = fs
    .readdirSync(casesDir)
    .filter((name) => fs.existsSync(path.join(casesDir, name, "calls.json")))
    .filter((name) => !filter || name.includes(filter))
    .sort();
  let passed = 0;
  let failed = 0;
  for (const name of names) {
    const dir = path.join(casesDir, name);
    let why;
    try {
      why = replay(dir, readCase(dir, name));
    } catch (e) {
      why = `the replay threw: ${e.stack}`;
    }
    if (why === undefined) passed++;
    else {
      console.log(`FAIL ${name}: ${why}`);
      failed++;
    }
  }
  console.log(`calls-jco: ${passed} passed, ${failed} failed`);
  if (failed > 0 || passed === 0) process.exitCode = 1;
}

main();
