#!/usr/bin/env bash
# Installs what the MCP Apps browser test (tests/apps_browser.rs) drives:
#   - Debian's `chromium` (apt), the headless browser (Playwright's own browser download is
#     not used: playwright-core is pointed at /usr/bin/chromium);
#   - npm `@modelcontextprotocol/ext-apps` 2.0.4 (the official host bridge), its peers
#     `@modelcontextprotocol/client` / `core` 2.4.0 and `zod`, `esbuild` (bundles the host page
#     for the browser) and `playwright-core`, at the versions of package-lock.json, in
#     tests/apps/node_modules (`npm ci`).
# Needs node (>= 20) with npm. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ]; then
  echo "apps setup: installing chromium (apt-get)"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium
fi
echo "apps setup: $(/usr/bin/chromium --version 2>/dev/null || chromium --version)"

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "apps setup: node >= 20 is required, found $(node --version)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
for package in @modelcontextprotocol/ext-apps @modelcontextprotocol/client playwright-core esbuild; do
  echo "  $package $(node -p "require('./node_modules/$package/package.json').version")"
done
