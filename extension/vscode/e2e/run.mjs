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
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  answer, browser, cliDir, dirs, editorText, hijack, memoryDir, planted, proposed, modelLog, modelRequests, openWorkspace, out, page, palette,
  port, root, server, sleep, teamRemote, until,
} from "./world.mjs";

const results = [];
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

try {
  await openWorkspace();

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

  await check("the extension makes memory automatic in Copilot's agent through memdir setup; a workspace cannot choose the CLI (issue 26)", async () => {
    const file = path.join(dirs.home, ".copilot/hooks/memdir.json");
    const hooks = await until("Copilot's hook file", async () => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined));
    const command = hooks.hooks?.SessionStart?.[0]?.command ?? "";
    if (!command.startsWith(path.join(cliDir, "memdir")) || !command.endsWith(" hook copilot session-start")) {
      throw new Error(`unexpected SessionStart hook: ${JSON.stringify(hooks)}`);
    }
    if (!hooks.hooks?.Stop?.[0]?.command?.endsWith(" hook copilot stop")) throw new Error(`no Stop hook: ${JSON.stringify(hooks)}`);
    if (fs.existsSync(planted)) throw new Error("the workspace's memdir.cliPath ran");
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

  await check("Memory: Pause Automatic Memory… pauses writes, the status bar says so, Resume ends it (issue 28)", async () => {
    const pauseFile = path.join(memoryDir, ".paused");
    await palette("Memory: Pause Automatic Memory");
    await answer("Until I resume");
    await until("the pause on disk", async () => fs.existsSync(pauseFile));
    const item = page.locator(".statusbar-item", { hasText: "Memory paused" }).first();
    await until("the status bar item", async () => (await item.count()) > 0 && (await item.isVisible()));
    await palette("Memory: Resume Automatic Memory");
    await until("the pause gone", async () => !fs.existsSync(pauseFile));
    await until("the status bar item gone", async () => (await item.count()) === 0 || !(await item.isVisible()));
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
    if (!result.tools.index.includes("Release freeze")) throw new Error(`memory_index: ${result.tools.index}`);
    if (!result.tools.recall.includes("grafana.internal/d/api-latency")) throw new Error(`memory_recall: ${result.tools.recall}`);
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
    // The core's gate passed the turn, and the learning log counts it, as Show Status says (issue 46).
    await until("the learning log", async () => fs.existsSync(path.join(memoryDir, ".sessions/learning.jsonl")));
    await palette("Memory: Show Status");
    await until("the learning line", async () => (await editorText()).includes("1 turn learned from"));
  });

  await check("Memory: Review Memories… accepts one proposal and rejects the other; the view's badge counts them (issue 28)", async () => {
    const badge = page.locator(".activitybar .badge-content, .composite-bar .badge-content").filter({ hasText: "2" }).first();
    await until("the badge of 2 waiting proposals", async () => (await badge.count()) > 0);
    await palette("Memory: Review Memories");
    await answer("Accept");
    await answer("Reject");
    await page.keyboard.press("Escape");
    const pending = path.join(memoryDir, ".pending");
    await until("the queue empty", async () => !fs.readdirSync(pending).some((f) => f.endsWith(".json")));
    const written = proposed.filter((p) => fs.existsSync(path.join(memoryDir, p)));
    if (written.length !== 1) throw new Error(`exactly one proposal should be written, not ${written}`);
    const rejected = fs.readFileSync(path.join(pending, "rejected"), "utf8").trim().split("\n");
    if (rejected.length !== 1) throw new Error(`one rejection remembered, not ${rejected}`);
    if (!fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8").includes(`(${written[0]})`)) throw new Error("the accepted memory has no index line");
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
    const groups = (timeoutMs) => until("two folder groups", async () => {
      const t = await tree.innerText({ timeout: 2000 });
      return t.includes("billing-owner") && t.includes("Latency dashboard") ? t : undefined;
    }, timeoutMs);
    // code-server's first window on a workspace file sometimes starts its extension host
    // without the folders (the log then names the home directory's memory); a reload, as a
    // user would, gives it them.
    const text = await groups(30_000).catch(async () => {
      await page.reload();
      await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
      await palette("Memory: Focus on Memories View");
      return groups(30_000);
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
  const exited = server.exitCode !== null ? Promise.resolve() : new Promise((r) => server.once("exit", r));
  server.kill("SIGTERM");
  await Promise.race([exited, sleep(5000)]);
}

const passed = results.filter(([, ok]) => ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
// The scratch world (home, project, code-server's profile) is kept only when something failed.
if (results.length > 0 && passed === results.length) fs.rmSync(root, { recursive: true, force: true });
else console.log(`the world is kept in ${root}`);
process.exit(results.length > 0 && passed === results.length ? 0 : 1);
