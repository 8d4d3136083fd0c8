// A newcomer's walk-through (issue 47): the README's `console` blocks marked
// `<!-- walkthrough: NAME -->`, run in order as a new user would, with the memdir given on the
// command line (the one npm installed), in a fresh HOME and a fresh git project at ~/project.
// Each block's first line is the command (`$ memdir …`), the rest what it must print. The
// README writes HOME as /home/you, so the same text holds wherever this runs.
//
//   node packages/npm/walkthrough.mjs PATH/TO/memdir
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const memdir = process.argv[2] && path.resolve(process.argv[2]);
if (!memdir) throw new Error("usage: walkthrough.mjs PATH/TO/memdir");
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
const blocks = [...readme.matchAll(/<!-- walkthrough: ([\w-]+) -->\n```console\n([\s\S]*?)```/g)].map((m) => {
  const [command, ...expected] = m[2].trimEnd().split("\n");
  if (!command.startsWith("$ memdir ")) throw new Error(`${m[1]}: a block starts with "$ memdir …": ${command}`);
  return { name: m[1], args: command.slice("$ memdir ".length).split(" "), expected: expected.join("\n") };
});
if (blocks.length < 2) throw new Error(`the README has ${blocks.length} walk-through blocks`);

// Letters and digits only after the prefix, so the memory folder's name is HOME's with `-`.
const home = fs.mkdtempSync(path.join(os.tmpdir(), "memdirwalk"));
try {
  const project = path.join(home, "project");
  fs.mkdirSync(project);
  execFileSync("git", ["init", "-q"], { cwd: project });
  const env = { HOME: home, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
  let failed = 0;
  for (const { name, args, expected } of blocks) {
    const printed = execFileSync(memdir, args, { cwd: project, env, encoding: "utf8" })
      .trimEnd()
      .replaceAll(home, "/home/you")
      .replaceAll(home.replaceAll("/", "-"), "-home-you");
    if (printed === expected) continue;
    failed++;
    console.error(`walk-through: \`memdir ${args.join(" ")}\` (${name}) printed:\n${printed}\n--- the README says:\n${expected}`);
  }
  if (failed) process.exit(1);
  console.log(`walk-through: the README's ${blocks.length} steps print what it says: ${blocks.length} passed, 0 failed`);
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}
