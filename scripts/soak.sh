#!/usr/bin/env bash
# The soak of issue 13: the demo server under a mixed load (every demo tool, resource and
# prompt; 2026-07-28 and 2025 sessions; stdio and Streamable HTTP) with faults injected
# (clients that vanish mid-request, trickle bytes, send oversized or malformed messages,
# cancel, never read). Prints the figures every REPORT seconds and totals at the end:
# requests, answers, lost / duplicated / wrong answers of the well-behaved clients, faults,
# and the RSS of the long-lived HTTP and stdio servers. Not a test: CI does not run it.
#
#   scripts/soak.sh [SECONDS]          # default 600
#
# Environment: DEMO_SERVER_BIN (a demo_server executable; default: build the release example
# with cargo), REPORT (seconds between reports, default 30), SOAK_DIR (limits file and server
# log; default target/soak). Needs python3 (standard library only).
# Exit status 1 when a well-behaved request was lost, duplicated or answered wrongly, or a
# long-lived server died.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }
state="${SOAK_DIR:-$root/target/soak}"
mkdir -p "$state"

bin="${DEMO_SERVER_BIN:-}"
if [ -z "$bin" ]; then
  echo "soak: building the demo server (cargo build --release --example demo_server)" >&2
  bin="$(cd "$root" && cargo build --locked --release --example demo_server --message-format=json \
    | grep '"reason":"compiler-artifact"' | grep '"name":"demo_server"' \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
  [ -n "$bin" ] || { echo "soak: cargo did not report the demo_server executable" >&2; exit 1; }
fi
exec python3 "$root/scripts/soak.py" --server "$bin" --seconds "$seconds" \
  --report "${REPORT:-30}" --state "$state"
