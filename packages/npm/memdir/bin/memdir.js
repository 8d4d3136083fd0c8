#!/usr/bin/env node
// memdir's npm launcher: runs the memdir binary from the package for this platform
// (@memdir/cli-<platform>-<arch>, an optional dependency npm installs only where it fits), in
// the manner of Biome and esbuild. It also tells `memdir setup` where the opencode plugin
// installed beside it is.
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const platform = `${process.platform}-${process.arch}`;
let binary;
try {
  const dir = path.dirname(require.resolve(`@memdir/cli-${platform}/package.json`));
  binary = path.join(dir, process.platform === "win32" ? "memdir.exe" : "memdir");
} catch {
  console.error(
    `memdir: there is no memdir binary for ${platform} in this installation (the package @memdir/cli-${platform} ` +
      "is missing). Install memdir again without --no-optional, or build it from source: cargo install memdir.",
  );
  process.exit(1);
}

const env = { ...process.env };
if (!env.MEMDIR_OPENCODE_PLUGIN) {
  try {
    env.MEMDIR_OPENCODE_PLUGIN = require.resolve("@memdir/opencode");
  } catch {
    // Without the plugin, setup registers opencode's MCP server only, and says so.
  }
}

const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", env });
if (result.error) {
  console.error(`memdir: could not start ${binary}: ${result.error.message}`);
  process.exit(1);
}
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status ?? 1);
