#!/usr/bin/env bash
# Installs the official MCP clients the interop tests (tests/interop.rs) drive, at the exact
# versions this folder pins:
#   - PyPI `mcp` 2.3.0 and its dependencies (requirements.lock) in the venv tests/interop/.venv;
#   - npm `@modelcontextprotocol/sdk` 1.32.2 and `@modelcontextprotocol/client` 2.4.0
#     (package-lock.json) in tests/interop/node_modules, with `npm ci`;
#   - npm `@modelcontextprotocol/server-everything` 2026.8.31, the server our client is
#     tested against (tests/client_everything.rs), in the same node_modules.
# Needs python3 (>= 3.10) and node (>= 20) with npm. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

echo "interop setup: python client (mcp, requirements.lock)"
if ! .venv/bin/python -c 'import sys' 2>/dev/null; then
  rm -rf .venv
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-input -r requirements.lock
.venv/bin/python -c 'from importlib.metadata import version; print("  mcp", version("mcp"))'

echo "interop setup: typescript clients (npm ci)"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "interop setup: node >= 20 is required, found $(node --version)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
for package in @modelcontextprotocol/sdk @modelcontextprotocol/client @modelcontextprotocol/server-everything; do
  echo "  $package $(node -p "require('./node_modules/$package/package.json').version")"
done
