// Copilot's agent hooks (issue 26): at session start the index, at stop an extraction, run by
// the `memdir` CLI. The CLI owns the hook file's format (`memdir setup --client copilot`); the
// extension only finds the binary and asks it, once per window, so a user of the extension gets
// automatic memory in Copilot's agent without a terminal step.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";

/** How long setup may take before the extension stops waiting for it. */
const SETUP_TIMEOUT_MS = 30_000;

export function installCopilotHooks(log: vscode.LogOutputChannel): void {
  const config = vscode.workspace.getConfiguration("memdir");
  if (!config.get<boolean>("copilotHooks", true)) return;
  // A machine setting (package.json): a repository's settings cannot choose what runs.
  const program = findMemdir(config.inspect<string>("cliPath")?.globalValue ?? "", process.env.PATH ?? "");
  if (!program) {
    log.info("memdir: no memdir CLI on PATH (nor memdir.cliPath): Copilot's hooks are not installed; its agent recalls through memdir's tools");
    return;
  }
  execFile(program, ["setup", "--client", "copilot", "--yes"], { timeout: SETUP_TIMEOUT_MS }, (error, stdout, stderr) => {
    const said = `${stdout}${stderr}`.trim().replace(/\n/g, "; ");
    if (error) log.warn(`memdir: Copilot's hooks: ${program} setup failed: ${said || error.message}`);
    else log.info(`memdir: Copilot's hooks: ${said}`);
  });
}

/** `memdir.cliPath` when it names a program, else the first `memdir` on PATH. */
export function findMemdir(configured: string, searchPath: string): string | undefined {
  const runnable = (file: string) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (configured) return path.isAbsolute(configured) && runnable(configured) ? configured : undefined;
  const names = process.platform === "win32" ? ["memdir.exe"] : ["memdir"];
  for (const dir of searchPath.split(path.delimiter)) {
    // An empty or relative PATH entry means the working directory: a repository's own folder.
    if (!dir || !path.isAbsolute(dir)) continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (runnable(candidate)) return candidate;
    }
  }
  return undefined;
}
