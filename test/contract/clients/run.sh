#!/usr/bin/env bash
# Generated clients, made as a third party makes them: from the /openapi.json that the
# documentation site serves, a TypeScript client (openapi-typescript types, openapi-fetch, built
# with tsc) and a Python client (openapi-python-client from the venv of scripts/setup.sh
# --contract), each running a session against the running API (session.ts, session.py).
# Generated code goes to the git-ignored .generated/ beside this file, made anew on every run.
#   run.sh <API base URL> <docs base URL> <Free-plan key for TypeScript> <Free-plan key for Python>
set -euo pipefail
source "$(dirname "$0")/../../../scripts/lib/common.sh"
ensure_node
api="$1" docs="$2" ts_key="$3" py_key="$4"
dir="$REPO_DIR/test/contract/clients"
gen="$dir/.generated"
rm -rf "$gen"
mkdir -p "$gen/typescript" "$gen/python"

log "TypeScript client: openapi-typescript $docs/openapi.json (the command of the getting-started guide), tsc, session"
# run where no redocly.yaml is, as in a third party's project (openapi-typescript reads one from its working directory)
(cd "$gen/typescript" && "$REPO_DIR/node_modules/.bin/openapi-typescript" "$docs/openapi.json" -o svcai.d.ts)
"$REPO_DIR/node_modules/.bin/tsc" -p "$dir/tsconfig.json"
node "$gen/dist/session.js" "$api" "$ts_key"

log "Python client: openapi-python-client $docs/openapi.json, session"
# the command of the getting-started guide; the venv's bin first: the generator formats its output with the venv's ruff
generated="$(cd "$gen/python" && PATH="$CACHE_DIR/venv/bin:$PATH" openapi-python-client generate --url "$docs/openapi.json" 2>&1)" \
  || { echo "$generated" >&2; exit 1; }
# the generator skips what it cannot express and only warns: a warning is a contract problem here
if grep -qi warning <<<"$generated"; then
  echo "$generated" >&2
  log "openapi-python-client warned about the contract (see above)"
  exit 1
fi
PYTHONPATH="$gen/python/svcai-developer-query-api-client" "$CACHE_DIR/venv/bin/python" "$dir/session.py" "$api" "$py_key"
