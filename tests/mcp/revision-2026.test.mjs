// `memdir mcp` under the MCP revision of 2026-07-28, driven by the official TypeScript SDK's v2
// client package (`@modelcontextprotocol/client`, pinned to that revision): stateless, found
// through `server/discover`, no roots. The server is started for no project; each call names
// its project (issue 29, item 6). mcp.test.mjs drives the initialize handshake with the v1 SDK.
//
//   MEMDIR_BIN=target/debug/memdir node --test tests/mcp/revision-2026.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.resolve(repo, process.env.MEMDIR_BIN ?? "target/debug/memdir");
const REVISION = "2026-07-28";

/** The text of a tool result. */
const text = (result) => result.content.map((c) => c.text).join("\n");

test("2026-07-28: tools listed with a project argument, memory_recall and memory_save per project, answers structured", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-mcp-2026-"));
  const home = path.join(root, "home");
  const [shop, blog] = ["shop", "blog"].map((name) => path.join(root, name));
  for (const dir of [home, shop, blog]) fs.mkdirSync(dir);
  const env = { PATH: process.env.PATH, HOME: home };
  const memoryOf = (project) => execFileSync(bin, ["path", "--cwd", project], { env, encoding: "utf8" }).trim();
  execFileSync(bin, ["save", "--cwd", shop, "--type", "project", "--name", "deploys",
    "--description", "the shop deploys from the release branch through the staging cluster",
    "--body", "Deploys go from the release branch to the staging cluster, then to production.\n\n**Why:** staging catches migrations.\n\n**How to apply:** never deploy main directly."], { env });

  // Started for no project: not in one, no --cwd.
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], cwd: root, env, stderr: "pipe" });
  const client = new Client({ name: "memdir-2026-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: REVISION } } });
  try {
    await client.connect(transport);
    assert.equal(client.getNegotiatedProtocolVersion(), REVISION);

    const { tools } = await client.listTools();
    // The everyday four (issue 47): memory_list, called below, answers though it is not listed.
    assert.equal(tools.length, 4);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.properties?.project?.type, "string", `${tool.name} takes a project`);
    }

    const recalled = await client.callTool({ name: "memory_recall", arguments: { query: "how do we deploy the shop to production?", project: shop } });
    assert.equal(recalled.isError, false, JSON.stringify(recalled));
    const paths = recalled.structuredContent.memories.map((m) => m.path);
    assert.deepEqual(paths, ["deploys.md"], JSON.stringify(recalled.structuredContent));
    assert.match(recalled.structuredContent.memories[0].text, /staging cluster/);

    // Issue 44: a call reaches only what the person put in reach. A folder with no memory yet,
    // the home folder and `/` are refused with what the person can do; nothing is created.
    const draft = { type: "user", name: "ana", description: "Ana writes the blog", body: "Ana writes the blog." };
    for (const project of [blog, home, "/", path.join(home, ".ssh")]) {
      if (!fs.existsSync(project)) fs.mkdirSync(project);
      const refused = await client.callTool({ name: "memory_save", arguments: { ...draft, project } });
      assert.equal(refused.isError, true, `${project}: ${JSON.stringify(refused)}`);
      assert.match(text(refused), /A call cannot move memdir elsewhere/);
      assert.match(text(refused), /memdir save --cwd/);
    }
    assert.ok(!fs.existsSync(memoryOf(blog)), "no memory directory made for the blog");
    assert.ok(!fs.existsSync(path.join(home, ".claude", "projects")) || fs.readdirSync(path.join(home, ".claude", "projects")).length === 1);
    // The person starts memory there from a terminal; then the agent may use it.
    execFileSync(bin, ["save", "--cwd", blog, "--type", "user", "--name", "ana", "--description", "Ana writes the blog", "--body", "Ana writes the blog."], { env });

    // Another project in the same connection: its own memory, nothing of the shop's.
    const saved = await client.callTool({ name: "memory_save", arguments: {
      type: "feedback", name: "drafts", description: "blog drafts stay in drafts/ until Ana reviews them",
      body: "Keep drafts in drafts/ until Ana reviews them.\n\n**Why:** she edits before publishing.\n\n**How to apply:** never move a draft to posts/ yourself.",
      project: blog,
    } });
    assert.equal(saved.isError, false, JSON.stringify(saved));
    assert.ok(fs.existsSync(path.join(memoryOf(blog), saved.structuredContent.path)), "saved in the blog's memory");
    assert.ok(!fs.existsSync(path.join(memoryOf(shop), saved.structuredContent.path)), "not in the shop's");
    const blogRecall = await client.callTool({ name: "memory_recall", arguments: { query: "how do we deploy to production?", project: blog } });
    assert.deepEqual(blogRecall.structuredContent.memories.map((m) => m.path), []);

    // A call's project does not outlast it: without one, the server's own folder again.
    const listed = await client.callTool({ name: "memory_list", arguments: {} });
    assert.doesNotMatch(JSON.stringify(listed), /drafts|deploys/);

    // A project that is not an absolute folder is refused, saying what to send.
    for (const project of ["shop", path.join(root, "nowhere"), 7]) {
      await assert.rejects(
        client.callTool({ name: "memory_list", arguments: { project } }),
        (e) => /"project" (must be|names no folder)/.test(e.message),
      );
    }
  } finally {
    await client.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
