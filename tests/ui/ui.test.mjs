// `memdir ui` end to end (issue 48): the workbench in Debian's Chromium through playwright-core,
// in a throwaway HOME and project. It opens the printed address, searches as recall would,
// opens a memory and its history, accepts one proposal and rejects another, edits a memory and
// finds the change on disk, sees who wrote what in the timeline, and sees the receipt of a
// `memdir hook` prompt, and a team memory's git log. Then hostile
// requests: no token, a foreign Host, a foreign Origin, a write under --read-only, and a
// memory holding <script>, which shows as text and runs nothing. Screenshots go to
// tests/ui/out/ (and to docs/ui/ with UPDATE_SCREENSHOTS=1).
//
//   MEMDIR_BIN=target/debug/memdir node --test tests/ui/ui.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const memdir = resolve(process.env.MEMDIR_BIN ?? "target/debug/memdir");
const out = join(here, "out");
const docs = join(here, "../../docs/ui");

/** A HOME with two memories (one edited once, one holding <script>), a team memory a teammate
 * committed with markup in its message, two proposals waiting, and one hook prompt given a
 * memory. */
function world() {
  const root = mkdtempSync(join(tmpdir(), "memdir-ui-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(project);
  const env = { HOME: home, PATH: "/usr/bin:/bin", TZ: "UTC" };
  const run = (args, input) =>
    execFileSync(memdir, args, { cwd: project, env, input, encoding: "utf8", timeout: 60_000, stdio: "pipe" });
  execFileSync("git", ["init", "-q"], { cwd: project });
  const save = (type, name, description, body) =>
    run(["save", "--type", type, "--name", name, "--description", description, "--body", body]);
  save("feedback", "real-database-in-tests", "integration tests hit a real Postgres, never mocks",
    "Use mocks in integration tests.\n\n**Why:** speed.\n\n**How to apply:** mock the repository layer.");
  // The person corrected it: the first version is kept, and is the memory's history.
  save("feedback", "real-database-in-tests", "integration tests hit a real Postgres, never mocks",
    "Use the real database in integration tests.\n\n**Why:** mocks hid a broken migration last quarter.\n\n**How to apply:** start the compose database before `cargo test`.");
  save("project", "deploy-window", "deploys happen on Tuesdays and Thursdays",
    "Deploy on Tuesdays and Thursdays only.\n\n<script>document.title='pwned'</script>\n<img src=x onerror=\"document.title='pwned'\">\n\n**Why:** support is staffed then.\n\n**How to apply:** schedule releases for those days.");
  const memory = run(["path"]).trim();
  // Another project on this machine, whose own settings turn feedback writes off.
  const other = join(root, "other.app");
  mkdirSync(join(other, ".claude"), { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: other });
  writeFileSync(join(other, ".claude/settings.json"), JSON.stringify({ memoryWrites: { feedback: "off" } }));
  run(["save", "--cwd", other, "--type", "reference", "--name", "api-docs", "--description", "where the API docs live", "--body", "https://docs.example.invalid"]);
  // Team memory a teammate committed, whose name and message hold markup.
  const team = join(memory, "team");
  mkdirSync(team, { recursive: true });
  writeFileSync(join(team, "staging-url.md"), "---\nname: staging-url\ndescription: staging lives at staging.example.invalid\ntype: reference\n---\nStaging: https://staging.example.invalid\n");
  const teammate = { ...env, GIT_AUTHOR_NAME: "Ana <script>", GIT_AUTHOR_EMAIL: "ana@example.invalid", GIT_COMMITTER_NAME: "Ana", GIT_COMMITTER_EMAIL: "ana@example.invalid" };
  const git = (...args) => execFileSync("git", ["-C", team, ...args], { env: teammate, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("add", "staging-url.md");
  git("commit", "-q", "-m", "Where staging lives <img src=x onerror=\"document.title='pwned'\">");
  // Two proposals: extraction under memoryWrites: review.
  writeFileSync(join(home, ".claude/settings.json"), JSON.stringify({ memoryWrites: { default: "auto", project: "review" } }));
  writeFileSync(join(root, "r1.json"), JSON.stringify({ read: [] }));
  writeFileSync(join(root, "r2.json"), JSON.stringify({ operations: [
    { op: "create", path: "project_freeze.md", type: "project", name: "release-freeze", description: "no merges during the release freeze", body: "No merges during the freeze.\n\n**Why:** the release branch is cut.\n\n**How to apply:** hold merges until the tag." },
    { op: "create", path: "project_oncall.md", type: "project", name: "oncall-rota", description: "the on-call rota lives in PagerDuty", body: "The on-call rota is in PagerDuty.\n\n**Why:** one source.\n\n**How to apply:** look there, not in the wiki." },
  ] }));
  writeFileSync(join(root, "t.jsonl"), `${JSON.stringify({ role: "user", content: "the freeze starts Friday; the rota is in PagerDuty" })}\n`);
  run(["extract", "--transcript", join(root, "t.jsonl"), "--llm", `command:if grep -q operations; then cat ${root}/r2.json; else cat ${root}/r1.json; fi`]);
  // An agent's prompt through its hook: the receipt says what it was given.
  run(["hook", "codex", "prompt"], JSON.stringify({ session_id: "s1", cwd: project, hook_event_name: "UserPromptSubmit", prompt: "how should I run the integration tests against postgres?" }));
  return { root, home, project, env, memory, run, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** `memdir ui` on a free port; resolves with its address once it printed it. */
function serve(w, extra = []) {
  return new Promise((ok, fail) => {
    const child = spawn(memdir, ["ui", "--no-open", ...extra], { cwd: w.project, env: w.env, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    child.stdout.on("data", (d) => {
      said += d;
      const url = said.split("\n")[0];
      if (said.includes("\n")) ok({ url: new URL(url), stop: () => child.kill() });
    });
    child.stderr.on("data", (d) => (said += d));
    child.on("exit", (code) => fail(new Error(`memdir ui exited ${code}: ${said}`)));
  });
}

/** A raw request, so headers a browser would never send can be sent. */
function request(url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((ok, fail) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on("error", fail);
    if (body) req.write(body);
    req.end();
  });
}

async function shoot(page, name) {
  mkdirSync(out, { recursive: true });
  const file = join(out, `${name}.png`);
  await page.screenshot({ path: file });
  if (process.env.UPDATE_SCREENSHOTS) {
    mkdirSync(docs, { recursive: true });
    copyFileSync(file, join(docs, `${name}.png`));
  }
}

test("the workbench in Chromium: search, a memory and its history, review, edit, receipts", async () => {
  assert.ok(existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium"), "Debian's chromium (extension/vscode/e2e/install.sh installs it)");
  const w = world();
  const server = await serve(w);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const dialogs = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
    const offsite = [];
    page.on("request", (r) => {
      if (new URL(r.url()).host !== server.url.host) offsite.push(r.url());
    });
    // Opens it: the token leaves the address bar for the cookie.
    await page.goto(server.url.href);
    assert.equal(new URL(page.url()).search, "", "the token left the address");
    await page.locator("#memories li").first().waitFor();
    assert.equal(await page.locator("#memories li").count(), 3, "two memories and a team memory");
    await shoot(page, "memories");

    // Searches as recall sees it.
    await page.click("button[data-tab=search]");
    await page.fill("#q", "how should I run the integration tests against postgres?");
    await page.click("#search-form button");
    await page.locator("#results li .name", { hasText: "real-database-in-tests.md" }).waitFor();
    // Why: the request's own words the memory shares.
    const why = page.locator("#results li", { hasText: "real-database-in-tests.md" }).locator("[data-test=why]");
    assert.match(await why.innerText(), /why: the request's words .*“integration”.*“tests”/);
    await shoot(page, "search");

    // Opens a memory and its history.
    await page.click("button[data-tab=memories]");
    await page.click("#memories li[data-path='real-database-in-tests.md']");
    await page.locator("[data-test=body]", { hasText: "Use the real database" }).waitFor();
    const history = page.locator("ul[data-test=history] li");
    assert.equal(await history.count(), 1, "the first version is its history");
    assert.match(await history.first().innerText(), /-Use mocks in integration tests\./);
    await page.click("[data-test=check]");
    await page.locator("#checked", { hasText: "Checked now" }).waitFor();
    await shoot(page, "memory");

    // A memory holding <script> shows it as text and runs nothing.
    await page.click("#memories li[data-path='deploy-window.md']");
    const body = page.locator("[data-test=body]");
    await body.filter({ hasText: "<script>" }).waitFor();
    assert.equal(await body.locator("script, img").count(), 0, "no element from the memory's text");
    assert.notEqual(await page.title(), "pwned");
    assert.deepEqual(dialogs, []);

    // A team memory shows the team's git log: who committed it, with the diff, as text.
    await page.click("#memories li[data-path='team/staging-url.md']");
    const commit = page.locator("ul[data-test=team-log] li").first();
    await commit.waitFor();
    assert.match(await commit.innerText(), /Where staging lives <img src=x onerror=.*> by Ana/);
    assert.equal(await page.locator("#team-log img, #team-log script").count(), 0);
    await commit.locator("summary").click();
    assert.match(await commit.locator("pre").innerText(), /\+Staging: https:\/\/staging\.example\.invalid/);
    assert.notEqual(await page.title(), "pwned");

    // Accepts one proposal and rejects another.
    await page.click("button[data-tab=review]");
    await page.locator("#proposals li[data-id]").nth(1).waitFor();
    await shoot(page, "review");
    await page.locator("#proposals li[data-id]", { hasText: "project_freeze.md" }).getByRole("button", { name: "Accept" }).click();
    await page.locator("#proposals li[data-id]", { hasText: "project_freeze.md" }).waitFor({ state: "detached" });
    await page.locator("#proposals li[data-id]", { hasText: "project_oncall.md" }).getByRole("button", { name: "Reject" }).click();
    await page.locator("#proposals li", { hasText: "Nothing waits for review" }).waitFor();
    assert.ok(existsSync(join(w.memory, "project_freeze.md")), "the accepted proposal is on disk");
    assert.ok(!existsSync(join(w.memory, "project_oncall.md")), "the rejected one is not");
    assert.match(readFileSync(join(w.memory, "MEMORY.md"), "utf8"), /project_freeze\.md/);

    // Edits a memory and sees the change on disk.
    await page.click("button[data-tab=memories]");
    await page.click("#memories li[data-path='real-database-in-tests.md']");
    await page.locator("#memory h2", { hasText: "real-database-in-tests" }).waitFor();
    const editor = page.locator("[data-test=editor]");
    await editor.fill("Use the real database in integration tests, in a container per run.\n\n**Why:** mocks hid a broken migration last quarter.\n\n**How to apply:** start the compose database before `cargo test`.\n");
    await page.click("[data-test=save]");
    await page.locator("#message", { hasText: "Saved" }).waitFor();
    assert.match(readFileSync(join(w.memory, "real-database-in-tests.md"), "utf8"), /in a container per run/);
    // The edit kept the version it replaced.
    await page.locator("ul[data-test=history] li").nth(1).waitFor();
    // Who wrote each version: this page, then the person at the CLI twice.
    const writes = page.locator("ul[data-test=writes] li");
    await writes.nth(2).waitFor();
    assert.deepEqual(await writes.locator("[data-test=by]").allInnerTexts(), ["person:workbench", "person:cli", "person:cli"]);
    assert.match(await writes.first().innerText(), /updated real-database-in-tests\.md/);

    // The timeline of every write, with who asked: the accepted proposal says where it came from.
    await page.click("button[data-tab=written]");
    // One tab at a time: the others are hidden, not stacked below.
    assert.deepEqual(await page.locator("section.tab:visible").evaluateAll((s) => s.map((x) => x.id)), ["tab-written"]);
    const accepted = page.locator("ul[data-test=timeline] li", { hasText: "project_freeze.md" });
    await accepted.waitFor();
    assert.match(await accepted.innerText(), /created project_freeze\.md by person:workbench[\s\S]*proposed by extraction, accepted in review/);
    await accepted.locator("summary").click();
    assert.match(await accepted.locator("pre").innerText(), /\+No merges during the freeze\./);
    await shoot(page, "written");

    // Sees the hook's receipt.
    await page.click("button[data-tab=receipts]");
    const receipt = page.locator("#receipts tbody tr", { hasText: "codex" });
    await receipt.first().waitFor();
    assert.match(await receipt.first().innerText(), /prompt[\s\S]*real-database-in-tests\.md/);
    await shoot(page, "receipts");

    // Every project's memory, with the switches and write policy in force there and the rule
    // that decided each: the other project is found from its memory directory's name.
    await page.click("button[data-tab=status]");
    const row = page.locator("#dirs tbody tr", { hasText: "other.app" });
    await row.waitFor();
    assert.match(await row.locator("[data-test=switches]").innerText(), /feedback off \(.+\)/);
    assert.match(await page.locator("#dirs tbody tr", { hasText: "this project" }).locator("[data-test=switches]").innerText(), /project review \(.+\)/);
    await shoot(page, "status");
    assert.deepEqual(offsite, [], "nothing left the machine");
  } finally {
    await browser.close();
    server.stop();
    w.done();
  }
});

test("the workbench refuses: no token, a foreign Host, a foreign Origin, a write under --read-only", async () => {
  const w = world();
  const open = await serve(w);
  const locked = await serve(w, ["--read-only"]);
  try {
    const token = open.url.searchParams.get("token");
    const host = open.url.host;
    const overview = new URL("/api/overview", open.url);
    const ok = await request(overview, { headers: { host, cookie: `memdir_ui=${token}` } });
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.headers["content-security-policy"], /default-src 'none'; script-src 'self'/);
    assert.equal(ok.headers["access-control-allow-origin"], undefined, "no CORS");

    assert.equal((await request(overview, { headers: { host } })).status, 401, "no token");
    assert.equal((await request(overview, { headers: { host, cookie: "memdir_ui=guess" } })).status, 401, "a wrong token");
    assert.equal((await request(overview, { headers: { host: `attacker.example:${open.url.port}`, cookie: `memdir_ui=${token}` } })).status, 403, "a foreign Host (DNS rebinding)");

    const file = join(w.memory, "real-database-in-tests.md");
    const before = readFileSync(file, "utf8");
    const edit = (url, cookieToken, origin) => request(new URL("/api/edit", url), {
      method: "POST",
      headers: { host: url.host, cookie: `memdir_ui=${cookieToken}`, ...(origin ? { origin } : {}), "content-type": "application/json" },
      body: JSON.stringify({ dir: w.memory, path: "real-database-in-tests.md", body: "Hijacked.\n\n**Why:** x.\n\n**How to apply:** x." }),
    });
    assert.equal((await edit(open.url, token, "http://attacker.example")).status, 403, "a foreign Origin");
    const noOrigin = await edit(open.url, token, undefined);
    assert.equal(noOrigin.status, 403, `no Origin: ${noOrigin.text}`);
    const lockedToken = locked.url.searchParams.get("token");
    assert.equal((await edit(locked.url, lockedToken, `http://${locked.url.host}`)).status, 403, "a write under --read-only");
    assert.equal(readFileSync(file, "utf8"), before, "nothing changed on disk");
    // The same edit from the page's own origin goes through.
    assert.equal((await edit(open.url, token, `http://${host}`)).status, 200);
    assert.match(readFileSync(file, "utf8"), /Hijacked/);
  } finally {
    open.stop();
    locked.stop();
    w.done();
  }
});
