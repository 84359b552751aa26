#!/usr/bin/env bash
# Installs what the test suite drives besides Rust: the official MCP clients of the interop
# tests (tests/interop/setup.sh: PyPI mcp in a venv, npm TypeScript clients and
# server-everything), the official conformance suite with Node 22 (tests/conformance/setup.sh),
# and redis-server (Debian package) for the Redis cache-store tests (tests/cache_redis.rs).
# Safe to run again.
# The README's test command runs it before `cargo test`, so a fresh clone runs every test CI runs
# (the oracle tests that read ../shared aside).
set -euo pipefail
cd "$(dirname "$0")"
bash interop/setup.sh
bash conformance/setup.sh

if ! command -v redis-server >/dev/null; then
  echo "setup: installing redis-server (apt-get)"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends redis-server
fi
echo "setup: $(redis-server --version)"
