// Which copy of the loader the tests load: this checkout's build (`dist/`), or the package as a
// user installs it from its tarball (`MEMDIR_CORE_JS=<prefix>/node_modules/@memdir/core`,
// what `scripts/test` does after `npm pack`). The tests themselves stay in the repository,
// beside the conformance cases and the CLI they use.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** The repository: conformance cases, fixtures, `target/debug/memdir`. */
export const repo = path.resolve(here, "../../..");
/** The package's folder. */
export const packageDir = path.resolve(process.env.MEMDIR_CORE_JS || path.resolve(here, ".."));
/** Where its bundle and the core's wasm files are. */
export const dist = path.join(packageDir, "dist");
/** The package, loaded by its name's entry point (`main` in package.json). */
export const core = createRequire(import.meta.url)(packageDir);
/** The memdir CLI the lock tests race against. */
export const memdirBin = path.join(repo, "target/debug/memdir");

const scratchDirs = [];
process.on("exit", () => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new directory under the system's temporary one, removed when the process ends. */
export function scratch(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}
