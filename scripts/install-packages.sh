#!/usr/bin/env bash
# Installs the npm packages when node_modules is missing or older than the lock file. `npm install` rather
# than `npm ci`: this npm writes lock files without the optional platform packages of some native modules
# (e.g. @swc/core's builds for other systems), which `npm ci` then reports as "missing from lock file";
# `npm install` honours the lock as it is and leaves it unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
# A patch of a dependency (patches/, applied by the postinstall script) newer than the install also reinstalls.
stale_patch() { find patches -name '*.patch' -newer node_modules/.package-lock.json 2>/dev/null | grep -q .; }
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] || stale_patch; then
  echo "packages: installing (npm install from the lock file)"
  npm install --no-audit --no-fund
fi
