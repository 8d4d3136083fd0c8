// A benchmark, not a test (issue 17, item 4): the memdir extension in a real VS Code, as the
// end-to-end test runs it (code-server, Chromium). Each run is a fresh world in a child process,
// so every start is cold. It times, from the page's navigation:
//   - the workbench drawn (VS Code's own start, not memdir's);
//   - the Memories view listing the seeded memories (activation: the extension starts on
//     `onStartupFinished`, loads the core, lists the memories);
//   - the first Memory: Recall For Query… to its result document (through the test model);
// and reads the extension's own figures from its log (core load, activation). Prints medians.
//
//   node e2e/bench.mjs [RUNS]      (after the same steps as run.mjs; RUNS defaults to 5)
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

if (process.argv[2] === "--once") {
  const world = await import("./world.mjs");
  const { answer, dirs, editorText, openWorkspace, palette, until } = world;
  const figures = {};
  try {
    let wall;
    await openWorkspace(() => {
      figures.navigation = performance.now();
      wall = Date.now();
    });
    figures.workbench = performance.now() - figures.navigation;
    await palette("Memory: Focus on Memories View");
    const tree = world.page.locator('[id="workbench.view.extension.memdir"], .pane-body').filter({ hasText: "Feedback" }).first();
    await until("memories in the view", async () => (await tree.innerText({ timeout: 2000 })).includes("Integration tests use a real database"), 60_000);
    figures.view = performance.now() - figures.navigation;
    const asked = performance.now();
    await palette("Memory: Recall For Query");
    await answer("how do I run the integration tests against postgres");
    await until("recalled text", async () => (await editorText()).includes("mocks hid a broken migration"));
    figures.recall = performance.now() - asked;
    // The extension's log: a LogOutputChannel writes a file under the user data's logs.
    const logs = execFileSync("find", [path.join(dirs["user-data"], "logs"), "-name", "*memdir*.log"], { encoding: "utf8" }).split("\n").filter(Boolean);
    const text = logs.map((f) => fs.readFileSync(f, "utf8")).join("\n");
    const ms = (pattern) => Number(text.match(pattern)?.[1] ?? NaN);
    figures.core_load = ms(/the memory core loaded in ([\d.]+) ms/);
    figures.activation = ms(/activated in ([\d.]+) ms/);
    figures.recall_core = ms(/recall took ([\d.]+) ms/);
    figures.recall_model = ms(/recall took [\d.]+ ms, of which the model ([\d.]+) ms/);
    // When VS Code started the extension host and began activating memdir, from navigation
    // (the host's own log; its lines start with the local date and time).
    const host = execFileSync("find", [path.join(dirs["user-data"], "logs"), "-name", "remoteexthost.log"], { encoding: "utf8" }).split("\n").filter(Boolean);
    const hostLog = host.map((f) => fs.readFileSync(f, "utf8")).join("\n");
    const at = (pattern) => {
      const stamp = hostLog.match(pattern)?.[1];
      return stamp ? new Date(stamp.replace(" ", "T")).getTime() - wall : NaN;
    };
    figures.host_started = at(/^(\S+ \S+) .*Extension host with pid \d+ started/m);
    figures.activating = at(/^(\S+ \S+) .*_doActivateExtension memdir\.memdir,/m);
    console.log(JSON.stringify(figures));
  } finally {
    await world.browser?.close().catch(() => {});
    world.server.kill("SIGTERM");
  }
  process.exit(0);
}

const runs = Number(process.argv[2] ?? 5);
const samples = [];
for (let i = 0; i < runs; i++) {
  const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--once"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const line = output.trim().split("\n").pop();
  samples.push(JSON.parse(line));
  console.error(`run ${i + 1}/${runs}: ${line}`);
}
const median = (key) => {
  const values = samples.map((s) => s[key]).filter(Number.isFinite).sort((a, b) => a - b);
  return values.length ? values[Math.floor(values.length / 2)].toFixed(0) : "–";
};
console.log(`| median of ${runs} cold starts, ms from the page's navigation unless said | ms |\n|---|---:|`);
console.log(`| workbench drawn | ${median("workbench")} |`);
console.log(`| VS Code's extension host started (its log) | ${median("host_started")} |`);
console.log(`| VS Code began activating memdir (its log) | ${median("activating")} |`);
console.log(`| Memories view lists the memories | ${median("view")} |`);
console.log(`| memdir's activate(), core load included (memdir's log) | ${median("activation")} |`);
console.log(`| – loading the core (memdir's log) | ${median("core_load")} |`);
console.log(`| first Memory: Recall For Query…, palette to result document | ${median("recall")} |`);
console.log(`| – the recall call (memdir's log) | ${median("recall_core")} |`);
console.log(`| – of which the model's answer (memdir's log) | ${median("recall_model")} |`);
