#!/usr/bin/env bash
# Local Weaviate server for development and tests (no Docker needed).
#
#   scripts/weaviate.sh binary   print the path of the cached weaviate-server binary (build/download if missing)
#   scripts/weaviate.sh start    start a single local node in the background and wait until it is ready
#   scripts/weaviate.sh stop     stop it (SIGTERM, then SIGKILL after 20 s)
#   scripts/weaviate.sh status   exit 0 if ready, 1 otherwise
#
# Environment:
#   WEAVIATE_URL         use this external server instead: start/status only check its readiness
#   WEAVIATE_HTTP_PORT   REST port (default 18080); internal ports are HTTP+1..HTTP+4
#   WEAVIATE_GRPC_PORT   gRPC port (default 15051)
#   DATA_DIR             default <repo>/.data  (pid file, log and data under $DATA_DIR/weaviate/)
#   CACHE_DIR            default <repo>/.cache (binary under $CACHE_DIR/weaviate/v<version>/)
#   WEAVIATE_START_TIMEOUT  seconds to wait for readiness (default 120)
#   WEAVIATE_LOG_LEVEL   server log level (default info)
#   QUERY_MAXIMUM_RESULTS  passed through to the server when set: the most objects a search
#                        returns or a batch delete removes at once (Weaviate's default 10000)
# Note: Weaviate binds gRPC and the internal data port on all interfaces (hard-coded upstream);
# REST, gossip and raft are on 127.0.0.1 only.
# Progress goes to stderr; only `binary` writes to stdout.
set -euo pipefail
shopt -s inherit_errexit

WEAVIATE_VERSION=1.39.0
GO_MIN_MAJOR=1
GO_MIN_MINOR=26

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/.." && pwd)

abspath() { # make a path absolute without requiring it to exist
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}

CACHE_DIR=$(abspath "${CACHE_DIR:-$REPO_ROOT/.cache}")
DATA_DIR=$(abspath "${DATA_DIR:-$REPO_ROOT/.data}")

BIN_DIR="$CACHE_DIR/weaviate/v$WEAVIATE_VERSION"
BIN="$BIN_DIR/weaviate-server"
# Where an earlier plain `GOBIN=$CACHE_DIR/bin go install ...` may have left a binary.
LEGACY_BIN="$CACHE_DIR/bin/weaviate-server"

RUN_DIR="$DATA_DIR/weaviate"
PID_FILE="$RUN_DIR/weaviate.pid"
LOG_FILE="$RUN_DIR/weaviate.log"
PERSIST_DIR="$RUN_DIR/data"

HTTP_PORT=${WEAVIATE_HTTP_PORT:-18080}
GRPC_PORT=${WEAVIATE_GRPC_PORT:-15051}
# Internal ports derived from the HTTP port so that instances with different HTTP ports never clash.
GOSSIP_PORT=$((HTTP_PORT + 1))
DATA_PORT=$((HTTP_PORT + 2))
RAFT_PORT=$((HTTP_PORT + 3))
RAFT_INTERNAL_RPC_PORT=$((RAFT_PORT + 1)) # must be RAFT_PORT + 1, else bootstrap can hang
NODE_NAME=weaviate-0                      # fixed: raft state in the data dir refers to it

START_TIMEOUT=${WEAVIATE_START_TIMEOUT:-120}
STOP_TIMEOUT=20

log() { printf 'weaviate: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- helpers

base_url() {
  if [[ -n ${WEAVIATE_URL:-} ]]; then
    printf '%s\n' "${WEAVIATE_URL%/}"
  else
    printf 'http://127.0.0.1:%s\n' "$HTTP_PORT"
  fi
}

is_ready() { # is_ready BASE_URL
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1/v1/.well-known/ready" 2>/dev/null) || true
  [[ $code == 200 ]]
}

port_open() { # port_open PORT: something accepts TCP connections on 127.0.0.1:PORT
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

with_lock() { # with_lock LOCKFILE CMD...: serialise concurrent runs (flock when available)
  local lockfile=$1
  shift
  if command -v flock >/dev/null 2>&1; then
    mkdir -p "$(dirname "$lockfile")"
    (
      flock 9
      "$@"
    ) 9>"$lockfile"
  else
    "$@"
  fi
}

running_pid() { # print the pid of our server if it is alive, else clean a stale pid file
  local pid args
  [[ -f $PID_FILE ]] || return 1
  pid=$(<"$PID_FILE")
  if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    args=$(ps -o args= -p "$pid" 2>/dev/null || true)
    if [[ $args == *weaviate* ]]; then
      printf '%s\n' "$pid"
      return 0
    fi
  fi
  rm -f "$PID_FILE"
  return 1
}

go_is_recent() { # go present and version >= GO_MIN_MAJOR.GO_MIN_MINOR
  local v major minor
  command -v go >/dev/null 2>&1 || return 1
  v=$(go env GOVERSION 2>/dev/null) || return 1 # e.g. go1.26.8
  [[ $v =~ ^go([0-9]+)\.([0-9]+) ]] || return 1
  major=${BASH_REMATCH[1]}
  minor=${BASH_REMATCH[2]}
  ((major > GO_MIN_MAJOR || (major == GO_MIN_MAJOR && minor >= GO_MIN_MINOR)))
}

binary_has_version() { # binary_has_version FILE: true if go build info says v$WEAVIATE_VERSION (or cannot tell)
  command -v go >/dev/null 2>&1 || return 0
  go version -m "$1" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/weaviate/weaviate[[:space:]]+v$WEAVIATE_VERSION([[:space:]]|$)"
}

# ---------------------------------------------------------------- binary

build_with_go() { # build into a temp dir next to the target, then rename atomically
  local tmp
  tmp=$(mktemp -d "$BIN_DIR/.build.XXXXXX")
  log "building weaviate-server v$WEAVIATE_VERSION with $(go env GOVERSION) (several minutes; log: $BIN_DIR/build.log)"
  local start=$SECONDS
  if ! (cd "$tmp" && GOBIN="$tmp" CGO_ENABLED=0 GOWORK=off \
    go install -tags netgo -ldflags '-s -w' \
    "github.com/weaviate/weaviate/cmd/weaviate-server@v$WEAVIATE_VERSION") >"$BIN_DIR/build.log" 2>&1; then
    tail -n 20 "$BIN_DIR/build.log" >&2
    rm -rf "$tmp"
    die "go install failed"
  fi
  mv -f "$tmp/weaviate-server" "$BIN"
  rm -rf "$tmp"
  log "built in $((SECONDS - start)) s"
}

download_release() {
  local arch tmp url
  [[ $(uname -s) == Linux ]] || die "no Go >= $GO_MIN_MAJOR.$GO_MIN_MINOR and release binaries are Linux-only: install Go or set WEAVIATE_URL"
  case $(uname -m) in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "unsupported architecture $(uname -m)" ;;
  esac
  url="https://github.com/weaviate/weaviate/releases/download/v$WEAVIATE_VERSION/weaviate-v$WEAVIATE_VERSION-linux-$arch.tgz"
  tmp=$(mktemp -d "$BIN_DIR/.download.XXXXXX")
  log "downloading $url"
  if ! curl -fsSL --retry 3 -o "$tmp/weaviate.tgz" "$url"; then
    rm -rf "$tmp"
    die "download failed: $url"
  fi
  if ! tar -xzf "$tmp/weaviate.tgz" -C "$tmp" weaviate 2>/dev/null && ! tar -xzf "$tmp/weaviate.tgz" -C "$tmp" ./weaviate; then
    rm -rf "$tmp"
    die "no 'weaviate' executable in $url"
  fi
  chmod +x "$tmp/weaviate"
  mv -f "$tmp/weaviate" "$BIN"
  rm -rf "$tmp"
}

provide_binary() {
  [[ -x $BIN ]] && return 0
  mkdir -p "$BIN_DIR"
  # A plain `go install` into $CACHE_DIR/bin may still be running: wait for it, do not build twice.
  local waited=0
  while [[ -d ${LEGACY_BIN%/*} ]] && pgrep -f "go install.*weaviate/cmd/weaviate-server@v$WEAVIATE_VERSION" >/dev/null 2>&1; do
    ((waited == 0)) && log "waiting for a running 'go install' of weaviate-server v$WEAVIATE_VERSION"
    sleep 5
    waited=$((waited + 5))
  done
  if [[ -x $LEGACY_BIN ]] && binary_has_version "$LEGACY_BIN"; then
    log "moving $LEGACY_BIN to $BIN"
    mv -f "$LEGACY_BIN" "$BIN.tmp.$$" # copy across filesystems if needed, then rename atomically
    mv -f "$BIN.tmp.$$" "$BIN"
    return 0
  fi
  if go_is_recent; then
    build_with_go
  else
    download_release
  fi
}

cmd_binary() {
  with_lock "$CACHE_DIR/weaviate/.lock" provide_binary
  [[ -x $BIN ]] || die "no binary at $BIN"
  printf '%s\n' "$BIN"
}

# ---------------------------------------------------------------- server

wait_ready() { # wait_ready PID(or empty for external)
  local pid=$1 url deadline
  url=$(base_url)
  deadline=$((SECONDS + START_TIMEOUT))
  until is_ready "$url"; do
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      log "server exited during startup; last log lines:"
      tail -n 40 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      log "not ready at $url after $START_TIMEOUT s"
      if [[ -n $pid ]]; then
        tail -n 40 "$LOG_FILE" >&2 || true
        log "stopping the unready server (pid $pid)"
        terminate "$pid"
        rm -f "$PID_FILE"
      fi
      exit 1
    fi
    sleep 0.25
  done
  if [[ -n $pid ]] && ! port_open "$GRPC_PORT"; then
    # gRPC normally listens before REST reports ready; give it a moment.
    local i
    for i in $(seq 1 40); do
      port_open "$GRPC_PORT" && break
      sleep 0.25
    done
    port_open "$GRPC_PORT" || die "REST ready but gRPC port $GRPC_PORT is not listening (log: $LOG_FILE)"
  fi
}

launch() {
  local pid bin p
  if pid=$(running_pid); then
    if is_ready "$(base_url)"; then
      log "already running (pid $pid) on $(base_url)"
      return 0
    fi
    log "already starting (pid $pid); waiting for readiness"
    wait_ready "$pid"
    log "ready on $(base_url) (grpc 127.0.0.1:$GRPC_PORT)"
    return 0
  fi

  for p in "$HTTP_PORT" "$GRPC_PORT" "$GOSSIP_PORT" "$DATA_PORT" "$RAFT_PORT" "$RAFT_INTERNAL_RPC_PORT"; do
    if port_open "$p"; then
      die "port $p is already in use (another Weaviate with a different DATA_DIR?); set WEAVIATE_HTTP_PORT/WEAVIATE_GRPC_PORT or stop it"
    fi
  done

  bin=$(cmd_binary)
  mkdir -p "$PERSIST_DIR"
  log "starting v$WEAVIATE_VERSION on 127.0.0.1:$HTTP_PORT (grpc $GRPC_PORT, data $PERSIST_DIR)"
  local start=$SECONDS launcher=()
  command -v setsid >/dev/null 2>&1 && launcher=(setsid)
  printf '\n==== %s start\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$LOG_FILE"
  (
    unset PORT HOST
    export PERSISTENCE_DATA_PATH="$PERSIST_DIR"
    export AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true
    export DEFAULT_VECTORIZER_MODULE=none
    export API_BASED_MODULES_DISABLED=true
    export DISABLE_TELEMETRY=true
    export GO_PROFILING_DISABLE=true
    export CLUSTER_HOSTNAME="$NODE_NAME"
    export CLUSTER_BIND_ADDR=127.0.0.1
    export CLUSTER_GOSSIP_BIND_PORT="$GOSSIP_PORT"
    export CLUSTER_DATA_BIND_PORT="$DATA_PORT"
    export RAFT_PORT RAFT_INTERNAL_RPC_PORT
    export RAFT_JOIN="$NODE_NAME:$RAFT_INTERNAL_RPC_PORT"
    export RAFT_BOOTSTRAP_EXPECT=1
    export RAFT_TIMEOUTS_MULTIPLIER=1
    export GRPC_PORT
    export LOG_LEVEL="${WEAVIATE_LOG_LEVEL:-info}" # empty LOG_LEVEL logs a warning
    # The child writes its own pid (setsid may fork), then becomes the server.
    # shellcheck disable=SC2016 # expanded by the inner shell
    exec nohup "${launcher[@]}" bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
      "$bin" --scheme http --host 127.0.0.1 --port "$HTTP_PORT"
  ) </dev/null >>"$LOG_FILE" 2>&1 9>&- &
  disown # the server outlives this script; no job notices
  local i
  for i in $(seq 1 40); do # wait for the pid file
    [[ -s $PID_FILE ]] && break
    sleep 0.05
  done
  pid=$(cat "$PID_FILE" 2>/dev/null || true)
  [[ -n $pid ]] || die "server did not start (log: $LOG_FILE)"
  wait_ready "$pid"
  log "ready on $(base_url) (grpc 127.0.0.1:$GRPC_PORT, pid $pid) in $((SECONDS - start)) s"
}

cmd_start() {
  if [[ -n ${WEAVIATE_URL:-} ]]; then
    log "WEAVIATE_URL is set: checking $(base_url)"
    wait_ready ""
    log "ready on $(base_url)"
    return 0
  fi
  mkdir -p "$RUN_DIR"
  with_lock "$RUN_DIR/.lock" launch
}

terminate() { # terminate PID: SIGTERM, wait up to STOP_TIMEOUT, then SIGKILL
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < STOP_TIMEOUT * 4; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  log "still running after $STOP_TIMEOUT s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 20; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
}

halt() {
  local pid
  if ! pid=$(running_pid); then
    log "not running"
    return 0
  fi
  log "stopping pid $pid"
  terminate "$pid"
  rm -f "$PID_FILE"
  log "stopped"
}

cmd_stop() {
  if [[ -n ${WEAVIATE_URL:-} ]]; then
    log "WEAVIATE_URL is set: external server, nothing to stop"
    return 0
  fi
  [[ -d $RUN_DIR ]] || { log "not running"; return 0; }
  with_lock "$RUN_DIR/.lock" halt
}

cmd_status() {
  local url
  url=$(base_url)
  if is_ready "$url"; then
    log "ready on $url"
    return 0
  fi
  log "not ready on $url"
  return 1
}

case ${1:-} in
  binary) cmd_binary ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 {binary|start|stop|status}" >&2
    exit 2
    ;;
esac
