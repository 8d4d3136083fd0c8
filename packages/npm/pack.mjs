// Packs the npm distribution of the memdir CLI: the `memdir` package (a launcher, the opencode
// plugin as a dependency) and one `@memdir/cli-<os>-<cpu>` package per binary given, made from
// platforms.json. The launcher's optional dependencies must name exactly those platforms.
//
//   node pack.mjs --out DIR --binary linux-x64=target/release/memdir [--binary OS-CPU=PATH …]
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const launcher = JSON.parse(fs.readFileSync(path.join(here, "memdir/package.json"), "utf8"));
const { platforms } = JSON.parse(fs.readFileSync(path.join(here, "platforms.json"), "utf8"));
const name = (p) => `@memdir/cli-${p.os}-${p.cpu}`;

const args = process.argv.slice(2);
let out;
const binaries = new Map();
for (let i = 0; i < args.length; i += 2) {
  if (args[i] === "--out") out = path.resolve(args[i + 1]);
  else if (args[i] === "--binary") {
    const [key, file] = args[i + 1].split(/=(.*)/s);
    binaries.set(key, path.resolve(file));
  } else throw new Error(`pack.mjs: unknown argument ${args[i]}`);
}
if (!out) throw new Error("pack.mjs: --out DIR is required");

const declared = Object.entries(launcher.optionalDependencies).sort().map(([n, v]) => `${n}@${v}`);
const expected = platforms.map((p) => `${name(p)}@${launcher.version}`).sort();
if (JSON.stringify(declared) !== JSON.stringify(expected)) {
  throw new Error(`memdir/package.json's optionalDependencies ${declared} do not match platforms.json ${expected}`);
}

fs.mkdirSync(out, { recursive: true });
const pack = (dir) => execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim();
const packed = [];
for (const [key, file] of binaries) {
  const platform = platforms.find((p) => `${p.os}-${p.cpu}` === key);
  if (!platform) throw new Error(`pack.mjs: ${key} is not in platforms.json`);
  const stage = fs.mkdtempSync(path.join(out, ".stage-"));
  fs.copyFileSync(file, path.join(stage, platform.binary));
  fs.chmodSync(path.join(stage, platform.binary), 0o755);
  for (const licence of ["LICENSE-MIT", "LICENSE-APACHE"]) fs.copyFileSync(path.join(here, "memdir", licence), path.join(stage, licence));
  const manifest = {
    name: name(platform),
    version: launcher.version,
    description: `The memdir binary for ${platform.os} on ${platform.cpu} (${platform.target}); install \`memdir\`, which runs it.`,
    license: launcher.license,
    repository: launcher.repository,
    os: [platform.os],
    cpu: [platform.cpu],
    files: [platform.binary, "LICENSE-MIT", "LICENSE-APACHE"],
  };
  fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  packed.push(pack(stage));
  fs.rmSync(stage, { recursive: true, force: true });
}
packed.push(pack(path.join(here, "memdir")));
console.log(packed.join("\n"));
