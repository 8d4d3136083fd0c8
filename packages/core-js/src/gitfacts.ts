// What git says about the project, for the evidence checks: the host only runs git (bounded in
// time and size) and hands the output to the core. No git, or not a repository: nothing.
//
// The project is a repository memdir does not own, and its configuration can name programs for
// git to start: a signature checker (`log.showSignature` with `gpg.program`), a pager, an
// external diff or textconv, an fsmonitor, hooks, and through a lazy fetch a credential helper,
// an askpass, an ssh command, an upload-pack or an `ext::` remote (issue 24, defect 3). These
// arguments and this environment override every one of them.
//
// The same lists, word for word, as GIT_SAFE_ARGS, GIT_SAFE_ENV, GIT_LS_FILES and GIT_LOG in
// guest/src/evidence.rs, which says why each is there: the core cannot hand them to this host
// without a change to the WIT interface, so cli/tests/git_config.rs compares the two
// and fails when they differ. Change both together.

import { execFileSync } from "node:child_process";
import type { GitFacts } from "./core";

export const GIT_SAFE_ARGS: readonly string[] = [
  "--no-pager",
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.pager=",
  "-c", "core.askPass=",
  "-c", "core.sshCommand=",
  "-c", "core.gitProxy=",
  "-c", "core.alternateRefsCommand=",
  "-c", "credential.helper=",
  "-c", "log.showSignature=false",
  "-c", "gpg.program=",
  "-c", "gpg.openpgp.program=",
  "-c", "gpg.x509.program=",
  "-c", "gpg.ssh.program=",
  "-c", "gpg.ssh.defaultKeyCommand=",
  "-c", "diff.external=",
  "-c", "submodule.recurse=false",
  "-c", "safe.bareRepository=explicit",
  "-c", "protocol.allow=never",
  "-c", "protocol.ext.allow=never",
  "-c", "protocol.fd.allow=never",
  "-c", "protocol.file.allow=never",
  "-c", "protocol.git.allow=never",
  "-c", "protocol.ssh.allow=never",
  "-c", "protocol.http.allow=never",
  "-c", "protocol.https.allow=never",
];

export const GIT_SAFE_ENV: Readonly<Record<string, string>> = {
  "GIT_OPTIONAL_LOCKS": "0",
  "GIT_NO_LAZY_FETCH": "1",
  "GIT_TERMINAL_PROMPT": "0",
};

export const GIT_LS_FILES: readonly string[] = ["ls-files", "-z"];

export const GIT_LOG: readonly string[] = [
  "log",
  "--no-show-signature",
  "--no-ext-diff",
  "--no-textconv",
  "--format=%x00%ct",
  "--name-only",
  "--no-renames",
  "-n",
  "2000",
];

/** The facts for the work tree at `workTree`. */
export function gitFacts(workTree: string): GitFacts {
  const run = (args: readonly string[]): string | undefined => {
    try {
      return execFileSync("git", ["-C", workTree, ...GIT_SAFE_ARGS, ...args], {
        encoding: "utf8",
        timeout: 10_000,
        maxBuffer: 32 * 1024 * 1024,
        stdio: ["ignore", "pipe", "ignore"],
        env: { ...process.env, ...GIT_SAFE_ENV },
      });
    } catch {
      return undefined;
    }
  };
  const listed = run(GIT_LS_FILES);
  if (listed === undefined) return { lsFiles: undefined, log: undefined };
  // NUL-separated so no path is quoted; a path holding a newline cannot be a line, and is left out.
  const lsFiles = listed.split("\0").filter((p) => p && !p.includes("\n")).join("\n");
  return { lsFiles, log: run(GIT_LOG) };
}
