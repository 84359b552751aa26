#!/usr/bin/env bash
# Installs what the test suite drives besides Rust: the official MCP clients of the interop
# tests (tests/interop/setup.sh: PyPI mcp in a venv, npm TypeScript clients and
# server-everything), the OpenID provider of the auth tests (tests/oauth/setup.sh: npm
# oidc-provider), the official conformance suite with Node 22 (tests/conformance/setup.sh),
# the MCP Apps browser test's host bridge, playwright-core and Debian's chromium
# (tests/apps/setup.sh), redis-server (Debian package) for the Redis cache-store tests
# (tests/cache_redis.rs), and nginx (Debian package) for the cluster test (tests/cluster.rs, deploy/local-cluster.sh), and
# curl for the README's HTTP example (tests/readme_demo.rs).
# Safe to run again.
# The README's test command runs it before `cargo test`, so a fresh clone runs every test CI runs
# (the oracle tests that read ../shared aside).
set -euo pipefail
cd "$(dirname "$0")"
bash interop/setup.sh
bash oauth/setup.sh
bash conformance/setup.sh
bash apps/setup.sh

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v curl >/dev/null || missing+=(curl)   # tests/readme_demo.rs runs the README's curl call
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]} (apt-get)"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: $(redis-server --version)"
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
echo "setup: $("$nginx_bin" -v 2>&1)"
