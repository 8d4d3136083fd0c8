// What the galleries show of the .vsix (issue 29, item 5): the VS Code Marketplace and Open VSX
// read the package's manifest for the icon, banner, categories, keywords, repository, licence
// and changelog. Both publishing tools accept the package without uploading it: vsce reads it
// back (`generate-manifest`, what signing starts from), and ovsx runs its whole publish against
// a registry on loopback that keeps what it receives.
//
//   node --test test/gallery.test.mjs   (after `vsce package --out memdir.vsix`)
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vsix = path.join(here, "memdir.vsix");
const bin = (name) => path.join(here, "node_modules/.bin", name);
const entry = (name) => execFileSync("unzip", ["-p", vsix, name], { maxBuffer: 64 << 20 });
const manifest = entry("extension.vsixmanifest").toString("utf8");
const property = (id) => new RegExp(`<Property Id="${id.replace(/\./g, "\\.")}" Value="([^"]*)"`).exec(manifest)?.[1];
const asset = (type) => new RegExp(`<Asset Type="${type.replace(/\./g, "\\.")}" Path="([^"]+)"`).exec(manifest)?.[1];

test("the manifest carries what both galleries show", () => {
  const icon = /<Icon>([^<]+)<\/Icon>/.exec(manifest)?.[1];
  assert.ok(icon, "an icon");
  const png = entry(icon);
  assert.deepEqual([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(""), "PNG", "a PNG (the Marketplace refuses SVG icons)");
  assert.ok(png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128, "at least 128×128");
  assert.match(property("Microsoft.VisualStudio.Services.Branding.Color"), /^#[0-9A-Fa-f]{6}$/, "a gallery banner colour");
  assert.match(property("Microsoft.VisualStudio.Services.Branding.Theme"), /^(dark|light)$/);
  assert.ok(/<Categories>[^<]+<\/Categories>/.test(manifest), "categories");
  assert.match(/<Tags>([^<]+)<\/Tags>/.exec(manifest)?.[1] ?? "", /\bmemory\b/, "keywords");
  assert.match(property("Microsoft.VisualStudio.Services.Links.Repository") ?? "", /^https:\/\//, "the repository");
  const licence = asset("Microsoft.VisualStudio.Services.Content.License");
  assert.match(entry(licence).toString("utf8"), /MIT|Apache/, "the licence");
  const changelog = asset("Microsoft.VisualStudio.Services.Content.Changelog");
  const pkg = JSON.parse(entry("extension/package.json"));
  assert.match(entry(changelog).toString("utf8"), new RegExp(`^## ${pkg.version.replace(/\./g, "\\.")}$`, "m"));
});

test("vsce reads the package back", () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-vsce-"));
  const out = path.join(scratch, "memdir.manifest");
  execFileSync(bin("vsce"), ["generate-manifest", "--packagePath", vsix, "--out", out], { stdio: "pipe" });
  const signed = JSON.parse(fs.readFileSync(out, "utf8"));
  fs.rmSync(scratch, { recursive: true, force: true });
  // Entry names are base64: every file of the package, the icon among them.
  const names = Object.keys(signed.entries).map((k) => Buffer.from(k, "base64").toString("utf8"));
  assert.ok(names.includes("extension/images/icon.png"), names.join(", "));
  assert.equal(signed.package.size, fs.statSync(vsix).size);
});

test("ovsx publishes it, to a registry on loopback", async () => {
  const received = [];
  const registry = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received.push({ method: req.method, url: req.url, body: Buffer.concat(chunks) });
      res.writeHead(req.url.startsWith("/api/-/publish") ? 201 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify({ namespace: "memdir", name: "memdir", version: "0.3.0", success: "created" }));
    });
  });
  await new Promise((ok) => registry.listen(0, "127.0.0.1", ok));
  try {
    const url = `http://127.0.0.1:${registry.address().port}`;
    const status = await new Promise((ok, fail) => {
      const child = spawn(bin("ovsx"), ["publish", "--packagePath", vsix, "--registryUrl", url, "--pat", "loopback"], { stdio: "ignore" });
      child.on("error", fail);
      child.on("exit", ok);
    });
    assert.equal(status, 0, "ovsx accepted the package");
    const upload = received.find((r) => r.method === "POST" && r.url.startsWith("/api/-/publish"));
    assert.ok(upload, "it uploaded to the loopback registry");
    assert.ok(upload.body.equals(fs.readFileSync(vsix)), "the package as built");
  } finally {
    await new Promise((ok) => registry.close(ok));
  }
});
