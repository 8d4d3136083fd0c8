// `memdir setup` against real MCP clients nobody here wrote (issue 15): Gemini CLI, which
// connects to every server it lists, Codex CLI, which lists them from its configuration, and
// Cline, whose own library (`@cline/core`, what its CLI 3 runs) finds the hooks and the server.
// Each runs in a throwaway HOME: setup registers memdir, the client's own `mcp list` shows it,
// `setup --check` finds it answering, and `setup --remove` leaves the file byte for byte as it
// was. Nothing leaves the machine.
//
//   MEMDIR_BIN=target/debug/memdir node --test tests/clients/clients.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const memdir = resolve(process.env.MEMDIR_BIN ?? "target/debug/memdir");
const bin = (name) => join(here, "node_modules", ".bin", name);

/** A HOME and a project folder of their own, with only node and the system on PATH. */
function world() {
  const root = mkdtempSync(join(tmpdir(), "memdir-clients-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  const env = {
    HOME: home,
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    NO_UPDATE_NOTIFIER: "1",
    NO_COLOR: "1",
  };
  const run = (program, args) =>
    execFileSync(program, args, { cwd: project, env, encoding: "utf8", timeout: 60_000, stdio: "pipe" });
  return { root, home, project, env, run, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs `program`, returning stdout and stderr together whatever the exit status. */
function output(w, program, args) {
  const r = spawnSync(program, args, { cwd: w.project, env: w.env, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stdout: r.stdout ?? "", text: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

test("a machine with no agents: setup says so plainly and writes nothing", () => {
  const w = world();
  try {
    // Nothing on PATH either: a client installed on this machine must not count.
    w.env.PATH = w.root;
    const { status, text } = output(w, memdir, ["setup", "--dry-run"]);
    assert.equal(status, 0, text);
    assert.match(text, /No agents found on this machine/);
    assert.deepEqual(execFileSync("find", [w.home], { encoding: "utf8" }).trim(), w.home);
  } finally {
    w.done();
  }
});

test("Gemini CLI: setup registers memdir, `gemini mcp list` connects, --remove restores the file", () => {
  const w = world();
  try {
    const settings = join(w.home, ".gemini", "settings.json");
    mkdirSync(dirname(settings));
    // The user's own settings, with a comment (Gemini CLI reads JSON with comments).
    const original = '{\n  // my theme\n  "ui": { "theme": "GitHub" }\n}\n';
    writeFileSync(settings, original);
    // The user trusts this project; Gemini CLI starts no MCP server in an untrusted folder.
    writeFileSync(join(w.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [w.project]: "TRUST_FOLDER" }));

    const dry = w.run(memdir, ["setup", "--client", "gemini", "--dry-run"]);
    assert.match(dry, /\+\s+"memdir": \{/);
    assert.equal(readFileSync(settings, "utf8"), original, "--dry-run writes nothing");

    w.run(memdir, ["setup", "--client", "gemini", "--yes"]);
    const written = readFileSync(settings, "utf8");
    assert.match(written, /\/\/ my theme/, "the comment is kept");
    assert.match(written, new RegExp(`"command": "${memdir}"`), "the absolute path is registered");
    assert.match(w.run(memdir, ["setup", "--client", "gemini", "--yes"]), /already registered/);
    assert.equal(readFileSync(settings, "utf8"), written, "a second run changes nothing");

    const listed = output(w, bin("gemini"), ["mcp", "list"]);
    assert.match(listed.text, /memdir: .* - Connected/, listed.text);
    assert.match(w.run(memdir, ["setup", "--client", "gemini", "--check"]), /registered; the server answers \(memdir /);

    w.run(memdir, ["setup", "--client", "gemini", "--remove", "--yes"]);
    assert.equal(readFileSync(settings, "utf8"), original, "byte for byte as it was");
    assert.ok(!existsSync(`${settings}.memdir-backup`), "the backup is gone");
    const after = output(w, bin("gemini"), ["mcp", "list"]);
    assert.doesNotMatch(after.text, /memdir/, after.text);
  } finally {
    w.done();
  }
});

test("Codex CLI: setup registers memdir, `codex mcp list` shows it, --remove restores the file", () => {
  const w = world();
  try {
    const config = join(w.home, ".codex", "config.toml");
    mkdirSync(dirname(config));
    const original = '# my Codex settings\nmodel = "o3"  # the usual one\n\n[mcp_servers.other]\ncommand = "other-server"\n';
    writeFileSync(config, original);

    w.run(memdir, ["setup", "--client", "codex", "--yes"]);
    const written = readFileSync(config, "utf8");
    assert.match(written, /# the usual one/, "the comment is kept");
    assert.match(written, /\[mcp_servers\.memdir\]/);

    const listed = output(w, bin("codex"), ["mcp", "list", "--json"]);
    const servers = JSON.parse(listed.stdout);
    const entry = servers.find((s) => s.name === "memdir");
    assert.ok(entry, listed.text);
    assert.equal(entry.transport?.command ?? entry.command, memdir, listed.text);
    assert.ok(servers.find((s) => s.name === "other"), "the user's own server is still listed");
    assert.match(w.run(memdir, ["setup", "--client", "codex", "--check"]), /registered; the server answers/);

    w.run(memdir, ["setup", "--client", "codex", "--remove", "--yes"]);
    assert.equal(readFileSync(config, "utf8"), original, "byte for byte as it was");
    const after = output(w, bin("codex"), ["mcp", "list", "--json"]);
    assert.ok(!JSON.parse(after.stdout).some((s) => s.name === "memdir"), after.text);
  } finally {
    w.done();
  }
});

test("Cline: @cline/core finds setup's hook scripts and server; the prompt hook answers Cline's contract; --remove restores", () => {
  const w = world();
  try {
    const user = join(w.home, "Documents/Cline/Hooks/PreToolUse");
    mkdirSync(dirname(user), { recursive: true });
    writeFileSync(user, "#!/bin/sh\necho '{\"cancel\":false}'\n");
    w.run(memdir, ["setup", "--client", "cline", "--yes"]);

    // What Cline 3's own code finds, in its own process (its paths come from HOME).
    const probe = `
      const core = await import("@cline/core");
      console.log(JSON.stringify({
        hooks: core.listHookConfigFiles(${JSON.stringify(w.project)}),
        servers: core.resolveMcpServerRegistrations(),
      }));`;
    const found = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: here, env: w.env, encoding: "utf8" }),
    );
    const events = found.hooks.map((h) => `${h.fileName}:${h.hookEventName}`).sort();
    assert.deepEqual(events, ["PreToolUse:tool_call", "TaskComplete:agent_end", "TaskStart:agent_start", "UserPromptSubmit:prompt_submit"]);
    const server = found.servers.find((s) => s.name === "memdir");
    assert.deepEqual(server?.transport, { type: "stdio", command: memdir, args: ["mcp"] }, JSON.stringify(found.servers));

    // Run as Cline runs a file without an extension: bash, the payload on stdin (its shape).
    const prompt = found.hooks.find((h) => h.fileName === "UserPromptSubmit").path;
    const payload = {
      clineVersion: "3.0.65", hookName: "prompt_submit", timestamp: new Date().toISOString(), taskId: "task-1",
      workspaceRoots: [w.project], userId: "ana", userPromptSubmit: { prompt: "how do we run tests?", attachments: [] },
    };
    const answer = spawnSync("bash", [prompt], { cwd: w.project, env: w.env, input: JSON.stringify(payload), encoding: "utf8" });
    assert.equal(answer.status, 0, answer.stderr);
    assert.equal(JSON.parse(answer.stdout.trim().split("\n").pop()).cancel, false, answer.stdout);

    w.run(memdir, ["setup", "--client", "cline", "--remove", "--yes"]);
    assert.deepEqual(
      execFileSync("find", [w.home, "-type", "f"], { encoding: "utf8" }).trim().split("\n"),
      [user],
      "only the user's own hook is left",
    );
  } finally {
    w.done();
  }
});

test("Codex CLI without a configuration file: --remove deletes the file setup created", () => {
  const w = world();
  try {
    mkdirSync(join(w.home, ".codex"));
    const config = join(w.home, ".codex", "config.toml");
    w.run(memdir, ["setup", "--client", "codex", "--yes"]);
    assert.match(output(w, bin("codex"), ["mcp", "list"]).text, /memdir/);
    w.run(memdir, ["setup", "--client", "codex", "--remove", "--yes"]);
    assert.ok(!existsSync(config), "no file, as before");
  } finally {
    w.done();
  }
});

test("a file the user changed after setup keeps the change; only memdir's entry goes", () => {
  const w = world();
  try {
    const settings = join(w.home, ".gemini", "settings.json");
    mkdirSync(dirname(settings));
    writeFileSync(settings, '{\n  "ui": { "theme": "GitHub" }\n}\n');
    w.run(memdir, ["setup", "--client", "gemini", "--yes"]);
    const edited = readFileSync(settings, "utf8").replace('"GitHub"', '"Dracula"');
    writeFileSync(settings, edited);
    w.run(memdir, ["setup", "--client", "gemini", "--remove", "--yes"]);
    const left = readFileSync(settings, "utf8");
    assert.match(left, /Dracula/);
    assert.doesNotMatch(left, /memdir/);
  } finally {
    w.done();
  }
});
