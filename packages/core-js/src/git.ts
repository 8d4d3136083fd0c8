// Runs the git commands the core asks for (a team sync, issue 13; `check` reading the project's
// history): the user's own git, configuration, credentials and hooks, never a prompt, with the
// command's own environment over the process's. Local commands run synchronously: the core holds the
// writers' lock across them, and nothing else in this single-threaded host may run meanwhile.
// Commands that talk to the remote run asynchronously: the core has released the lock.

import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { GitCommand, GitOutput } from "./core";

/** How much a command may print; more is an error, never cut silently. */
const MAX_OUTPUT = 32 * 1024 * 1024;

let found: string | undefined | null = null;

/**
 * The git program: the first on PATH among its absolute entries. A command runs in a directory
 * whose files others wrote (a project, synced team memory); a relative entry (`.`, an empty
 * one), or Windows' search of the working directory, would find a `git` planted there.
 */
function gitProgram(): string | undefined {
  if (found === null) {
    const name = process.platform === "win32" ? "git.exe" : "git";
    found = (process.env.PATH ?? "")
      .split(path.delimiter)
      .filter((dir) => path.isAbsolute(dir))
      .map((dir) => path.join(dir, name))
      .find((file) => fs.statSync(file, { throwIfNoEntry: false })?.isFile());
  }
  return found;
}

const notFound = (): GitOutput => ({ status: undefined, stdout: "", stderr: "could not run git: no git on PATH" });

const env = (command: GitCommand) => ({
  ...process.env,
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  ...Object.fromEntries(command.env),
});

/** A local git command, to its end. */
export function runGitSync(command: GitCommand): GitOutput {
  const git = gitProgram();
  if (!git) return notFound();
  try {
    const stdout = execFileSync(git, command.args, {
      cwd: command.cwd,
      input: command.stdin ?? "",
      encoding: "utf8",
      timeout: command.timeoutMs,
      maxBuffer: MAX_OUTPUT,
      stdio: ["pipe", "pipe", "pipe"],
      env: env(command),
    });
    return { status: 0, stdout, stderr: "" };
  } catch (e) {
    const failed = e as { status?: number | null; stdout?: string; stderr?: string; message: string };
    if (typeof failed.status === "number") {
      return { status: failed.status, stdout: String(failed.stdout ?? ""), stderr: String(failed.stderr ?? "") };
    }
    return { status: undefined, stdout: "", stderr: `could not run git: ${failed.message}` };
  }
}

/** A git command that talks to the remote, without blocking the extension host. */
export function runGitAsync(command: GitCommand): Promise<GitOutput> {
  const git = gitProgram();
  if (!git) return Promise.resolve(notFound());
  return new Promise((resolve) => {
    const child = spawn(git, command.args, { cwd: command.cwd, env: env(command), stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    child.stdout.on("data", (b: Buffer) => {
      // Output past the cap is an error, never cut silently: the core scans it for secrets.
      size += b.length;
      if (size > MAX_OUTPUT) child.kill("SIGKILL");
      else out.push(b);
    });
    child.stderr.on("data", (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill("SIGKILL"), command.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ status: undefined, stdout: "", stderr: `could not run git: ${e.message}` });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString("utf8");
      resolve({
        status: size > MAX_OUTPUT ? undefined : (code ?? undefined),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr:
          size > MAX_OUTPUT
            ? `git ${command.args.join(" ")} printed more than ${MAX_OUTPUT >> 20} MiB`
            : code === null
              ? `git ${command.args.join(" ")} took longer than ${command.timeoutMs / 1000}s and was stopped`
              : stderr,
      });
    });
    // A git that exits before reading its input (one that needs none, or failed at once)
    // closes the pipe: its exit status says what happened, and the EPIPE would otherwise be
    // an uncaught exception in the host.
    child.stdin.on("error", () => {});
    child.stdin.end(command.stdin ?? "");
  });
}
