// How the Rust harness prints values whose text reaches memdir's output: `{:?}` of a string,
// `io::Error`, `Duration`, `ExitStatus`, `str::trim`, chrono's RFC 3339 parser, serde_json.
// The Node CLI uses these so that its bytes match the Rust CLI's.

import * as os from "node:os";

// Rust's `char::is_whitespace` (Unicode White_Space), which differs from JavaScript's `\s`:
// U+0085 is whitespace in Rust, U+FEFF is not.
const WS = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const TRIM = new RegExp(`^[${WS}]+|[${WS}]+$`, "g");
const TRIM_END = new RegExp(`[${WS}]+$`);

/** `str::trim`. */
export const trim = (s) => s.replace(TRIM, "");

/** `str::trim_end`. */
export const trimEnd = (s) => s.replace(TRIM_END, "");

// What `{:?}` escapes besides the backslash escapes: characters that are not printable
// (controls, format characters, separators other than the space, private use, unassigned)
// and grapheme extenders.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Grapheme_Extend}]|[^\P{Zs} ]/u;
const ESCAPES = { "\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"' };

/** `format!("{:?}", s)` for a string. */
export function debugStr(s) {
  let out = "";
  for (const c of s) {
    out += ESCAPES[c] ?? (UNPRINTABLE.test(c) ? `\\u{${c.codePointAt(0).toString(16)}}` : c);
  }
  return `"${out}"`;
}

// glibc's `strerror`, which Rust's `io::Error` prints; Node's messages are libuv's.
const STRERROR = {
  EPERM: "Operation not permitted",
  ENOENT: "No such file or directory",
  EACCES: "Permission denied",
  EEXIST: "File exists",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  EINVAL: "Invalid argument",
  EMFILE: "Too many open files",
  ENOSPC: "No space left on device",
  EROFS: "Read-only file system",
  ENAMETOOLONG: "File name too long",
  ENOTEMPTY: "Directory not empty",
  ELOOP: "Too many levels of symbolic links",
};

/** A Node system error as Rust's `io::Error` displays it. */
export function ioMessage(e) {
  if (e.code === "INVALID_UTF8") return e.message;
  const errno = os.constants.errno[e.code];
  return e.code in STRERROR ? `${STRERROR[e.code]} (os error ${errno})` : e.message;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** `fs::read_to_string`'s decoding: invalid UTF-8 is an error, as Rust's is. */
export function decodeUtf8(bytes) {
  try {
    return utf8.decode(bytes);
  } catch {
    throw Object.assign(new Error("stream did not contain valid UTF-8"), { code: "INVALID_UTF8" });
  }
}

/** `format!("{:?}", Duration::from_millis(ms))`. */
export function durationDebug(ms) {
  if (ms === 0) return "0ns";
  if (ms < 1000) return `${ms}ms`;
  const fraction = String(ms % 1000).padStart(3, "0").replace(/0+$/, "");
  return `${Math.floor(ms / 1000)}${fraction ? `.${fraction}` : ""}s`;
}

/** `ExitStatus`'s Display on Unix, from a `spawnSync` result. */
export function exitStatus({ status, signal }) {
  return signal ? `signal: ${os.constants.signals[signal]} (${signal})` : `exit status: ${status}`;
}

/** `str::parse::<u64>()`, or undefined. */
export function parseU64(text) {
  if (!/^\+?\d+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n < 2n ** 64n ? n : undefined;
}

/** `str::parse::<i64>()` as clap's `value_parser!(i32)` runs it, then its range check. */
export function parseI32(text) {
  if (text === "") throw "cannot parse integer from empty string";
  if (!/^[+-]?\d+$/.test(text)) throw "invalid digit found in string";
  const n = BigInt(text);
  if (n >= 2n ** 63n) throw "number too large to fit in target type";
  if (n < -(2n ** 63n)) throw "number too small to fit in target type";
  if (n >= 2n ** 31n || n < -(2n ** 31n)) throw `${n} is not in -2147483648..=2147483647`;
  return Number(n);
}

// chrono's parse errors.
const OUT_OF_RANGE = "input is out of range";
const INVALID = "input contains invalid characters";
const TOO_SHORT = "premature end of input";

/** chrono's field scanner over the rest of the input; each method throws chrono's message. */
class Scanner {
  constructor(text) {
    this.rest = text;
  }

  /** Exactly `digits` digits, which must lie in `min..=max`. */
  number(digits, min, max) {
    if (this.rest.length < digits) throw TOO_SHORT;
    const text = this.rest.slice(0, digits);
    if (!/^\d+$/.test(text)) throw INVALID;
    this.rest = this.rest.slice(digits);
    const n = Number(text);
    if (n < min || n > max) throw OUT_OF_RANGE;
    return n;
  }

  /** One of the characters in `set`. */
  char(set) {
    if (this.rest === "") throw TOO_SHORT;
    const c = this.rest[0];
    if (!set.includes(c)) throw INVALID;
    this.rest = this.rest.slice(1);
    return c;
  }

  /** Milliseconds of an optional `.fraction` (digits past the ninth are skipped). */
  fraction() {
    if (!this.rest.startsWith(".")) return 0;
    const digits = /^\.(\d*)/.exec(this.rest)[1];
    if (digits === "") throw this.rest.length === 1 ? TOO_SHORT : INVALID;
    this.rest = this.rest.slice(1 + digits.length);
    return Number(digits.padEnd(3, "0").slice(0, 3));
  }

  /** The offset in minutes: `Z`, or `+hh:mm` / `-hh:mm` up to 23:59. */
  offset() {
    const sign = this.char("Zz+-");
    if (sign === "Z" || sign === "z") return 0;
    const hours = this.number(2, 0, 99);
    this.char(":");
    const minutes = this.number(2, 0, 59);
    if (hours > 23) throw OUT_OF_RANGE;
    return (sign === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
}

/**
 * `DateTime::parse_from_rfc3339(text)?.timestamp_millis()`, field by field as chrono scans,
 * so that a bad time fails with chrono's message. Throws the message.
 */
export function parseRfc3339(text) {
  const s = new Scanner(text);
  const year = s.number(4, 0, 9999);
  s.char("-");
  const month = s.number(2, 1, 12);
  s.char("-");
  const day = s.number(2, 1, 31);
  s.char("Tt ");
  const hour = s.number(2, 0, 23);
  s.char(":");
  const minute = s.number(2, 0, 59);
  s.char(":");
  const second = s.number(2, 0, 60);
  const millis = s.fraction();
  const offset = s.offset();
  if (s.rest !== "") throw "trailing input";
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) throw OUT_OF_RANGE;
  return date.getTime() + ((hour * 60 + minute - offset) * 60 + second) * 1000 + millis;
}

/** `time::iso_millis`: RFC 3339 in UTC with milliseconds. */
export const isoMillis = (ms) => new Date(Number(ms)).toISOString();

/** `serde_json::to_writer_pretty` and a newline. serde and JSON.stringify escape alike. */
export const pretty = (value) => `${JSON.stringify(value, null, 2)}\n`;

/** A value as serde_json's `json!` holds it: object keys sorted (its maps are BTreeMaps). */
export function sortedKeys(value) {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return Object.fromEntries(keys.map((k) => [k, sortedKeys(value[k])]));
}
