// Builds the extension: the memory core (cargo, unless MEMDIR_CORE_WASM names a built one),
// transpiled by the pinned jco into `generated/`, type-checked, bundled to CommonJS by esbuild
// into `dist/` with the core's wasm files beside it.
//
//   node scripts/build.mjs
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repo = path.resolve(here, "../..");
const bin = (name) => path.join(here, "node_modules/.bin", name);
const run = (cmd, args, cwd = here) => execFileSync(cmd, args, { cwd, stdio: "inherit" });

let wasm = process.env.MEMDIR_CORE_WASM;
if (!wasm) {
  // The same build the harness's build.rs runs, in the same target directory.
  const targetDir = path.join(repo, "target/guest");
  run("cargo", ["build", "--locked", "--profile", "guest", "-p", "memdir-core", "--target", "wasm32-wasip2", "--target-dir", targetDir], repo);
  wasm = path.join(targetDir, "wasm32-wasip2/guest/memdir_core.wasm");
}

const generated = path.join(here, "generated");
fs.rmSync(generated, { recursive: true, force: true });
run(bin("jco"), ["transpile", wasm, "-o", generated, "--name", "memdir-core", "--instantiation", "sync", "--no-namespaced-exports", "--quiet"]);

run(bin("tsc"), ["-p", "."]);

const dist = path.join(here, "dist");
fs.rmSync(dist, { recursive: true, force: true });
const common = { bundle: true, platform: "node", format: "cjs", target: "node20", sourcemap: true, logLevel: "warning" };
await esbuild.build({ ...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", external: ["vscode"] });
// The loader alone, for the conformance replay and other Node hosts.
await esbuild.build({ ...common, entryPoints: ["src/core/index.ts"], outfile: "dist/core.js" });
for (const file of fs.readdirSync(generated).filter((f) => f.endsWith(".wasm"))) {
  fs.copyFileSync(path.join(generated, file), path.join(dist, file));
}
console.log(`built dist/ (core ${(fs.statSync(wasm).size / 1024).toFixed(0)} KiB)`);
