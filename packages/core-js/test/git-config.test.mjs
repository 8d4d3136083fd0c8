// Issue 24, defect 3: the git a Node host runs for the evidence checks (the commands `check`
// asks for, run by `runGitSync`, as the extension's automatic check and Memory: Check Memories
// do) starts none of the programs a project's git configuration names. The project comes from the harness's fixture
// (cli/tests/fixtures/hostile-git-repo.sh), which plants one for every way git starts a
// program; each creates a marker file when it runs. cli/tests/git_config.rs runs the same
// project through `memdir check` and MCP `memory_check`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { core, dist, repo, scratch } from "./package.mjs";

const { ConfinedFs, MemoryCore, runGitSync } = core;
const fixture = path.join(repo, "cli/tests/fixtures/hostile-git-repo.sh");

/** An HTTP server in a process of its own (git blocks this one) that asks for a password. */
async function passwordServer() {
  const server = spawn(process.execPath, ["-e", `
    const s = require("node:http").createServer((req, res) => {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"', Connection: "close" }); res.end();
    });
    s.listen(0, "127.0.0.1", () => console.log(s.address().port));`], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve) => server.stdout.once("data", (d) => resolve(String(d).trim())));
  return { port, stop: () => server.kill() };
}

function takeMarkers(dir) {
  const names = fs.readdirSync(path.join(dir, "markers")).sort();
  for (const name of names) fs.rmSync(path.join(dir, "markers", name));
  return names;
}

test("git in a hostile project starts none of its programs", async () => {
  const dir = scratch("memdir-git-config-");
  const server = await passwordServer();
  const saved = { ...process.env };
  Object.assign(process.env, { HOME: dir, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" });
  try {
    execFileSync("sh", [fixture, dir, server.port], { stdio: ["ignore", "ignore", "inherit"] });
    const repos = [path.join(dir, "repo"), path.join(dir, "repo-gpg")];
    // The plants are live: plain git starts them.
    for (const repo of repos) {
      for (const args of [["ls-files", "-z"], ["log", "--format=%x00%ct", "--name-only", "--no-renames", "-n", "2000"]]) {
        try {
          execFileSync("git", ["-C", repo, ...args], { stdio: "ignore" });
        } catch {}
      }
    }
    const started = takeMarkers(dir);
    for (const name of ["credential", "ext", "gpg", "gpg-openpgp", "gpg-ssh", "gpg-x509", "ssh-command", "upload-pack-local"]) {
      assert.ok(started.includes(name), `plain git did not start ${name}: ${started}`);
    }

    const memory = new MemoryCore(dist);
    const memoryDir = path.join(dir, "mem");
    fs.mkdirSync(memoryDir);
    fs.writeFileSync(path.join(memoryDir, "a.md"), "---\nname: a\ndescription: the letter\ntype: reference\n---\n`a.txt` holds it.\n");
    fs.writeFileSync(path.join(memoryDir, "MEMORY.md"), "- [a](a.md) — the letter\n");
    // A `git` planted in each project, and a PATH whose first entry is relative: the git that
    // runs is still the one on PATH's absolute entries (on Windows, Node would also look in the
    // working directory first).
    process.env.PATH = `.${path.delimiter}${saved.PATH ?? ""}`;
    for (const repo of repos) {
      fs.writeFileSync(path.join(repo, "git"), `#!/bin/sh\ntouch '${path.join(dir, "markers", "planted-git")}'\n`, { mode: 0o755 });
    }
    try {
      execFileSync("git", ["--version"], { cwd: repos[0], stdio: "ignore" });
    } catch {}
    assert.deepEqual(takeMarkers(dir), ["planted-git"], "the planted git is live");
    for (const repo of repos) {
      const ran = [];
      const target = { cwd: repo, env: [["HOME", dir]], memoryDir };
      const report = memory.check(new ConfinedFs().grantRead("/").grantWrite(memoryDir), target, 0n, (command) => {
        const output = runGitSync(command);
        ran.push({ args: command.args, output });
        return output;
      });
      assert.deepEqual(takeMarkers(dir), [], `check's git in ${repo}`);
      assert.equal(report.memories, 1);
      const asked = ran.map((r) => (r.args.includes("ls-files") ? "ls-files" : r.args.includes("log") ? "log" : r.args.join(" ")));
      assert.deepEqual(asked, ["ls-files", "log"], "the core asked for the tracked files, then the history");
      assert.equal(ran[0].output.status, 0, "the tracked files are still read");
      assert.equal(ran[0].output.stdout, ".gitattributes\0a.txt\0");
      // The log of a repository git can read whole still reaches the core.
      if (repo.endsWith("repo-gpg")) assert.match(ran[1].output.stdout, /^\0\d+\n/);
    }
  } finally {
    process.env = saved;
    server.stop();
  }
});
