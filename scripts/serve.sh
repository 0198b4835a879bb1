#!/usr/bin/env bash
# Quick start: installs what is missing, starts the local database, search index and embeddings server, applies
# migrations, indexes the sample curriculum into the `default` store and creates a demo account
# (both on first start; the demo key is printed then) and runs the API in the foreground.
# Ctrl-C stops the API and the local services it started.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$REPO_DIR/scripts/lib/services.sh"
bash "$REPO_DIR/scripts/setup.sh"
ensure_node
trap stop_services EXIT
start_services
node "$REPO_DIR/dist/scripts/ingest.js" --manifest "$REPO_DIR/samples/curriculum/manifest.json" --store default --if-empty
# a `default` store indexed before hybrid retrieval gets its vectors (nothing to do otherwise)
node "$REPO_DIR/dist/scripts/reindex.js" --store default || log "some chunks of 'default' have no vector yet; queries still answer (BM25 for those)"
node "$REPO_DIR/dist/scripts/seed-demo.js"
export PORT="${PORT:-8000}"
export DOCS_PORT="${DOCS_PORT:-8001}"
log "API on http://${HOST:-127.0.0.1}:$PORT (try: curl -H \"X-API-Key: <demo key>\" http://127.0.0.1:$PORT/api/v1/dev/plans)"
log "Documentation on ${DOCS_BASE_URL:-http://${DOCS_HOST:-${HOST:-127.0.0.1}}:$DOCS_PORT} (guides, API reference, llms.txt)"
log "Dashboard on http://${HOST:-127.0.0.1}:$PORT/dashboard (sign up, plans, API keys, usage)"
[ -z "${PAYHERE_SANDBOX_URL:-}" ] || log "Paid plans are paid on the local PayHere sandbox ($PAYHERE_SANDBOX_URL/pay/checkout)"
[ -z "${MAIL_WEB_URL:-}" ] || log "Mail the service sends (sign-up and password-reset links) is shown on $MAIL_WEB_URL"
# as `npm start` runs it: its Node options and allocator (README "Performance": memory). In the
# background so that a TERM or HUP sent to this script alone (not only Ctrl-C to the terminal's
# group) reaches the API too: otherwise the API outlived the services stopped under it.
api=""
# set before the API starts, so that no signal falls between the two: before, it ends this script
trap 'if [ -n "$api" ]; then kill -TERM "$api" 2>/dev/null || true; else exit 143; fi' INT TERM HUP
bash "$REPO_DIR/scripts/start.sh" &
api=$!
status=0
wait "$api" || status=$?
# a trapped signal ends `wait` early: wait again for the API's own exit
while kill -0 "$api" 2>/dev/null; do
  status=0
  wait "$api" || status=$?
done
exit "$status"
