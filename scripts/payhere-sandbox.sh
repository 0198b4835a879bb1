#!/usr/bin/env bash
# Local PayHere sandbox for development and tests: start | stop | env.
# scripts/payhere-sandbox.ts on 127.0.0.1:$PAYHERE_SANDBOX_PORT with a merchant secret made once
# per data folder; `env` prints the PAYHERE_* settings that point the service at it. Does nothing
# when PAYHERE_MERCHANT_ID is set (a real merchant).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/background.sh"
ensure_node

PORT="${PAYHERE_SANDBOX_PORT:-8030}"
DIR="$DATA_DIR/payhere-sandbox"
MERCHANT_ID=1221149
APP_ID=4OVxSandboxApp

secret() { # secret NAME: a random secret made once per data folder
  if [ ! -s "$DIR/$1" ]; then
    mkdir -p "$DIR"
    (umask 077 && openssl rand -hex 24 > "$DIR/$1")
  fi
  cat "$DIR/$1"
}

case "${1:-}" in
  start)
    [ -n "${PAYHERE_MERCHANT_ID:-}" ] || start_background "the PayHere sandbox" "$DIR/sandbox.pid" "$DIR/sandbox.log" "http://127.0.0.1:$PORT/sandbox/notifications" \
      node "$REPO_DIR/dist/scripts/payhere-sandbox.js" --port "$PORT" --merchant-id "$MERCHANT_ID" --merchant-secret "$(secret merchant-secret)" \
      --app-id "$APP_ID" --app-secret "$(secret app-secret)" ;;
  stop) stop_background "$DIR/sandbox.pid" ;;
  env)
    echo "PAYHERE_MERCHANT_ID=$MERCHANT_ID"
    echo "PAYHERE_MERCHANT_SECRET=$(secret merchant-secret)"
    echo "PAYHERE_APP_ID=$APP_ID"
    echo "PAYHERE_APP_SECRET=$(secret app-secret)"
    echo "PAYHERE_CHECKOUT_URL=http://127.0.0.1:$PORT/pay/checkout"
    echo "PAYHERE_API_URL=http://127.0.0.1:$PORT/merchant/v1"
    echo "PAYHERE_SANDBOX_URL=http://127.0.0.1:$PORT" ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
