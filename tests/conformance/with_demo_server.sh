#!/usr/bin/env bash
# Builds and starts the typed-mcp demo server over Streamable HTTP on an ephemeral localhost port,
# runs the conformance suite against it (run.sh), stops the server and exits with run.sh's code.
#
# Usage: tests/conformance/with_demo_server.sh [LABEL-REGEX]     (LABEL-REGEX: see run.sh)
# The server is what `cargo run --release --example demo_server -- --http 127.0.0.1:0` runs (built
# first, then its executable is started directly: a `cargo run` could sit waiting for the build
# directory's lock while other cargo commands run, and would then be killed instead of the
# server). It must print one line matching `listening on (http://\S+)` to stderr (e.g.
# `listening on http://127.0.0.1:43123/mcp`). Its stderr is kept in the results' log file
# (printed on failure to start). Environment: CONFORMANCE_START_TIMEOUT (seconds to wait for the
# listening line once built, default 60), plus everything run.sh reads.
# Needs tests/conformance/setup.sh to have run.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

echo "conformance: building the demo server (cargo build --release --example demo_server)" >&2
artifacts="$(cargo build --release --example demo_server --message-format=json-render-diagnostics)" || {
  echo "conformance: the demo server does not build" >&2
  exit 1
}
binary="$(printf '%s\n' "$artifacts" | grep '"reason":"compiler-artifact"' \
  | grep -o '"executable":"[^"]*/demo_server"' | tail -n 1 | sed 's/^"executable":"//; s/"$//')"
if [ -z "$binary" ] || [ ! -x "$binary" ]; then
  echo "conformance: cargo did not report the demo_server executable" >&2
  exit 1
fi

log="$(mktemp "${TMPDIR:-/tmp}/demo_server.XXXXXX.log")"
"$binary" --http 127.0.0.1:0 < /dev/null > "$log.stdout" 2> "$log" &
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
