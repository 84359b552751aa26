#!/usr/bin/env bash
# Installs the OpenID provider the auth tests run against: npm `oidc-provider` 9.13.3
# (package-lock.json) in tests/oauth/node_modules, with `npm ci`. provider.mjs starts it with
# our configuration (see its header). Needs node (>= 20) with npm. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"
echo "oauth setup: oidc-provider (npm ci)"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "oauth setup: node >= 20 is required, found $(node --version)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
echo "  oidc-provider $(node -p "require('./node_modules/oidc-provider/package.json').version")"
