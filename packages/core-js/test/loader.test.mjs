// The jco loader's own guarantees, beyond what the conformance replay covers: a trap is
// reported and the next call gets a fresh instance; a component asking for more than memdir
// grants is refused; the WASI shim neither exposes the environment nor ends the process.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { core as pkg, dist, memdirBin, packageDir, scratch } from "./package.mjs";

const { MemoryCore, ConfinedFs, CoreTrap, CoreError, guardImports, ALLOWED_IMPORTS, wasiImports, CoreExited, Lock, runGitSync, runGitAsync } = pkg;

/** The core's target for a memory directory of its own, with a home of its own. */
const target = (dir) => ({ cwd: dir, env: [["HOME", dir]], memoryDir: dir });

function memoryDir() {
  const dir = scratch("memdir-loader-");
  fs.writeFileSync(path.join(dir, "user_a.md"), "---\nname: A\ndescription: one\ntype: user\n---\nbody\n");
  return dir;
}

test("a trap is logged, and the next call runs on a fresh instance", () => {
  const dir = memoryDir();
  const logged = [];
  const core = new MemoryCore(dist, (m) => logged.push(m));
  // A host function that throws a plain exception unwinds through the core: the instance is
  // no longer trustworthy.
  class Broken extends ConfinedFs {
    imports() {
      return { ...super.imports(), listDir: () => { throw new TypeError("host bug"); } };
    }
  }
  assert.throws(() => core.scan(new Broken().grantRead(dir), dir, 0n), (e) => e instanceof CoreTrap && /during `scan`/.test(e.message));
  assert.equal(logged.length, 1);
  assert.match(logged[0], /starting a fresh instance/);
  const report = core.scan(new ConfinedFs().grantRead(dir), dir, 0n);
  assert.deepEqual(report.headers.map((h) => h.path), ["user_a.md"]);
});

test("the core's errors read as the harness prints them", () => {
  const dir = memoryDir();
  const core = new MemoryCore(dist);
  assert.throws(() => core.loadIndex(new ConfinedFs().grantRead(dir), "/etc/hostname"), (e) =>
    e instanceof CoreError && e.message === "/etc/hostname: outside the directories memdir may use");
  assert.throws(() => core.forget(new ConfinedFs().grantRead("/"), target(dir), "user_a.md", 0n), (e) => e instanceof CoreError && /read-only/.test(e.message));
  assert.ok(fs.existsSync(path.join(dir, "user_a.md")), "nothing was lost");
});

test("imports beyond the granted set are refused", () => {
  const imports = guardImports({ "wasi:cli/exit": {} });
  assert.ok(imports["wasi:cli/exit"]);
  assert.throws(() => imports["wasi:filesystem/types"], /imports `wasi:filesystem\/types`, which memdir does not grant/);
  assert.throws(() => imports["wasi:random/insecure-seed"], /does not grant/);
  assert.ok(!ALLOWED_IMPORTS.some((i) => /filesystem|sockets|random|clocks|http/.test(i)));
});

test("the WASI shim has no environment, and exit throws instead of ending the process", () => {
  const { imports } = wasiImports();
  assert.deepEqual(imports["wasi:cli/environment"].getEnvironment(), []);
  assert.throws(() => imports["wasi:cli/exit"].exit({ tag: "err" }), (e) => e instanceof CoreExited && !e.ok);
});

test("the extension and the memdir CLI writing at once lose nothing (one lock for both)", async () => {
  const bin = memdirBin;
  if (!fs.existsSync(bin)) throw new Error(`build the CLI first: ${bin} is missing`);
  const dir = scratch("memdir-lock-");
  const per = 15;
  const { spawn } = await import("node:child_process");
  const script = `for i in $(seq 1 ${per}); do "$0" save --memory-dir "$1" --type reference --name "Cli $i" --description "cli $i" --body "https://cli.example/$i" >/dev/null || exit 1; done`;
  const cli = spawn("sh", ["-c", script, bin, dir], { stdio: "inherit" });
  const exited = new Promise((resolve) => cli.on("exit", resolve));
  const core = new MemoryCore(dist);
  for (let i = 1; i <= per; i++) {
    core.save(new ConfinedFs().grantRead("/").grantWrite(dir), {
      target: target(dir), memoryType: "reference", name: `Node ${i}`, description: `node ${i}`, file: undefined, replaces: undefined,
      body: `https://node.example/${i}`, nowMs: BigInt(Date.now()), utcOffsetMinutes: 0, scope: undefined,
    });
  }
  assert.equal(await exited, 0, "every CLI save succeeded");
  const files = fs.readdirSync(dir).filter((f) => /^(cli|node)-\d+\.md$/.test(f));
  assert.equal(files.length, 2 * per);
  const lines = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8").split("\n").filter((l) => l.startsWith("- "));
  assert.equal(lines.length, 2 * per);
});

test("a writer killed while it holds the lock blocks the others only until it is seen dead", async () => {
  const bin = memdirBin;
  if (!fs.existsSync(bin)) throw new Error(`build the CLI first: ${bin} is missing`);
  const { spawn, spawnSync } = await import("node:child_process");
  for (const holderKind of ["node", "cli"]) {
    const dir = scratch(`memdir-killed-${holderKind}-`);
    const lockFile = path.join(dir, ".memdir.lock");
    // The holder takes the lock and never lets go: a Node host, or the memdir CLI stuck in a
    // team sync's git hook.
    let holder;
    if (holderKind === "node") {
      const code = `require(${JSON.stringify(packageDir)}).Lock.acquire(${JSON.stringify(lockFile)}, 5000); setInterval(() => {}, 1000);`;
      holder = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
    } else {
      const team = path.join(dir, "team");
      fs.mkdirSync(path.join(team, ".git", "hooks"), { recursive: true });
      spawnSync("git", ["init", "-q"], { cwd: team });
      spawnSync("git", ["remote", "add", "origin", path.join(dir, "nowhere.git")], { cwd: team });
      fs.writeFileSync(path.join(team, ".git/hooks/pre-commit"), "#!/bin/sh\nsleep 600\n", { mode: 0o755 });
      fs.writeFileSync(path.join(team, "a.md"), "---\nname: a\ndescription: a\ntype: reference\n---\na\n");
      holder = spawn(bin, ["team", "sync", "--memory-dir", dir], {
        stdio: "ignore", detached: true, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
      });
    }
    const watched = holderKind === "node" ? lockFile : path.join(dir, "team", ".memdir.lock");
    const deadline = Date.now() + 20000;
    while (!fs.existsSync(watched) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(fs.existsSync(watched), `${holderKind}: the holder took the lock`);
    // Held by a live process: another writer waits and is told who holds it.
    assert.match(String(Lock.acquire(watched, 50)), new RegExp(`process ${holder.pid} on `));
    const exited = new Promise((r) => holder.on("exit", r));
    holder.kill("SIGKILL");
    await exited;
    // The CLI's git and its hook, still running, go too.
    if (holderKind === "cli") {
      try {
        process.kill(-holder.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    // Dead: the lock file is still there, and the next writer takes it over at once.
    assert.ok(fs.existsSync(watched), "a killed holder leaves its file");
    const taken = Lock.acquire(watched, 10000);
    assert.ok(taken instanceof Lock, String(taken));
    taken.release();
    assert.ok(!fs.existsSync(watched));
    // And the CLI's own writers go on: a save where the killed CLI held the team lock.
    if (holderKind === "cli") {
      const saved = spawnSync(bin, ["save", "--memory-dir", dir, "--scope", "team", "--type", "reference", "--name", "b", "--description", "b", "--body", "b"], {
        encoding: "utf8", env: { ...process.env, MEMDIR_TEAM_MEMORY: "1" },
      });
      assert.equal(saved.status, 0, saved.stderr);
    }
  }
});

test("a FIFO named .memdir.lock is refused at once, before anything is written (issue 18)", async () => {
  const { spawnSync } = await import("node:child_process");
  const dir = scratch("memdir-fifo-");
  assert.equal(spawnSync("mkfifo", [path.join(dir, ".memdir.lock")]).status, 0);
  const core = new MemoryCore(dist);
  assert.throws(
    () => core.save(new ConfinedFs().grantRead("/").grantWrite(dir), {
      target: target(dir), memoryType: "user", name: "Editor", description: "Ana uses vim", file: undefined, replaces: undefined,
      body: "Ana uses vim.", nowMs: 0n, utcOffsetMinutes: 0, scope: undefined,
    }),
    (e) => e instanceof CoreError && /not a regular file/.test(e.message),
  );
  assert.deepEqual(fs.readdirSync(dir), [".memdir.lock"]);
});

test("team sync runs through the jco-loaded core: git runs here, the core decides (issue 13)", async () => {
  const { execFileSync } = await import("node:child_process");
  const root = scratch("memdir-loader-team-");
  const bare = path.join(root, "team.git");
  execFileSync("git", ["init", "-q", "--bare", bare]);
  const core = new MemoryCore(dist);
  process.env.GIT_CONFIG_GLOBAL = "/dev/null";
  const sync = (dir, action) => {
    fs.mkdirSync(dir, { recursive: true });
    const input = { target: target(dir), which: "private", action, nowMs: BigInt(Date.now()), hostName: "loader", minIntervalMs: undefined };
    const network = [];
    const run = (c) => { network.push(c.network); return runGitAsync(c); };
    return core.team(new ConfinedFs().grantRead("/").grantWrite(dir), input, runGitSync, run).then((report) => ({ report, network }));
  };
  const a = path.join(root, "a");
  const b = path.join(root, "b");
  fs.mkdirSync(a);
  fs.writeFileSync(path.join(a, "role.md"), "---\nname: role\ndescription: who\ntype: user\n---\nA data engineer.\n");
  fs.writeFileSync(path.join(a, "MEMORY.md"), "- [role](role.md) — who\n");
  const init = { tag: "init", val: { remote: bare, branch: undefined, mergeDriver: undefined } };
  const first = await sync(a, init);
  assert.equal(first.report.pushed, true);
  assert.ok(first.network.every((n) => n === true), "only network commands go to the async runner");
  assert.ok(first.network.length >= 2);
  await sync(b, init);
  assert.equal(fs.readFileSync(path.join(b, "role.md"), "utf8"), fs.readFileSync(path.join(a, "role.md"), "utf8"));
  // A secret written by hand stops the sync; the remote never receives it.
  fs.writeFileSync(path.join(b, "notes.md"), "key AKIA" + "IOSFODNN7EXAMPLE\n");
  await assert.rejects(sync(b, { tag: "sync" }), (e) => e instanceof CoreError && /notes\.md line 1/.test(e.message));
  assert.ok(!execFileSync("git", ["--git-dir", bare, "log", "-p", "--all"], { encoding: "utf8" }).includes("AKIAIOSFODNN7"));
  // The lock was released on the way out: a save right after works.
  const saved = core.save(new ConfinedFs().grantRead("/").grantWrite(b), {
    target: target(b), memoryType: "user", name: "editor", description: "which editor", body: "Uses VS Code.",
    file: undefined, replaces: undefined, nowMs: BigInt(Date.now()), utcOffsetMinutes: 0, scope: undefined,
  });
  assert.equal(saved.path, "editor.md");
});

test("the automatic sync's schedule is the core's, in plain numbers (issue 25, item 4)", () => {
  const { sessionIntervalMs, writeDelayMs } = new MemoryCore(dist).autoSyncSchedule();
  assert.equal(typeof sessionIntervalMs, "number");
  assert.ok(sessionIntervalMs > writeDelayMs && writeDelayMs > 0, `${sessionIntervalMs} ${writeDelayMs}`);
});

test("recall ranks by meaning through an OpenAI-compatible embeddings endpoint, cached by content (issue 27)", async () => {
  const http = await import("node:http");
  const { openAiEmbeddings } = pkg;
  const dir = scratch("memdir-embed-");
  const memory = (file, name, description, ageMs) => {
    fs.writeFileSync(path.join(dir, file), `---\nname: ${name}\ndescription: ${description}\ntype: reference\n---\nbody\n`);
    const when = new Date(Date.now() - ageMs);
    fs.utimesSync(path.join(dir, file), when, when);
  };
  memory("heating.md", "Heating", "Thermostat schedules live in Home Assistant", 60_000);
  memory("pnpm.md", "pnpm", "Use pnpm, never npm", 120_000);
  memory("deploy.md", "Deploys", "Deploys go through the release train", 180_000);
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const request = JSON.parse(body);
      seen.push({ url: req.url, auth: req.headers.authorization, request });
      if (seen.length === 3) {
        res.writeHead(503, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: "model is loading" } }));
      }
      const topic = (t) => (/cold|Thermostat/.test(t) ? 0 : /pnpm/.test(t) ? 1 : 2);
      const data = request.input.map((t, index) => ({ index, embedding: [0, 1, 2].map((i) => (i === topic(t) ? 1 : 0)) }));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: data.reverse() }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { label, embed } = openAiEmbeddings({ baseUrl: `http://127.0.0.1:${server.address().port}/v1/`, model: "nomic-embed-text" });
    const core = new MemoryCore(dist);
    const input = {
      target: target(dir),
      query: "the bedroom is still cold in the morning",
      recentTools: [],
      alreadyRead: [],
      ignoreMemory: false,
      nowMs: BigInt(Date.now()),
      session: "",
      offline: true,
      embeddings: label,
    };
    const noModel = () => Promise.reject(new Error("no model"));
    const grant = () => new ConfinedFs().grantWrite(dir);
    const first = await core.recall(grant(), input, noModel, embed);
    assert.deepEqual(first.selected, ["heating.md"], JSON.stringify(first.diagnostics));
    const second = await core.recall(grant(), input, noModel, embed);
    assert.deepEqual(second.selected, ["heating.md"]);
    const third = await core.recall(grant(), input, noModel, embed);
    assert.deepEqual(third.selected, [], "words alone find nothing here");
    assert.match(third.diagnostics[0], /embeddings: the embeddings API answered 503: model is loading; recalled by words alone/);
    assert.equal(seen[0].url, "/v1/embeddings");
    assert.equal(seen[0].auth, undefined);
    assert.equal(seen[0].request.model, "nomic-embed-text");
    assert.equal(seen[0].request.input.length, 4, "the request and each memory");
    assert.deepEqual(seen[1].request.input, [input.query], "the memories' vectors are cached");
    assert.ok(fs.existsSync(path.join(dir, ".memdir.embeddings")));
    const without = await core.recall(grant(), { ...input, embeddings: "other" }, noModel);
    assert.match(without.diagnostics[0], /no embeddings model is configured; recalled by words alone/);
  } finally {
    server.close();
  }
});
