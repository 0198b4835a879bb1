#!/usr/bin/env bash
# Local mail catcher for development and tests: start | stop | url | web.
# An SMTP server on 127.0.0.1:$MAIL_SMTP_PORT that keeps the mail it gets and shows it on
# http://127.0.0.1:$MAIL_HTTP_PORT (scripts/mail-catcher.ts). Does nothing when SMTP_URL points at
# a real mail server.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ensure_node

SMTP_PORT="${MAIL_SMTP_PORT:-1025}"
HTTP_PORT="${MAIL_HTTP_PORT:-8025}"
RUN_DIR="$DATA_DIR/mail"
PID_FILE="$RUN_DIR/catcher.pid"

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

cmd_start() {
  if [ -n "${SMTP_URL:-}" ] || running; then return 0; fi
  mkdir -p "$RUN_DIR"
  log "starting the mail catcher: SMTP on 127.0.0.1:$SMTP_PORT, mail shown on http://127.0.0.1:$HTTP_PORT"
  nohup node "$REPO_DIR/dist/scripts/mail-catcher.js" --smtp-port "$SMTP_PORT" --http-port "$HTTP_PORT" >"$RUN_DIR/catcher.log" 2>&1 &
  echo $! > "$PID_FILE"
  local deadline=$((SECONDS + 30))
  until curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$HTTP_PORT/messages"; do
    if ! running || ((SECONDS >= deadline)); then
      log "the mail catcher did not start; its log:"; cat "$RUN_DIR/catcher.log" >&2; exit 1
    fi
    sleep 0.2
  done
}

cmd_stop() {
  if running; then
    local pid; pid="$(cat "$PID_FILE")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  url) if [ -n "${SMTP_URL:-}" ]; then echo "$SMTP_URL"; else echo "smtp://127.0.0.1:$SMTP_PORT"; fi ;;
  web) echo "http://127.0.0.1:$HTTP_PORT" ;;
  *) echo "usage: $0 start|stop|url|web" >&2; exit 2 ;;
esac
