#!/usr/bin/env bash
# The cost of the balancer and of the shared store (issue 34, BENCHMARKS.md "Behind nginx"):
# requests per second and CPU per request of 2026-07-28 `tools/call lookup` (a cached tool,
# 100 keys in turn: after the first round every call is a cache hit) driven by wrk at
# CONNECTIONS connections for SECONDS seconds, in three setups:
#   single   one demo-server instance, in-memory cache, no nginx;
#   memory   deploy/local-cluster.sh with 3 instances behind nginx, in-memory caches;
#   redis    the same with the shared Redis cache store.
# CPU is read from /proc (utime + stime) of the instances, of nginx (master and workers) and
# of redis-server, before and after each run. wrk runs on the same machine: it takes CPU the
# servers could have had, the same way in every setup.
#
#   deploy/bench-cluster.sh [SECONDS] [CONNECTIONS]     # defaults: 10 64
#
# Environment: DEMO_SERVER_BIN, the demo_server executable (build it with
# `cargo build --release --example demo_server`; without it the script does that);
# BENCH_PORT, nginx's port (default 18480). Prints a Markdown table on stdout, progress on
# stderr. Needs wrk (Debian package `wrk`), nginx and redis-server.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
connections="${2:-64}"
port="${BENCH_PORT:-18480}"
work="$(mktemp -d)"
say() { echo "bench-cluster: $*" >&2; }

command -v wrk >/dev/null || { say "wrk is missing (apt-get install wrk)"; exit 1; }
if [ -z "${DEMO_SERVER_BIN:-}" ]; then
  say "building the demo server (cargo build --release --example demo_server)"
  (cd "$root" && cargo build --locked --release --example demo_server >&2)
  DEMO_SERVER_BIN="$root/target/release/examples/demo_server"
fi
export DEMO_SERVER_BIN
ticks="$(getconf CLK_TCK)"

cat >"$work/lookup.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "lookup"
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) n = 0; bad = 0 end
function request()
  n = n + 1
  local body = string.format('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
    .. '{"name":"lookup","arguments":{"key":"bench-%d"},"_meta":{'
    .. '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    .. '"io.modelcontextprotocol/clientCapabilities":{},'
    .. '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0.0"}}}}', n, n % 100)
  return wrk.format(nil, nil, nil, body)
end
function response(status, headers, body)
  if status ~= 200 or not body:find('"result"', 1, true) or body:find('"isError":true', 1, true) then
    bad = bad + 1
  end
end
function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  io.write(string.format("BENCH requests %d bad %d errors %d seconds %.3f p99ms %.2f\n",
    summary.requests, total,
    summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.status + summary.errors.timeout,
    summary.duration / 1e6, latency:percentile(99) / 1000))
end
EOF

# The CPU ticks (user + system) of the processes $@.
cpu_ticks() {
  local total=0 pid stat fields
  for pid in "$@"; do
    stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
    stat="${stat##*) }"
    read -ra fields <<<"$stat"
    total=$((total + fields[11] + fields[12]))
  done
  echo "$total"
}

# Runs wrk against $1 (after a warm-up) and prints a table row named $2; the processes to
# measure are in the files $work/servers, $work/nginx and $work/redis (one pid a line).
measure() {
  local url="$1" name="$2" output line
  wrk -t 2 -c "$connections" -d 2s -s "$work/lookup.lua" "$url" >/dev/null
  mapfile -t servers <"$work/servers"
  mapfile -t balancer <"$work/nginx"
  mapfile -t store <"$work/redis"
  local s0 n0 r0 s1 n1 r1
  s0="$(cpu_ticks "${servers[@]}")"; n0="$(cpu_ticks "${balancer[@]}")"
  r0="$(cpu_ticks "${store[@]}")"
  output="$(wrk -t 2 -c "$connections" -d "${seconds}s" -s "$work/lookup.lua" "$url")"
  s1="$(cpu_ticks "${servers[@]}")"; n1="$(cpu_ticks "${balancer[@]}")"
  r1="$(cpu_ticks "${store[@]}")"
  line="$(grep '^BENCH ' <<<"$output")"
  say "$name: $line"
  python3 - "$name" "$ticks" "$((s1 - s0))" "$((n1 - n0))" "$((r1 - r0))" "$line" <<'EOF'
import sys
name, ticks, server, nginx, redis, line = sys.argv[1:]
words = line.split()
fields = dict(zip(words[1::2], words[2::2]))
requests, seconds = int(fields["requests"]), float(fields["seconds"])
per = lambda t: int(t) / int(ticks) * 1e6 / max(requests, 1)
total = per(server) + per(nginx) + per(redis)
print(f"| {name} | {requests / seconds:,.0f} | {fields['p99ms']} ms | {per(server):.1f} µs "
      f"| {per(nginx):.1f} µs | {per(redis):.1f} µs | {total:.1f} µs "
      f"| {int(fields['bad']) + int(fields['errors'])} |")
EOF
}

echo "| setup | requests/s | p99 | CPU/request: instances | nginx | Redis | total | failed |"
echo "|---|---|---|---|---|---|---|---|"

# One instance, no nginx.
echo '{"cache": {"store": "memory"}}' >"$work/single.json"
"$DEMO_SERVER_BIN" --http 127.0.0.1:0 --limits "$work/single.json" </dev/null >/dev/null \
  2>"$work/single.log" &
single=$!
for _ in $(seq 1 200); do
  grep -q '^listening on http://' "$work/single.log" && break
  sleep 0.05
done
url="$(sed -n 's/^listening on //p' "$work/single.log" | head -n 1)"
echo "$single" >"$work/servers"; : >"$work/nginx"; : >"$work/redis"
measure "$url" "1 instance, in-memory cache, no nginx"
kill -TERM "$single"
wait "$single" 2>/dev/null || true

for store in memory redis; do
  export LOCAL_CLUSTER_DIR="$work/cluster-$store"
  mkdir -p "$LOCAL_CLUSTER_DIR"
  CLUSTER_CACHE_STORE="$store" "$root/deploy/local-cluster.sh" start 3 "$port" >"$work/lines"
  awk '$1 == "instance" {print $3}' "$work/lines" >"$work/servers"
  awk '$1 == "redis" {print $3}' "$work/lines" >"$work/redis"
  master="$(awk '$1 == "nginx" {print $2}' "$LOCAL_CLUSTER_DIR/pids")"
  { echo "$master"; pgrep -P "$master" || true; } >"$work/nginx"
  url="$(awk '$1 == "url" {print $2}' "$work/lines")"
  measure "$url" "3 instances behind nginx, $store cache"
  "$root/deploy/local-cluster.sh" stop >&2
done
rm -rf "$work"
