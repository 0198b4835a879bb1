#!/usr/bin/env bash
# Local mail catcher for development and tests: start | stop | url | web.
# An SMTP server on 127.0.0.1:$MAIL_SMTP_PORT that keeps the mail it gets and shows it on
# http://127.0.0.1:$MAIL_HTTP_PORT (scripts/mail-catcher.ts). Does nothing when SMTP_URL points at
# a real mail server.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/background.sh"
ensure_node

SMTP_PORT="${MAIL_SMTP_PORT:-1025}"
HTTP_PORT="${MAIL_HTTP_PORT:-8025}"
PID_FILE="$DATA_DIR/mail/catcher.pid"

case "${1:-}" in
  start)
    [ -n "${SMTP_URL:-}" ] || start_background "the mail catcher" "$PID_FILE" "$DATA_DIR/mail/catcher.log" "http://127.0.0.1:$HTTP_PORT/messages" \
      node "$REPO_DIR/dist/scripts/mail-catcher.js" --smtp-port "$SMTP_PORT" --http-port "$HTTP_PORT" ;;
  stop) stop_background "$PID_FILE" ;;
  url) if [ -n "${SMTP_URL:-}" ]; then echo "$SMTP_URL"; else echo "smtp://127.0.0.1:$SMTP_PORT"; fi ;;
  web) echo "http://127.0.0.1:$HTTP_PORT" ;;
  *) echo "usage: $0 start|stop|url|web" >&2; exit 2 ;;
esac
