#!/usr/bin/env bash
# Contract tests: schemathesis fuzzes every operation of the contract against the running server,
# with all checks and both valid and invalid data, so a new operation is fuzzed as soon as it is in
# the contract. It reads the bundled contract src/generated/openapi.json (one document without file
# references; `npm run codegen:check` proves it matches openapi/). Expects DATABASE_URL,
# KEY_HASH_SECRET and WEAVIATE_URL (scripts/test.sh provides them) and the venv from scripts/setup.sh --contract.
# Then clients/run.sh generates a TypeScript and a Python client from the served /openapi.json and
# runs a session with each.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/common.sh"
ensure_node
cd "$REPO_DIR"

PORT="${CONTRACT_PORT:-18200}"
out="$DATA_DIR/contract"
mkdir -p "$out"

node dist/scripts/ingest.js --manifest samples/curriculum/manifest.json --store default --if-empty
# a key of a new account on `plan`, printed
new_key() {
  local account
  account="$(node dist/scripts/keys.js account create --name "contract tests ($1)" | grep -oE '[0-9a-f-]{36}' | head -1)"
  node dist/scripts/keys.js subscription set --account "$account" --plan "$1" >/dev/null
  node dist/scripts/keys.js key create --account "$account" --name contract | grep -oE '^(svc_|sk_test_)[A-Za-z0-9]+$'
}
# The run's key is on a copy of Enterprise whose per-minute limit schemathesis's pace never meets
# (the limiter still runs): paced under Enterprise's 200 a minute, the run took half an hour.
contract_plan="contract-$(date +%s)-$RANDOM"
node dist/scripts/keys.js plan create --code "$contract_plan" --like enterprise --per-minute 100000 >/dev/null
key="$(new_key "$contract_plan")"

# the generated clients read the contract from the docs site
DOCS_PORT="$(node --input-type=module -e "import { freePort } from './dist/scripts/lib/free-port.js'; console.log(await freePort())")"
PORT="$PORT" DOCS_PORT="$DOCS_PORT" LOG_LEVEL=warn bash scripts/start.sh >"$out/server.log" 2>&1 &
server=$!
# stopped on every exit, and waited for (it shuts down within 10 s)
trap 'kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; true' EXIT
# ready within 60 s, also on a busy machine; otherwise the run stops here, with the server's log
deadline=$((SECONDS + 60))
until curl -fs -o /dev/null --max-time 5 "http://127.0.0.1:$PORT/api/v1/dev/plans" -H "X-API-Key: $key"; do
  if ! kill -0 "$server" 2>/dev/null || ((SECONDS >= deadline)); then
    log "the server on port $PORT did not become ready; its log ends with:"
    tail -n 40 "$out/server.log" >&2
    exit 1
  fi
  sleep 0.2
done

PYTHONPATH="$REPO_DIR/test/contract" SCHEMATHESIS_HOOKS=hooks "$CACHE_DIR/venv/bin/st" --config-file "$REPO_DIR/test/contract/schemathesis.toml" run "$REPO_DIR/src/generated/openapi.json" \
  --url "http://127.0.0.1:$PORT" \
  -H "X-API-Key: $key" \
  --checks all \
  --mode all \
  --phases examples,coverage,fuzzing,stateful \
  --max-examples "${CONTRACT_MAX_EXAMPLES:-60}" \
  --seed "${CONTRACT_SEED:-20261121}" \
  --rate-limit "${CONTRACT_RATE_LIMIT:-600/m}" \
  --warnings off \
  --report junit --report-dir "$out"

# Free keys: each client's session ends by exhausting its key's per-minute limit
bash "$REPO_DIR/test/contract/clients/run.sh" "http://127.0.0.1:$PORT" "http://127.0.0.1:$DOCS_PORT" "$(new_key free)" "$(new_key free)"
