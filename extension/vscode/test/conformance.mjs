// The conformance cases (`tests/conformance/`, see `tests/README.md`) replayed through the Node
// CLI on the jco-loaded core: each case prepared as `host-harness/tests/conformance.rs` does,
// its commands run, the output compared with the expected files.
//
//   node test/conformance.mjs [NAME-FILTER]

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { core, run } from "./cli.mjs";
import { parseRfc3339 } from "./rust.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const casesDir = path.join(repo, "tests/conformance");

/** Every file's mtime unless the case says otherwise: 2026-01-01T00:00:00.000Z. */
const DEFAULT_MTIME_MS = 1_767_225_600_000;

const CASE_KEYS = ["description", "args", "status", "env", "mtimes", "generate", "symlinks", "outside", "git", "then", "show"];
const GENERATE_KEYS = ["path", "count", "pad", "prefix", "repeat", "times", "suffix", "mtime_step_ms"];

/** `case.json`, refusing keys the Rust runner does not know (it denies unknown fields). */
function readCase(dir, name) {
  const raw = JSON.parse(fs.readFileSync(path.join(dir, "case.json"), "utf8"));
  const unknown = [
    ...Object.keys(raw).filter((k) => !CASE_KEYS.includes(k)),
    ...(raw.generate ?? []).flatMap((g) => Object.keys(g).filter((k) => !GENERATE_KEYS.includes(k))),
  ];
  if (unknown.length) throw new Error(`${name}/case.json: unknown field(s) ${unknown.join(", ")}`);
  if (!raw.description) throw new Error(`${name}: describe the case`);
  return { status: 0, env: {}, mtimes: {}, generate: [], symlinks: {}, outside: {}, git: [], then: [], show: [], ...raw };
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

const parseMtime = (when) => (typeof when === "number" ? when : parseRfc3339(when));

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
  const names = [["{input}", input], ["{tmp}", tmp], ["{tmp-slug}", core().call("paths.slug", undefined, (r) => r.paths.slug(tmp))]];
  for (const g of c.generate) generate(input, g, names);
  for (const [rel, when] of Object.entries(c.mtimes)) setMtime(path.join(input, rel), parseMtime(when));
  for (const [link, target] of Object.entries(c.symlinks)) fs.symlinkSync(subst(target), path.join(input, link));
  return { tmp, input, names, subst };
}

/** Runs the case's commands and shows its files; returns what it printed, paths named back. */
function runCase(dir, c) {
  const { tmp, input, names, subst } = prepare(dir, c);
  try {
    // The environment as the Rust runner builds it: HOME first, then the case's (sorted).
    const env = [["HOME", `${tmp}/home`], ...Object.entries(c.env).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, subst(v)])];
    // The Rust runner runs in-process, in host-harness/.
    const cwd = path.join(repo, "host-harness");
    const first = run(c.args.map(subst), env, cwd);
    let { stdout, stderr } = first;
    for (const next of c.then) {
      const outcome = run(next.map(subst), env, cwd);
      stdout += `--- memdir ${next.join(" ")}\n${outcome.stdout}`;
      stderr += `${outcome.stderr}(exit ${outcome.status})\n`;
    }
    for (const rel of c.show) stdout += `--- ${rel}\n${showFile(path.join(input, rel))}`;
    // Slugs are made from the temporary path, so they are named back too.
    const unsubst = (text) => names.reduce((t, [name, value]) => t.replaceAll(value, name), text);
    return { status: first.status, stdout: unsubst(stdout), stderr: unsubst(stderr) };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A file as the Rust runner shows it: its text, or `(missing)` when it cannot be read as UTF-8. */
function showFile(file) {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(fs.readFileSync(file));
  } catch {
    return "(missing)\n";
  }
}

const clip = (line) => (line.length > 160 ? `${line.slice(0, 160)}…` : line);

/** A few lines around the first difference of `expected` and `got`. */
function diffSnippet(expected, got) {
  const a = expected.split("\n");
  const b = got.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 2);
  const lines = (all) => all.slice(from, i + 3).map((l, k) => `  ${String(from + k + 1).padStart(4)}| ${clip(l)}`);
  return [`first difference at line ${i + 1}`, "--- expected", ...lines(a), "--- got", ...lines(b)].join("\n");
}

const readExpected = (file) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "");

/** Why the outcome differs from the expected one, or undefined when it does not. */
function check(dir, c, outcome) {
  if (outcome.status !== c.status) return `exit status ${outcome.status} (expected ${c.status}); stderr: ${outcome.stderr}`;
  for (const [stream, file] of [["stdout", "expected.out"], ["stderr", "expected.err"]]) {
    const expected = readExpected(path.join(dir, file));
    if (outcome[stream] !== expected) return `${stream} differs:\n${diffSnippet(expected, outcome[stream])}`;
  }
  return undefined;
}

function main() {
  const filter = process.argv.slice(2).find((a) => !a.startsWith("-"));
  const names = fs
    .readdirSync(casesDir)
    .filter((name) => fs.existsSync(path.join(casesDir, name, "case.json")))
    .filter((name) => !filter || name.includes(filter))
    .sort();
  let passed = 0;
  let failed = 0;
  for (const name of names) {
    const dir = path.join(casesDir, name);
    const c = readCase(dir, name);
    let why;
    try {
      why = check(dir, c, runCase(dir, c));
    } catch (e) {
      why = `the replay threw: ${e.stack}`;
    }
    if (why === undefined) {
      console.log(`ok   ${name}`);
      passed++;
    } else {
      console.log(`FAIL ${name}: ${why}`);
      failed++;
    }
  }
  console.log(`conformance (jco): ${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

main();
