// Builds the package: the memory core (cargo, unless MEMDIR_CORE_WASM names a built one),
// transpiled by the pinned jco into `generated/`, its declarations emitted by tsc, and the
// loader bundled to CommonJS by esbuild into `dist/index.js` with the core's wasm files beside
// it (the loader finds them next to itself).
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

const dist = path.join(here, "dist");
fs.rmSync(dist, { recursive: true, force: true });
// Type-checks, and writes the declarations users of the package compile against; jco's own
// declarations go beside them, where the loader's import them from.
run(bin("tsc"), ["-p", "."]);
fs.cpSync(generated, path.join(dist, "types/generated"), { recursive: true, filter: (f) => !f.endsWith(".wasm") && !f.endsWith(".js") });
await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["src/index.ts"],
  outfile: "dist/index.js",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  logLevel: "warning",
});
for (const file of fs.readdirSync(generated).filter((f) => f.endsWith(".wasm"))) {
  fs.copyFileSync(path.join(generated, file), path.join(dist, file));
}
console.log(`built @memdir/core in dist/ (core ${(fs.statSync(wasm).size / 1024).toFixed(0)} KiB)`);
