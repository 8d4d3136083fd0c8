// Builds the extension: the loader package `@memdir/core` (packages/core-js, built first when
// its dist/ is missing), type-checked against, bundled with the extension to CommonJS by
// esbuild into `dist/`, the core's wasm files beside it.
//
//   node scripts/build.mjs
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const loader = path.resolve(here, "../../packages/core-js");
const bin = (name) => path.join(here, "node_modules/.bin", name);
const run = (cmd, args, cwd = here) => execFileSync(cmd, args, { cwd, stdio: "inherit" });

if (!fs.existsSync(path.join(loader, "dist/index.js"))) {
  run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], loader);
  run("node", ["scripts/build.mjs"], loader);
}

run(bin("tsc"), ["-p", "."]);

const dist = path.join(here, "dist");
fs.rmSync(dist, { recursive: true, force: true });
await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  external: ["vscode"],
});
const core = path.join(loader, "dist");
for (const file of fs.readdirSync(core).filter((f) => f.endsWith(".wasm"))) {
  fs.copyFileSync(path.join(core, file), path.join(dist, file));
}
console.log("built dist/");
