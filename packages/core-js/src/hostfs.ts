// The `host-fs` import on Node's `fs`, confined to the roots the extension grants: the same
// rules as the harness's ConfinedFs. Paths are absolute; after every link is resolved a path
// must lie in a granted root, and writes only in a writable one. Errors are the WIT's
// `fs-error` variants, thrown as jco expects: an error whose own `payload` is the variant.

import * as fs from "node:fs";
import * as path from "node:path";
import { Lock } from "./lock";

export type FsError = { tag: string; val: string };
export type EntryKind = "file" | "dir" | "symlink" | "other";

/** A host filesystem failure, as jco passes it to the core: the `fs-error` in `payload`. */
export class FsFailure extends Error {
  constructor(readonly payload: FsError) {
    super(`${payload.tag}: ${payload.val}`);
  }
}

const fail = (tag: string, val: string): never => {
  throw new FsFailure({ tag, val });
};

function ioError(p: string, e: unknown): never {
  const code = (e as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "ENOENT":
      return fail("not-found", p);
    case "EACCES":
    case "EPERM":
      return fail("permission-denied", p);
    case "ENOTDIR":
      return fail("not-a-directory", p);
    case "EISDIR":
      return fail("is-a-directory", p);
    default:
      return fail("other", `${p}: ${(e as Error)?.message ?? String(e)}`);
  }
}

function isLink(p: string): boolean {
  return fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}

function checked(p: string): string {
  if (p === "" || p.includes("\0") || !path.isAbsolute(p) || p.split("/").includes("..")) {
    fail("invalid-path", p);
  }
  return p;
}

function kindOf(st: fs.Stats): EntryKind {
  if (st.isSymbolicLink()) return "symlink";
  if (st.isDirectory()) return "dir";
  if (st.isFile()) return "file";
  return "other";
}

// Whole milliseconds, truncated toward zero as the harness does.
const mtimeMs = (st: fs.BigIntStats): bigint => st.mtimeNs / 1_000_000n;

function statOf(st: fs.BigIntStats) {
  return { kind: kindOf(st as unknown as fs.Stats), size: st.size, mtimeMs: mtimeMs(st) };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

interface Root {
  path: string;
  writable: boolean;
}

/** A filesystem that grants some directories for reading and some for writing. */
export class ConfinedFs {
  private readonly roots: Root[] = [];
  private readonly locks = new Map<string, Lock>();

  grantRead(dir: string): this {
    this.roots.push({ path: fs.realpathSync.native(dir), writable: false });
    return this;
  }

  grantWrite(dir: string): this {
    this.roots.push({ path: fs.realpathSync.native(dir), writable: true });
    return this;
  }

  private rootOf(canonical: string): Root | undefined {
    const inside = this.roots.filter((r) => canonical === r.path || canonical.startsWith(r.path === "/" ? "/" : r.path + "/"));
    return inside.find((r) => r.writable) ?? inside[0];
  }

  private resolve(p: string): string {
    let canonical: string;
    try {
      canonical = fs.realpathSync(checked(p));
    } catch (e) {
      if (e instanceof FsFailure) throw e;
      return ioError(p, e);
    }
    if (!this.rootOf(canonical)) fail("outside-root", p);
    return canonical;
  }

  /** The path a write may touch: its existing part resolved, inside a writable root. */
  private resolveForWrite(p: string): string {
    let existing = checked(p);
    const missing: string[] = [];
    let canonical: string;
    for (;;) {
      try {
        canonical = fs.realpathSync(existing);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT" || existing === "/") return ioError(p, e);
        // A link that points nowhere is not a missing file: it is never written through.
        if (isLink(existing)) fail("other", `${p}: a symbolic link that points nowhere; memdir does not write through it`);
        missing.unshift(path.basename(existing));
        existing = path.dirname(existing);
      }
    }
    const full = path.join(canonical, ...missing);
    const root = this.rootOf(full);
    if (!root) fail("outside-root", p);
    if (!root!.writable) fail("read-only", p);
    return full;
  }

  private openForRead(p: string): number {
    const canonical = this.resolve(p);
    try {
      return fs.openSync(canonical, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
    } catch (e) {
      return ioError(p, e);
    }
  }

  private withFile<T>(p: string, body: (fd: number, st: fs.BigIntStats) => T): T {
    const fd = this.openForRead(p);
    try {
      const st = fs.fstatSync(fd, { bigint: true });
      if (st.isDirectory()) fail("is-a-directory", p);
      return body(fd, st);
    } catch (e) {
      if (e instanceof FsFailure) throw e;
      return ioError(p, e);
    } finally {
      fs.closeSync(fd);
    }
  }

  private functions?: ReturnType<ConfinedFs["build"]>;

  /** The `host-fs` functions, as jco expects them. */
  imports() {
    return (this.functions ??= this.build());
  }

  private build() {
    return {
      listDir: (p: string) => {
        const dir = this.resolve(p);
        let names: Buffer[];
        try {
          names = fs.readdirSync(dir, { encoding: "buffer" });
        } catch (e) {
          return ioError(p, e);
        }
        const entries = [];
        for (const raw of names) {
          let name: string;
          try {
            name = utf8.decode(raw);
          } catch {
            continue; // names that are not UTF-8 are left out
          }
          try {
            const st = fs.lstatSync(path.join(dir, name), { bigint: true });
            entries.push({ name, ...statOf(st) });
          } catch {
            // gone between the listing and the stat
          }
        }
        return entries;
      },
      readHead: (p: string, maxLines: number, maxBytes: number) =>
        this.withFile(p, (fd, st) => {
          const size = Number(st.size);
          const want = Math.min(size, maxBytes);
          const data = Buffer.alloc(Math.max(want, 0));
          let filled = 0;
          let lines = 0;
          let end = -1;
          while (filled < want && end < 0) {
            const n = fs.readSync(fd, data, filled, want - filled, null);
            if (n === 0) break;
            for (let i = filled; i < filled + n; i++) {
              if (data[i] === 0x0a && ++lines === maxLines) {
                end = i + 1;
                break;
              }
            }
            filled += n;
          }
          const kept = data.subarray(0, end >= 0 ? end : filled);
          return { data: new Uint8Array(kept), size: st.size, mtimeMs: mtimeMs(st), truncated: BigInt(kept.length) < st.size };
        }),
      stat: (p: string) => {
        const canonical = this.resolve(p);
        try {
          return statOf(fs.statSync(canonical, { bigint: true }));
        } catch (e) {
          return ioError(p, e);
        }
      },
      realPath: (p: string) => this.resolve(p),
      readFile: (p: string, maxBytes: bigint) =>
        this.withFile(p, (fd, st) => {
          if (st.size > maxBytes) fail("other", `${p}: ${st.size} bytes, more than the ${maxBytes} allowed`);
          const chunks: Buffer[] = [];
          let total = 0n;
          const buf = Buffer.alloc(64 * 1024);
          for (;;) {
            const n = fs.readSync(fd, buf, 0, buf.length, null);
            if (n === 0) break;
            chunks.push(Buffer.from(buf.subarray(0, n)));
            total += BigInt(n);
            if (total > maxBytes) fail("other", `${p}: grew past the ${maxBytes} bytes allowed`);
          }
          return new Uint8Array(Buffer.concat(chunks));
        }),
      writeFile: (p: string, data: Uint8Array) => {
        const target = this.resolveForWrite(p);
        const tmp = path.join(path.dirname(target), `.memdir-tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
        try {
          let mode = 0o644;
          try {
            mode = fs.statSync(target).mode & 0o7777;
          } catch {
            // a new file
          }
          const fd = fs.openSync(tmp, "wx", mode);
          try {
            fs.writeSync(fd, data);
            fs.fchmodSync(fd, mode);
            fs.fsyncSync(fd);
          } finally {
            fs.closeSync(fd);
          }
          fs.renameSync(tmp, target);
        } catch (e) {
          fs.rmSync(tmp, { force: true });
          return ioError(p, e);
        }
      },
      appendFile: (p: string, data: Uint8Array) => {
        const target = this.resolveForWrite(p);
        try {
          // No-follow on the last component: a link put there after the check is not followed.
          const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants;
          const fd = fs.openSync(target, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o644);
          try {
            fs.writeSync(fd, data);
          } finally {
            fs.closeSync(fd);
          }
        } catch (e) {
          return ioError(p, e);
        }
      },
      rename: (from: string, to: string) => {
        const source = this.resolveForWrite(from);
        const target = this.resolveForWrite(to);
        try {
          fs.renameSync(source, target);
        } catch (e) {
          return ioError(from, e);
        }
      },
      removeFile: (p: string) => {
        const target = this.resolveForWrite(p);
        try {
          fs.unlinkSync(target);
        } catch (e) {
          return ioError(p, e);
        }
      },
      createDirAll: (p: string) => {
        const target = this.resolveForWrite(p);
        try {
          fs.mkdirSync(target, { recursive: true });
        } catch (e) {
          return ioError(p, e);
        }
      },
      lock: (p: string, timeoutMs: number) => {
        const target = this.resolveForWrite(p);
        if (this.locks.has(target)) return;
        // A lock file is a regular file: never a FIFO to block on, never a link.
        const existing = fs.lstatSync(target, { throwIfNoEntry: false });
        if (existing && !existing.isFile()) fail("other", `${p}: not a regular file; memdir locks only a regular file`);
        let lock: Lock | string;
        try {
          lock = Lock.acquire(target, timeoutMs);
        } catch (e) {
          return ioError(p, e);
        }
        if (typeof lock === "string") fail("other", `${p}: still locked by another writer (${lock}) after ${timeoutMs} ms`);
        this.locks.set(target, lock as Lock);
      },
      unlock: (p: string) => {
        const target = this.resolveForWrite(p);
        this.locks.get(target)?.release();
        this.locks.delete(target);
      },
    };
  }
}
