// Builds the plugin: `@memdir/core` (packages/core-js, built first when its dist/ is missing)
// bundled with the plugin into one ES module, `dist/index.js`, with the core's wasm files
// beside it. opencode loads it as a local plugin (`file://…/dist/index.js` in its config).
//
//   node scripts/build.mjs
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const loader = path.resolve(here, "../core-js");
const run = (cmd, args, cwd = here) => execFileSync(cmd, args, { cwd, stdio: "inherit" });

if (!fs.existsSync(path.join(loader, "dist/index.js"))) {
  run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], loader);
  run("node", ["scripts/build.mjs"], loader);
}
run(path.join(here, "node_modules/.bin/tsc"), ["-p", "."]);

const dist = path.join(here, "dist");
fs.rmSync(dist, { recursive: true, force: true });
await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["src/index.ts"],
  outfile: "dist/index.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  // The loader is CommonJS: its require()s of Node's modules need a require in an ES module.
  banner: { js: 'import { createRequire as __memdirRequire } from "node:module"; const require = __memdirRequire(import.meta.url);' },
});
for (const file of fs.readdirSync(path.join(loader, "dist")).filter((f) => f.endsWith(".wasm"))) {
  fs.copyFileSync(path.join(loader, "dist", file), path.join(dist, file));
}
console.log("built @memdir/opencode in dist/");
