#!/usr/bin/env bash
# Installs everything sluice and its tests need on a fresh machine, then its npm packages.
# - Debian's chromium (the dashboard's browser tests, driven by playwright-core) and
#   redis-server (the distributed-sweep tests start their own), when they are missing and this
#   user can install them (root, or sudo without a password); otherwise one line says what to
#   install. The daemon, backtests and local sweeps need neither.
# - npm ci. better-sqlite3 builds from source where its prebuilt download is unreachable, so
#   node-gyp is pointed at the machine's own Node headers when they are there.
# README's first command and .ci/run both start here.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  as=()
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as=(sudo); fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ ${#as[@]} -gt 0 ]; }; then
    "${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "npm test needs ${missing[*]}: install them (Debian: sudo apt-get install -y ${missing[*]}) and run this again; the daemon runs without them" >&2
  fi
fi

if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
npm ci --no-audit --no-fund
