#!/usr/bin/env bash
# A local typed-mcp cluster (issue 13): redis-server, N demo-server instances on the Redis
# cache store, sharing one key set (issue 34), and nginx balancing them (deploy/nginx.conf).
# Everything listens on 127.0.0.1; the only fixed port is the one given for nginx.
#
#   deploy/local-cluster.sh start N PORT   # prints one line per process:
#       redis PORT PID
#       instance http://127.0.0.1:PORT/mcp PID     (N lines)
#       url http://127.0.0.1:PORT/mcp              (nginx)
#   deploy/local-cluster.sh restart        # restarts the instances one at a time, each on
#                                          # its own address, re-reading the limits and the
#                                          # key set; prints an `instance` line for each
#   deploy/local-cluster.sh stop           # ends them all
#
# Environment:
#   LOCAL_CLUSTER_DIR  state directory (default: target/local-cluster in the repository):
#                      pids, logs, the limits file, the key set and nginx's configuration.
#   DEMO_SERVER_BIN    the demo_server executable; without it the script builds the example
#                      with `cargo build --example demo_server` (debug profile).
#   CLUSTER_LIMITS     extra members of the limits document's top level, as JSON text
#                      (e.g. '"timeouts": {"defaultTimeoutMs": 5000}'); the cache section
#                      selects the store of CLUSTER_CACHE_STORE, `http` sets shutdownLingerMs (2 s)
#                      and `secrets` names the key set.
#   CLUSTER_CACHE_STORE  `redis` (default) or `memory`: the instances' result cache store
#                      (Redis is started either way; deploy/bench-cluster.sh compares both).
#   CLUSTER_SESSION_STORE  `memory` (default) or `redis`: where the instances keep the 2025
#                      sessions (limits member http.sessionStore). With `memory` nginx routes
#                      each session to the instance that opened it (sticky, see nginx.conf);
#                      with `redis` any instance serves any session, so nginx balances every
#                      request and a client whose instance died resumes on another.
#   CLUSTER_KEYS_FILE  a key set document (see src/secrets.rs) to use; without it `start`
#                      writes STATE/keys.json with one fresh random key (mode 600). Every
#                      instance reads the same file (limits member secrets.keysFile), so a
#                      cursor or requestState sealed by one is accepted by all, and by their
#                      successors after `restart`. To rotate: put the new key after the old
#                      one, `restart`; move it first, `restart`; drop the old one, `restart`.
# redis-server and nginx are the Debian packages; missing ones are installed with apt-get
# (through sudo when not root). Logs and progress go to stderr; stdout carries only the lines
# above.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
state="${LOCAL_CLUSTER_DIR:-$root/target/local-cluster}"

say() { echo "local-cluster: $*" >&2; }
die() { say "$*"; exit 1; }

usage() {
  echo "usage: $0 start N PORT | restart | stop" >&2
  exit 2
}

# The nginx executable (Debian puts it in /usr/sbin, not always on a user's PATH).
nginx_bin() {
  command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true
}

install_missing() {
  local missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v redis-cli >/dev/null || missing+=(redis-tools)
  [ -n "$(nginx_bin)" ] || missing+=(nginx)
  [ "${#missing[@]}" -eq 0 ] && return 0
  say "installing ${missing[*]} (apt-get)"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
}

# The demo server executable: $DEMO_SERVER_BIN, or the debug example built by cargo.
demo_server_bin() {
  if [ -n "${DEMO_SERVER_BIN:-}" ]; then
    [ -x "$DEMO_SERVER_BIN" ] || die "DEMO_SERVER_BIN is not an executable: $DEMO_SERVER_BIN"
    echo "$DEMO_SERVER_BIN"
    return
  fi
  say "building the demo server (cargo build --example demo_server)"
  local built
  built="$(cd "$root" && cargo build --locked --example demo_server --message-format=json \
    | grep '"reason":"compiler-artifact"' | grep '"name":"demo_server"' \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
  [ -n "$built" ] || die "cargo did not report the demo_server executable"
  echo "$built"
}

# Whether process $1 is alive (an exited process that its parent has not reaped yet, a
# zombie, is not: the instances' parent may be an init that reaps only now and then).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  stat="${stat##*) }"
  [ "${stat:0:1}" != "Z" ]
}

# Records "NAME PID" in the state directory, so stop finds it.
record() { echo "$1 $2" >>"$state/pids"; }

# Waits (up to ~10 s) until file $1 holds, past its first $4 lines (default 0), a line
# matching $2, while process $3 lives; prints the line.
wait_for_line() {
  local file="$1" pattern="$2" pid="$3" skip="${4:-0}" line
  for _ in $(seq 1 200); do
    line="$(tail -n +"$((skip + 1))" "$file" 2>/dev/null | grep -m 1 -E "$pattern" || true)"
    if [ -n "$line" ]; then
      echo "$line"
      return 0
    fi
    alive "$pid" || return 1
    sleep 0.05
  done
  return 1
}

start_redis() {
  # redis-server cannot take an ephemeral port and report it, so try free-looking ports
  # until one binds (a port taken meanwhile makes redis-server exit, and we try another).
  local port pid
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 40000))
    redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
      --maxmemory 64mb --maxmemory-policy allkeys-lru --daemonize no \
      --logfile "$state/redis.log" </dev/null >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do
      if [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]; then
        record redis "$pid"
        echo "redis $port $pid"
        REDIS_PORT="$port"
        return 0
      fi
      alive "$pid" || break
      sleep 0.05
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  die "redis-server did not start (see $state/redis.log)"
}

# Starts instance $1 of executable $2 on address $3 (127.0.0.1:0 for a free port); records
# it, prints its `instance` line and appends its URL to INSTANCE_URLS.
start_instance() {
  local index="$1" bin="$2" addr="$3" log="$state/instance-$1.log" pid line url skip
  skip="$(log_lines "$log")"
  "$bin" --http "$addr" --limits "$state/limits.json" </dev/null >/dev/null 2>>"$log" &
  pid=$!
  record "instance-$index" "$pid"
  # The demo server writes `listening on http://127.0.0.1:PORT/mcp` to stderr once it
  # accepts; a restarted instance appends to the same log, so look past the old lines.
  line="$(wait_for_line "$log" '^listening on http://' "$pid" "$skip")" \
    || die "instance $index did not start (see $log)"
  url="${line#listening on }"
  echo "instance $url $pid"
  INSTANCE_URLS+=("$url")
}

# The number of lines in file $1 (0 when absent).
log_lines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }

# Ends process $1 with SIGTERM (it finishes what it is doing, then exits), SIGKILL after
# ~15 s.
stop_process() {
  local pid="$1"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do
    alive "$pid" || return 0
    sleep 0.05
  done
  say "process $pid ignored SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  while alive "$pid"; do sleep 0.05; done
}

# Writes instances.conf (see deploy/nginx.conf) for the instances' host:port list.
write_instances_conf() {
  local conf="$state/instances.conf" k addr
  {
    echo "# Generated by deploy/local-cluster.sh; see deploy/nginx.conf."
    echo "upstream mcp_all {"
    for addr in "$@"; do
      # max_fails=0: an instance is never marked down; a refused connection (an instance
      # restarting or dead) costs nginx one immediate retry on the next instance. Marking
      # it down for a while instead leaves no instance to try while a rolling restart has
      # marked each in turn ("no live upstreams", 502).
      echo "    server $addr max_fails=0;"
    done
    echo "    keepalive 32;"
    # Below the instances' shutdownLingerMs (2 s), so that a stopping instance sees nginx
    # close its idle connections rather than closing them under a request itself; and below
    # their headerReadTimeoutMs (10 s), after which an idle connection is closed by them.
    echo "    keepalive_timeout 1s;"
    echo "}"
    k=0
    for addr in "$@"; do
      echo "upstream mcp_i$k {"
      echo "    server $addr;"
      echo "    keepalive 8;"
      echo "    keepalive_timeout 1s;"
      echo "}"
      k=$((k + 1))
    done
    # Sessions in Redis: no session is tied to an instance, so no tags and no sticky route.
    local sticky=1
    [ "${CLUSTER_SESSION_STORE:-memory}" = redis ] && sticky=0
    echo "map \$http_mcp_session_id \$mcp_route {"
    k=0
    for _ in "$@"; do
      [ "$sticky" = 1 ] && echo "    \"~^i$k\\.\" mcp_i$k;"
      k=$((k + 1))
    done
    echo "    default mcp_all;"
    echo "}"
    echo "map \$upstream_addr \$mcp_instance_tag {"
    k=0
    for addr in "$@"; do
      # The last address tried is the one that answered.
      [ "$sticky" = 1 ] && echo "    \"~(^|[ ,])${addr//./\\.}\$\" i$k;"
      k=$((k + 1))
    done
    echo "    default \"\";"
    echo "}"
  } >"$conf"
}

start_nginx() {
  local port="$1" bin pid
  bin="$(nginx_bin)"
  sed "s/@LISTEN_PORT@/$port/g" "$root/deploy/nginx.conf" >"$state/nginx.conf"
  "$bin" -p "$state/" -c "$state/nginx.conf" -e "$state/error.log" -t -q \
    || die "nginx refuses the configuration (see $state/error.log)"
  "$bin" -p "$state/" -c "$state/nginx.conf" -e "$state/error.log" \
    </dev/null >/dev/null 2>>"$state/error.log" &
  pid=$!
  record nginx "$pid"
  for _ in $(seq 1 200); do
    if [ -s "$state/nginx.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "url http://127.0.0.1:$port/mcp"
      return 0
    fi
    alive "$pid" || break
    sleep 0.05
  done
  die "nginx did not start on 127.0.0.1:$port (see $state/error.log)"
}

# Ends every process recorded in the state directory: SIGTERM, then SIGKILL after ~5 s.
stop_all() {
  [ -f "$state/pids" ] || return 0
  local name pid pids=()
  while read -r name pid; do
    if alive "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done <"$state/pids"
  for _ in $(seq 1 100); do
    local left=0
    for pid in "${pids[@]}"; do alive "$pid" && left=1; done
    [ "$left" -eq 0 ] && break
    sleep 0.05
  done
  for pid in "${pids[@]}"; do
    if alive "$pid"; then
      say "process $pid ignored SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$state/pids"
}

start() {
  local count="$1" port="$2"
  [[ "$count" =~ ^[1-9][0-9]*$ ]] || usage
  [[ "$port" =~ ^[1-9][0-9]*$ ]] && [ "$port" -le 65535 ] || usage
  mkdir -p "$state"
  if [ -f "$state/pids" ]; then
    while read -r _ pid; do
      alive "$pid" && die "a cluster is running from $state: stop it first"
    done <"$state/pids"
    rm -f "$state/pids"
  fi
  install_missing
  local bin
  bin="$(demo_server_bin)"
  # On any failure below (every failure exits), end what was started.
  trap 'stop_all' EXIT
  trap 'exit 1' INT TERM

  echo "$bin" >"$state/bin"
  REDIS_PORT=""
  start_redis
  local keys="${CLUSTER_KEYS_FILE:-$state/keys.json}"
  if [ -z "${CLUSTER_KEYS_FILE:-}" ]; then
    write_random_keys "$keys"
  fi
  local extra="${CLUSTER_LIMITS:-}"
  [ -n "$extra" ] && extra=", $extra"
  local cache="{\"store\": \"redis\", \"redisUrl\": \"redis://127.0.0.1:$REDIS_PORT\"}"
  case "${CLUSTER_CACHE_STORE:-redis}" in
    redis) ;;
    memory) cache='{"store": "memory"}' ;;
    *) die "CLUSTER_CACHE_STORE is redis or memory" ;;
  esac
  local sessions="${CLUSTER_SESSION_STORE:-memory}"
  case "$sessions" in
    memory | redis) ;;
    *) die "CLUSTER_SESSION_STORE is memory or redis" ;;
  esac
  cat >"$state/limits.json" <<EOF
{"cache": $cache,
 "http": {"shutdownLingerMs": 2000, "sessionStore": "$sessions"},
 "secrets": {"keysFile": "$keys"}$extra}
EOF
  INSTANCE_URLS=()
  local i
  for i in $(seq 0 $((count - 1))); do
    start_instance "$i" "$bin" 127.0.0.1:0
  done
  printf '%s\n' "${INSTANCE_URLS[@]}" >"$state/instances"
  local addrs=() url
  for url in "${INSTANCE_URLS[@]}"; do
    url="${url#http://}"
    addrs+=("${url%/mcp}")
  done
  write_instances_conf "${addrs[@]}"
  start_nginx "$port"
  trap - EXIT INT TERM
}

# Writes a key set of one fresh random key (32 bytes) to $1, readable by its owner only.
write_random_keys() {
  local secret
  secret="$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
  (umask 077 && printf '{"keys": [{"id": "k%s", "secret": "%s"}]}\n' "$(date +%s)" \
    "$secret" >"$1")
}

# Restarts every instance, one at a time, on its own address: SIGTERM (it stops accepting,
# answers what nginx still sends on open connections with `Connection: close` while nginx
# closes its idle ones, finishes what is in flight, exits), then a new process with the
# current limits and key set. A refused connection meanwhile is passed by nginx to another
# instance, so a rolling restart fails no request.
restart() {
  [ -f "$state/pids" ] && [ -f "$state/instances" ] || die "no cluster is running from $state"
  local bin urls=() url index=0 name pid old
  bin="$(cat "$state/bin")"
  mapfile -t urls <"$state/instances"
  INSTANCE_URLS=()
  for url in "${urls[@]}"; do
    old=""
    while read -r name pid; do
      [ "$name" = "instance-$index" ] && old="$pid"
    done <"$state/pids"
    if [ -n "$old" ]; then
      stop_process "$old"
      grep -v -x "instance-$index $old" "$state/pids" >"$state/pids.new" || true
      mv "$state/pids.new" "$state/pids"
    fi
    url="${url#http://}"
    start_instance "$index" "$bin" "${url%/mcp}"
    index=$((index + 1))
  done
}

case "${1:-}" in
  start)
    [ "$#" -eq 3 ] || usage
    start "$2" "$3"
    ;;
  restart)
    [ "$#" -eq 1 ] || usage
    restart
    ;;
  stop)
    [ "$#" -eq 1 ] || usage
    stop_all
    ;;
  *) usage ;;
esac
