// The Node.js baseline for `memdir bench` (R13.2): the scan + manifest algorithm as the terminal
// agent runs it in Node — recursive readdir, read the head of every file (its mtime from the same
// open), parse frontmatter with the `yaml` package, sort newest first, keep 200, format lines.
//
// Usage: node scan.mjs DIR [RUNS]
// Prints JSON: {"median_ms": <in-process median of RUNS runs after one warm-up>, "manifest": "..."}

import { open, readdir } from "node:fs/promises";
import { join, sep } from "node:path";
import { parse } from "yaml";

const MAX_FILES = 200;
const HEAD_LINES = 30;
const HEAD_BYTES = 16 * 1024;
const TYPES = new Set(["user", "feedback", "project", "reference"]);
// Bounded concurrency: the agent's Promise.all over every file runs out of descriptors first.
const CONCURRENCY = 64;

async function readHead(path) {
  const handle = await open(path, "r");
  try {
    const stat = await handle.stat();
    const buffer = Buffer.alloc(Math.min(HEAD_BYTES, stat.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const lines = buffer.subarray(0, bytesRead).toString("utf8").split("\n").slice(0, HEAD_LINES);
    return { text: lines.join("\n"), mtimeMs: Math.floor(stat.mtimeMs) };
  } finally {
    await handle.close();
  }
}

function frontmatter(text) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!match) return {};
  try {
    const data = parse(match[1]);
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

async function scan(dir) {
  const names = await readdir(dir, { recursive: true });
  const files = names.filter((n) => {
    const parts = n.split(sep);
    return n.endsWith(".md") && parts[parts.length - 1] !== "MEMORY.md" && parts[0] !== "logs" && !parts.some((p) => p.startsWith("."));
  });
  const headers = [];
  for (let i = 0; i < files.length; i += CONCURRENCY) {
    const batch = files.slice(i, i + CONCURRENCY).map(async (rel) => {
      const { text, mtimeMs } = await readHead(join(dir, rel));
      const fm = frontmatter(text);
      const type = fm.type ?? fm.metadata?.type;
      return {
        path: rel.split(sep).join("/"),
        mtimeMs,
        description: typeof fm.description === "string" ? fm.description : null,
        type: TYPES.has(type) ? type : null,
      };
    });
    headers.push(...(await Promise.all(batch)));
  }
  headers.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return headers.slice(0, MAX_FILES);
}

function manifest(headers) {
  return headers
    .map((h) => {
      const tag = h.type ? `[${h.type}] ` : "";
      const desc = h.description ? `: ${h.description.trim().replace(/\r\n|[\r\n]/g, " ")}` : "";
      return `- ${tag}${h.path} (${new Date(h.mtimeMs).toISOString()})${desc}\n`;
    })
    .join("");
}

const [dir, runsArg] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scan.mjs DIR [RUNS]");
  process.exit(2);
}
const runs = Number(runsArg ?? 7);
const text = manifest(await scan(dir));
const samples = [];
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  manifest(await scan(dir));
  samples.push(Number(process.hrtime.bigint() - start) / 1e6);
}
samples.sort((a, b) => a - b);
console.log(JSON.stringify({ median_ms: samples[Math.floor(samples.length / 2)], manifest: text }));
