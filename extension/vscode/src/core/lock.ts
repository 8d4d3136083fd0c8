// The writers' lock, shared with every other memdir host. The harness takes `flock` on the
// lock file; Node has no flock, so a helper process holds it: `flock(1)` takes the lock and
// runs a shell that signals readiness through a file, then waits. Releasing kills the helper's
// process group, which drops the lock at once; if the extension host dies, the helper notices
// within a second and exits. Where `flock(1)` is missing (macOS), the lock is only held
// against this process's own writers, which the single-threaded extension host serialises.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

let helperMissing = false;

export class Lock {
  private constructor(private readonly pid: number | undefined) {}

  /** Takes the lock on `file`, waiting at most `timeoutMs`; undefined on timeout. */
  static acquire(file: string, timeoutMs: number): Lock | undefined {
    if (helperMissing) return new Lock(undefined);
    const ready = path.join(os.tmpdir(), `memdir-lock-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const script = `: > "$1"; while kill -0 "$2" 2>/dev/null; do sleep 1; done`;
    const seconds = Math.max(timeoutMs / 1000, 0.001).toFixed(3);
    const child = spawn("flock", ["-x", "-w", seconds, file, "sh", "-c", script, "sh", ready, String(process.pid)], {
      detached: true,
      stdio: "ignore",
    });
    child.on("error", () => {});
    if (child.pid === undefined) {
      helperMissing = true;
      return new Lock(undefined);
    }
    child.unref();
    const deadline = Date.now() + timeoutMs + 1000;
    try {
      while (!fs.existsSync(ready)) {
        if (Date.now() > deadline || child.exitCode !== null) {
          Lock.kill(child.pid);
          return undefined;
        }
        sleep(2);
      }
    } finally {
      fs.rmSync(ready, { force: true });
    }
    return new Lock(child.pid);
  }

  release(): void {
    if (this.pid !== undefined) Lock.kill(this.pid);
  }

  private static kill(pid: number): void {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
