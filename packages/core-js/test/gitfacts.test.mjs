// Issue 24, defect 3: the git the extension runs for the evidence checks (`gitFacts`, what the
// automatic check and Memory: Check Memories hand the core) starts none of the programs a
// project's git configuration names. The project comes from the harness's fixture
// (cli/tests/fixtures/hostile-git-repo.sh), which plants one for every way git starts a
// program; each creates a marker file when it runs. cli/tests/git_config.rs runs the same
// project through `memdir check` and MCP `memory_check`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { core, repo } from "./package.mjs";

const { gitFacts } = core;
const fixture = path.join(repo, "cli/tests/fixtures/hostile-git-repo.sh");

/** An HTTP server in a process of its own (gitFacts blocks this one) that asks for a password. */
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-gitfacts-"));
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

    for (const repo of repos) {
      const facts = gitFacts(repo);
      assert.deepEqual(takeMarkers(dir), [], `gitFacts in ${repo}`);
      assert.equal(facts.lsFiles, ".gitattributes\na.txt", "the tracked files are still read");
    }
    // The log of a repository git can read whole still reaches the core.
    assert.match(gitFacts(path.join(dir, "repo-gpg")).log ?? "", /^\0\d+\n/);
  } finally {
    process.env = saved;
    server.stop();
  }
});
