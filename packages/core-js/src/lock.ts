// The writers' lock, one protocol for every memdir host on every platform. The harness's
// `host-harness/src/lock.rs` describes it in full. In short: the lock is held by whoever
// created `.memdir.lock` exclusively (`wx`). The file holds the holder's record, and release
// removes the file if it still holds our token. A waiter breaks a stale lock under
// `.memdir.lock.break`:
// - a holder on this host whose process is gone;
// - a file not refreshed for 10 s;
// - an unreadable record older than 2 s.
//
// No native module and no helper process are involved. This host's holds are synchronous, so
// they need no refreshing.

import * as fs from "node:fs";
import * as os from "node:os";
import { randomBytes } from "node:crypto";

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

export const STALE_AFTER_MS = 10_000;
export const UNREADABLE_AFTER_MS = 2_000;
const MAGIC = "memdir-lock 1";

interface Record {
  pid: number;
  host: string;
  sinceMs: number;
  token: string;
}

const line = (r: Record) => `${MAGIC} pid=${r.pid} host=${r.host} since=${r.sinceMs} token=${r.token}\n`;

function parse(text: string): Record | undefined {
  const first = text.split("\n")[0];
  if (!first.startsWith(MAGIC)) return undefined;
  const field = (key: string) => first.slice(MAGIC.length).trim().split(/\s+/).find((f) => f.startsWith(`${key}=`))?.slice(key.length + 1);
  const [pid, host, since, token] = [field("pid"), field("host"), field("since"), field("token")];
  if (!pid || !/^\d+$/.test(pid) || !host || !since || !/^-?\d+$/.test(since) || !token) return undefined;
  return { pid: Number(pid), host, sinceMs: Number(since), token };
}

/** The host name as the harness computes it (gethostname), without spaces. */
const hostName = () => os.hostname().replace(/\s+/g, "");

function readRecord(file: string): Record | undefined {
  try {
    if (!fs.lstatSync(file).isFile()) return undefined;
    const fd = fs.openSync(file, "r");
    try {
      const buf = Buffer.alloc(4096);
      return parse(buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString("utf8"));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

const ageMs = (stat: fs.Stats) => Date.now() - stat.mtimeMs;

/** Who holds the lock, or undefined when it is stale. */
function holder(record: Record | undefined, stat: fs.Stats): string | undefined {
  if (!record) return ageMs(stat) < UNREADABLE_AFTER_MS ? "a writer that is just starting" : undefined;
  if (ageMs(stat) >= STALE_AFTER_MS) return undefined;
  if (record.host === hostName() && !alive(record.pid)) return undefined;
  return `process ${record.pid} on ${record.host}`;
}

function breakStale(file: string, judged: Record | undefined): void {
  const breaker = `${file}.break`;
  let fd: number;
  try {
    fd = fs.openSync(breaker, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    // Another waiter is breaking it; a breaker that died leaves its file, old.
    try {
      if (ageMs(fs.lstatSync(breaker)) >= UNREADABLE_AFTER_MS) fs.rmSync(breaker, { force: true });
    } catch {
      // gone meanwhile
    }
    return;
  }
  fs.closeSync(fd);
  try {
    if (JSON.stringify(readRecord(file)) === JSON.stringify(judged)) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** One attempt: the lock, or who holds it. Throws for a lock file that is not a regular file. */
function tryAcquire(file: string): Lock | string {
  for (let i = 0; i < 3; i++) {
    const record: Record = { pid: process.pid, host: hostName(), sinceMs: Date.now(), token: randomBytes(16).toString("hex") };
    try {
      const fd = fs.openSync(file, "wx");
      try {
        fs.writeSync(fd, line(record));
      } finally {
        fs.closeSync(fd);
      }
      return new Lock(file, record.token);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(file);
    } catch {
      continue; // released meanwhile
    }
    // Never read a FIFO (it would block) nor follow a link.
    if (!stat.isFile()) throw new Error("not a regular file; memdir locks only a regular file");
    const current = readRecord(file);
    const who = holder(current, stat);
    if (who !== undefined) return who;
    breakStale(file, current);
  }
  return "a writer that keeps taking it";
}

export class Lock {
  constructor(
    private readonly file: string,
    private readonly token: string,
  ) {}

  /** Takes the lock on `file`, waiting at most `timeoutMs`; who holds it on timeout. */
  static acquire(file: string, timeoutMs: number): Lock | string {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = tryAcquire(file);
      if (got instanceof Lock || Date.now() >= deadline) return got;
      sleep(5);
    }
  }

  release(): void {
    // Only our own: a lock broken as stale and taken by another writer is theirs now.
    if (readRecord(this.file)?.token === this.token) fs.rmSync(this.file, { force: true });
  }
}
