#!/usr/bin/env bash
# Builds and starts the typed-mcp demo server over Streamable HTTP on an ephemeral localhost port,
# runs the conformance suite against it (run.sh), stops the server and exits with run.sh's code.
#
# Usage: tests/conformance/with_demo_server.sh [LABEL-REGEX]     (LABEL-REGEX: see run.sh)
# The server is started as `cargo run --release --example demo_server -- --http 127.0.0.1:0` and must
# print one line matching `listening on (http://\S+)` to stderr (e.g.
# `listening on http://127.0.0.1:43123/mcp`). Its stderr is kept in the results' log file
# (printed on failure to start). Environment: CONFORMANCE_START_TIMEOUT (seconds to wait for the
# listening line once built, default 60), plus everything run.sh reads.
# Needs tests/conformance/setup.sh to have run.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

echo "conformance: building the demo server (cargo build --release --example demo_server)" >&2
if ! cargo build --release --example demo_server; then
  echo "conformance: the demo server does not build" >&2
  exit 1
fi

log="$(mktemp "${TMPDIR:-/tmp}/demo_server.XXXXXX.log")"
cargo run --quiet --release --example demo_server -- --http 127.0.0.1:0 \
  < /dev/null > "$log.stdout" 2> "$log" &
server=$!

stop_server() {
  if kill -0 "$server" 2>/dev/null; then
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM

url=""
deadline=$((SECONDS + ${CONFORMANCE_START_TIMEOUT:-60}))
while [ -z "$url" ]; do
  url="$(grep -m 1 -oE 'listening on http://[^[:space:]]+' "$log" | sed 's/^listening on //')"
  [ -n "$url" ] && break
  if ! kill -0 "$server" 2>/dev/null; then
    echo "conformance: the demo server exited before listening; its stderr:" >&2
    cat "$log" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "conformance: no 'listening on http://...' line from the demo server within ${CONFORMANCE_START_TIMEOUT:-60}s; its stderr:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "conformance: demo server (pid $server) listening on $url; its stderr goes to $log" >&2

"$here/run.sh" "$url" "$@"
rc=$?

if [ -s "$log.stdout" ]; then
  echo "conformance: note: the demo server wrote to stdout ($log.stdout)" >&2
fi
stop_server
exit "$rc"
