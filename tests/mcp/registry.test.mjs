// The MCP registry's view of memdir (issue 29, item 4): `server.json` at the repository's root
// checked against the fields and rules the registry documents (its schema, 2025-12-11, and its
// publishing requirements). No package ships that schema, and nothing here may download it, so
// the rules are written out below. The package it names must be the one `packages/npm` builds,
// with the `mcpName` the registry verifies, and the README carries the visible `mcp-name:` line.
//
//   node --test tests/mcp/registry.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file) => fs.readFileSync(path.join(repo, file), "utf8");
const server = JSON.parse(read("server.json"));
const npm = JSON.parse(read("packages/npm/memdir/package.json"));
const cargoVersion = /^version = "(.+)"$/m.exec(read("Cargo.toml"))[1];
const cargoRepository = /^repository = "(.+)"$/m.exec(read("Cargo.toml"))[1];

/** A version the registry accepts: a specific one, no range, not `latest`. */
const specific = (v) => typeof v === "string" && v.length > 0 && v !== "latest" && !/[\^~<>=*x|\s]/.test(v.replace(/-.*$/, ""));

test("server.json has the fields the registry requires, within its limits", () => {
  assert.match(server.$schema, /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/);
  assert.match(server.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, "reverse-DNS namespace, one slash, a name");
  assert.ok(server.name.length >= 3 && server.name.length <= 200);
  assert.ok(server.name.startsWith("io.github."), "a GitHub namespace, which the registry verifies by login");
  assert.equal(typeof server.description, "string");
  assert.ok(server.description.length >= 1 && server.description.length <= 100, `description is ${server.description.length} characters`);
  assert.ok(specific(server.version));
  assert.equal(server.version, cargoVersion, "the server's version is memdir's");
  assert.deepEqual(Object.keys(server.repository).sort(), ["source", "url"]);
  assert.equal(server.repository.url, cargoRepository, "the repository is the one Cargo.toml names");
  const allowed = new Set(["$schema", "name", "title", "description", "version", "repository", "websiteUrl", "packages", "remotes", "icons", "_meta"]);
  for (const key of Object.keys(server)) assert.ok(allowed.has(key), `unknown top-level key ${key}`);
});

test("each package is on a registry the official registry trusts, pinned, over stdio", () => {
  const bases = { npm: "https://registry.npmjs.org", pypi: "https://pypi.org" };
  const allowed = new Set(["registryType", "registryBaseUrl", "identifier", "version", "fileSha256", "runtimeHint", "transport", "runtimeArguments", "packageArguments", "environmentVariables"]);
  assert.ok(server.packages.length >= 1);
  for (const pkg of server.packages) {
    for (const key of Object.keys(pkg)) assert.ok(allowed.has(key), `unknown package key ${key}`);
    for (const key of ["registryType", "identifier", "version", "transport"]) assert.ok(pkg[key], `package lacks ${key}`);
    assert.ok(pkg.registryType in bases, `registryType ${pkg.registryType}`);
    if (pkg.registryBaseUrl) assert.equal(pkg.registryBaseUrl, bases[pkg.registryType]);
    assert.ok(specific(pkg.version), `version ${pkg.version}`);
    assert.deepEqual(pkg.transport, { type: "stdio" });
    for (const arg of [...(pkg.packageArguments ?? []), ...(pkg.runtimeArguments ?? [])]) {
      assert.ok(["positional", "named"].includes(arg.type));
      if (arg.type === "positional") assert.ok(arg.value || arg.valueHint, "a positional argument has a value or a hint");
      if (arg.type === "named") assert.match(arg.name, /^-/);
    }
    if (pkg.runtimeArguments) assert.ok(pkg.runtimeHint, "runtimeArguments need a runtimeHint");
  }
});

test("the npm package is the one packages/npm builds, proves ownership with mcpName, and runs the server", () => {
  const [pkg] = server.packages.filter((p) => p.registryType === "npm");
  assert.equal(pkg.identifier, npm.name);
  assert.equal(pkg.version, npm.version);
  assert.equal(npm.mcpName, server.name, "the registry checks package.json's mcpName against server.json's name");
  assert.ok(npm.bin?.memdir, "npx memdir runs the launcher");
  assert.deepEqual(pkg.packageArguments.map((a) => a.value), ["mcp"], "the command the client runs is `memdir mcp`");
});

test("the README carries the visible mcp-name line", () => {
  const line = read("README.md").split("\n").find((l) => l.includes("mcp-name:"));
  assert.ok(line, "README.md has an mcp-name: line");
  assert.match(line, new RegExp(`mcp-name: ${server.name.replace(/[.]/g, "\\.")}(\\s|$)`));
  assert.ok(!/^\s*<!--/.test(line), "visible, not in a comment");
});
