#!/usr/bin/env bash
# Installs what the test suite drives besides Rust: the official MCP clients of the interop
# tests (tests/interop/setup.sh: PyPI mcp in a venv, npm TypeScript clients) and the official
# conformance suite with Node 22 (tests/conformance/setup.sh). Safe to run again.
# The README's test command runs it before `cargo test`, so a fresh clone runs every test CI runs
# (the oracle tests that read ../shared aside).
set -euo pipefail
cd "$(dirname "$0")"
bash interop/setup.sh
bash conformance/setup.sh
