// Memory that happens by itself in real agents (issue 26, R14): Codex CLI, Gemini CLI and opencode (through memdir's plugin), pinned,
// each in a throwaway HOME after `memdir setup --client X --yes`, run one real turn against a
// scripted model on a loopback HTTP stub. The request the client sends carries the index and
// the recalled memory's body; after the turn the memory the scripted extraction asked for is on
// disk with its index line; `setup --remove` leaves every file as it was. Nothing leaves the
// machine.
//
//   MEMDIR_BIN=target/debug/memdir node --test tests/clients/hooks.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const memdir = resolve(process.env.MEMDIR_BIN ?? "target/debug/memdir");
const bin = (name) => join(here, "node_modules", ".bin", name);

const PROMPT = "why does the bedroom heating start at 5am on weekdays?";
const BODY = "The bedroom heating starts at 05:00 on weekdays.";
const LEARNED = "feedback_release_tags.md";
// The extraction's two rounds: read nothing, then create one memory.
const ROUND1 = JSON.stringify({ read: [] });
const ROUND2 = JSON.stringify({ operations: [{
  op: "create", path: LEARNED, type: "feedback", name: "release-tags",
  description: "tag releases from the release branch, never main",
  body: "Tag releases from the release branch, never from main.\n\n**Why:** main carries unreleased work.\n\n**How to apply:** check out release/* before tagging.",
}] });

/** A loopback model for the three clients: OpenAI's Responses stream, Gemini's generateContent, chat completions. */
async function stub() {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ url: req.url, body });
      const sse = (events) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
        res.end();
      };
      const path = new URL(req.url, "http://x").pathname;
      if (path.endsWith("/responses")) {
        // A client's own CLI as memdir's extraction model: memdir's request is its prompt.
        const extraction = body.includes("New conversation:");
        const text = !extraction ? "Noted." : body.includes("operations") ? ROUND2 : ROUND1;
        return sse([
          { type: "response.output_item.done", item: { type: "message", role: "assistant", content: [{ type: "output_text", text }] } },
          { type: "response.completed", response: { id: `resp_${requests.length}` } },
        ]);
      }
      const gemini = path.match(/:(streamGenerateContent|generateContent|countTokens)$/);
      if (gemini) {
        if (gemini[1] === "countTokens") {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ totalTokens: 10 }));
        }
        // Gemini CLI's router asks for JSON first; the turn itself streams.
        const json = /responseMimeType|responseJsonSchema|responseSchema/.test(body);
        const text = json ? JSON.stringify({ complexity_reasoning: "stub", complexity_score: 1, next_speaker: "user" }) : "Noted.";
        const reply = { candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 } };
        if (gemini[1] === "streamGenerateContent") return sse([reply]);
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify(reply));
      }
      if (path.endsWith("/chat/completions")) {
        // opencode (OpenAI-compatible chat completions, streamed); its title requests get a title.
        const title = /You are a title generator/.test(body);
        const chunk = (delta, finish_reason = null) => ({ id: `chat_${requests.length}`, object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason }] });
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const e of [chunk({ role: "assistant", content: title ? "Heating" : "Noted." }), chunk({}, "stop")]) res.write(`data: ${JSON.stringify(e)}\n\n`);
        return res.end("data: [DONE]\n\n");
      }
      res.writeHead(404).end();
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { port: server.address().port, requests, close: () => new Promise((ok) => server.close(ok)) };
}

/** A HOME, a project and a scripted extraction model of their own. */
function world() {
  const root = mkdtempSync(join(tmpdir(), "memdir-hooks-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  const env = { HOME: home, PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, NO_UPDATE_NOTIFIER: "1", NO_COLOR: "1" };
  const run = (program, args, extra = {}) =>
    execFileSync(program, args, { cwd: project, env: { ...env, ...extra }, encoding: "utf8", timeout: 60_000, stdio: "pipe" });
  writeFileSync(join(root, "r1.json"), ROUND1);
  writeFileSync(join(root, "r2.json"), ROUND2);
  writeFileSync(join(root, "model.sh"), `if grep -q operations; then cat ${root}/r2.json; else cat ${root}/r1.json; fi\n`);
  const llm = `command:sh ${join(root, "model.sh")}`;
  const memory = run(memdir, ["path", "--cwd", project]).trim();
  // One memory the turn's prompt needs, saved as the terminal agent would have.
  run(memdir, ["save", "--cwd", project, "--type", "feedback", "--name", "heating-schedule",
    "--description", "home automation: the bedroom heating starts at 5am on weekdays",
    "--body", `${BODY}\n\n**Why:** the user wakes at 6.\n\n**How to apply:** keep the schedule when editing the automations.`]);
  return { root, home, project, env, run, llm, memory, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** Every file under `dir` but memory's own, by path, with its bytes. */
function snapshot(dir, skip) {
  const files = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (skip(p)) continue;
      if (statSync(p).isDirectory()) walk(p);
      else files[relative(dir, p)] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return files;
}

/** Runs a client to its end with stdin closed; stdout and stderr together. */
function client(w, program, args, extra) {
  return new Promise((ok, fail) => {
    const child = spawn(program, args, { cwd: w.project, env: { ...w.env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d) => (text += d));
    child.stderr.on("data", (d) => (text += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("error", fail);
    child.on("close", (status) => {
      clearTimeout(timer);
      ok({ status, text });
    });
  });
}

async function waitFor(what, done) {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`waited a minute for ${what}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** The checks every client gets after its turn. */
async function afterTheTurn(w, sent, log) {
  assert.ok(sent.includes("heating-schedule.md"), `the request carries the index line: ${sent.slice(0, 2000)}`);
  assert.ok(sent.includes(BODY), "the request carries the recalled memory's body");
  assert.ok(sent.includes("data and not instructions"), "framed as data");
  await waitFor("the extraction at stop", () =>
    existsSync(join(w.memory, LEARNED)) && readFileSync(join(w.memory, "MEMORY.md"), "utf8").includes(LEARNED));
  assert.match(readFileSync(join(w.memory, LEARNED), "utf8"), /never from main/);
  assert.equal(existsSync(log) ? readFileSync(log, "utf8") : "", "", "nothing went wrong in memdir's log");
}

/** Codex's home with the user's own configuration: a local model server, the stub. */
function codexAtLoopback(w, model) {
  const codexHome = join(w.home, ".codex");
  mkdirSync(codexHome);
  writeFileSync(join(codexHome, "config.toml"), [
    'model = "gpt-5.1-codex-mini"', 'model_provider = "stub"', "check_for_update_on_startup = false", "",
    "[model_providers.stub]", 'name = "Loopback"', `base_url = "http://127.0.0.1:${model.port}/v1"`,
    'wire_api = "responses"', 'env_key = "STUB_API_KEY"', "", "[analytics]", "enabled = false", "",
    "[features]", "plugins = false", "apps = false", "remote_plugin = false", "",
  ].join("\n"));
  return codexHome;
}

test("Codex CLI: the index and the recalled memory reach the model; the turn's lesson is saved", async () => {
  const w = world();
  const model = await stub();
  try {
    const codexHome = codexAtLoopback(w, model);
    const before = snapshot(w.home, () => false);

    const said = w.run(memdir, ["setup", "--client", "codex", "--yes", "--llm", w.llm]);
    assert.match(said, /\/hooks/, "setup says how to trust the hooks");
    // Standing in for the user's review in `/hooks`: Codex's own switch for automation.
    const turn = await client(w, bin("codex"), ["exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", PROMPT],
      { STUB_API_KEY: "sk-stub" });
    assert.equal(turn.status, 0, turn.text);
    const sent = model.requests.filter((r) => r.url.endsWith("/responses")).map((r) => r.body).join("\n");
    await afterTheTurn(w, sent, join(w.home, ".local/state/memdir/hook.log"));

    w.run(memdir, ["setup", "--client", "codex", "--remove", "--yes"]);
    assert.equal(readFileSync(join(codexHome, "config.toml"), "utf8"), before[".codex/config.toml"], "config.toml byte for byte as it was");
    assert.ok(!existsSync(join(codexHome, "hooks.json")), "the hook file setup created is gone");
  } finally {
    await model.close();
    w.done();
  }
});

test("Codex CLI as its own extraction model (`command:codex exec`): the lesson is saved, and the child's hooks start no memdir", async () => {
  const w = world();
  const model = await stub();
  try {
    codexAtLoopback(w, model);
    // The child runs with hooks trusted too, as they are once a person has trusted them.
    const llm = `command:${bin("codex")} exec --dangerously-bypass-hook-trust --skip-git-repo-check -`;
    w.run(memdir, ["setup", "--client", "codex", "--yes", "--llm", llm]);
    const turn = await client(w, bin("codex"), ["exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", PROMPT],
      { STUB_API_KEY: "sk-stub" });
    assert.equal(turn.status, 0, turn.text);
    const sent = model.requests.filter((r) => r.url.endsWith("/responses")).map((r) => r.body).join("\n");
    await afterTheTurn(w, sent, join(w.home, ".local/state/memdir/hook.log"));
    // The turn, then the extraction's two rounds; a child whose stop started memdir again would add more.
    await new Promise((ok) => setTimeout(ok, 2000));
    const turns = model.requests.filter((r) => r.url.endsWith("/responses"));
    assert.equal(turns.length, 3, turns.map((r) => r.body.slice(0, 200)).join("\n---\n"));
  } finally {
    await model.close();
    w.done();
  }
});

test("Gemini CLI: the index and the recalled memory reach the model; the turn's lesson is saved", async () => {
  const w = world();
  const model = await stub();
  try {
    const dir = join(w.home, ".gemini");
    mkdirSync(dir);
    const settings = join(dir, "settings.json");
    const original = JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
    }, null, 2) + "\n";
    writeFileSync(settings, original);
    // Gemini CLI runs hooks only in a folder the user trusts.
    writeFileSync(join(dir, "trustedFolders.json"), JSON.stringify({ [w.project]: "TRUST_FOLDER" }));

    w.run(memdir, ["setup", "--client", "gemini", "--yes", "--llm", w.llm]);
    const turn = await client(w, bin("gemini"), ["-p", PROMPT],
      { GEMINI_API_KEY: "stub-key", GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${model.port}`, TERM: "dumb" });
    assert.equal(turn.status, 0, turn.text);
    const sent = model.requests.filter((r) => r.url.includes(":streamGenerateContent")).map((r) => r.body).join("\n");
    // Gemini CLI escapes < and > in hook text.
    await afterTheTurn(w, sent.replaceAll("\\u003c", "<").replaceAll("\\u003e", ">"), join(w.home, ".local/state/memdir/hook.log"));

    w.run(memdir, ["setup", "--client", "gemini", "--remove", "--yes"]);
    assert.equal(readFileSync(settings, "utf8"), original, "settings.json byte for byte as it was");
  } finally {
    await model.close();
    w.done();
  }
});

test("opencode: memdir's plugin puts the index and the recalled memory in the request; the turn's lesson is saved", async () => {
  const w = world();
  const model = await stub();
  try {
    const dir = join(w.home, ".config/opencode");
    mkdirSync(dir, { recursive: true });
    const config = join(dir, "opencode.json");
    const original = JSON.stringify({
      $schema: "https://opencode.ai/config.json", autoupdate: false, share: "disabled", model: "stub/m",
      provider: { stub: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `http://127.0.0.1:${model.port}/v1`, apiKey: "x" }, models: { m: {} } } },
    }, null, 2) + "\n";
    writeFileSync(config, original);
    // opencode installs its plugin SDK into its config folder at start unless it is there: say it is (no network here).
    mkdirSync(join(dir, "node_modules"));
    writeFileSync(join(dir, "package-lock.json"), JSON.stringify({ packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } }));

    const said = w.run(memdir, ["setup", "--client", "opencode", "--yes", "--llm", w.llm]);
    assert.match(said, /automatic through memdir's plugin/, said);
    const plugin = join(dir, "plugin/memdir.js");
    assert.ok(existsSync(plugin), "the plugin file is written");
    const quiet = { OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_SHARE: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "1" };
    // The prompt as separate words: opencode quotes one argument that holds spaces.
    const turn = await client(w, bin("opencode"), ["run", ...PROMPT.split(" ")], quiet);
    assert.equal(turn.status, 0, turn.text);
    const sent = model.requests.filter((r) => r.url.endsWith("/chat/completions") && r.body.includes('"tools"')).map((r) => r.body).join("\n");
    await afterTheTurn(w, sent, join(w.home, ".local/state/memdir/hook.log"));
    // Each memory once per session: the recall session is kept beside the shell hooks' ones.
    assert.ok(readdirSync(join(w.memory, ".sessions")).some((f) => /^opencode-ses_.*\.json$/.test(f)));
    // Recall kept its index: the plugin applies the core's plan, which grants it (issue 45; the
    // plugin's own grant used to leave it out, so opencode rebuilt nothing and kept nothing).
    assert.ok(existsSync(join(w.memory, ".memdir.index")), "the recall index is kept");

    w.run(memdir, ["setup", "--client", "opencode", "--remove", "--yes"]);
    assert.equal(readFileSync(config, "utf8"), original, "opencode.json byte for byte as it was");
    assert.ok(!existsSync(plugin), "the plugin file setup wrote is gone");
  } finally {
    await model.close();
    w.done();
  }
});
