// Runs the git commands a team sync asks for (issue 13): the user's own git, configuration,
// credentials and hooks, never a prompt. Local commands run synchronously: the core holds the
// writers' lock across them, and nothing else in this single-threaded host may run meanwhile.
// Commands that talk to the remote run asynchronously: the core has released the lock.

import { execFileSync, spawn } from "node:child_process";
import type { GitCommand, GitOutput } from "./core";

const LOCAL_TIMEOUT_MS = 60_000;
const NETWORK_TIMEOUT_MS = 300_000;
const MAX_OUTPUT = 64 * 1024 * 1024;

const env = () => ({ ...process.env, GIT_TERMINAL_PROMPT: "0", GCM_INTERACTIVE: "never" });

/** A local git command, to its end. */
export function runGitSync(command: GitCommand): GitOutput {
  try {
    const stdout = execFileSync("git", command.args, {
      cwd: command.cwd,
      input: command.stdin ?? "",
      encoding: "utf8",
      timeout: LOCAL_TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT,
      stdio: ["pipe", "pipe", "pipe"],
      env: env(),
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
  return new Promise((resolve) => {
    const child = spawn("git", command.args, { cwd: command.cwd, env: env(), stdio: ["pipe", "pipe", "pipe"] });
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
    const timer = setTimeout(() => child.kill("SIGKILL"), NETWORK_TIMEOUT_MS);
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
              ? `git ${command.args.join(" ")} took longer than ${NETWORK_TIMEOUT_MS / 1000}s and was stopped`
              : stderr,
      });
    });
    child.stdin.end(command.stdin ?? "");
  });
}
