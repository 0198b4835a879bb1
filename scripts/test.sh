#!/usr/bin/env bash
# Runs every check of the project, against real services started for the run: the dependency
# policy, generated-code drift, lint and types, OpenAPI lint, unit tests, integration tests (real
# PostgreSQL, real HTTP server), the schemathesis contract tests and a smoke run of the benchmark.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bash "$REPO_DIR/scripts/setup.sh" --contract --browser
ensure_node
cd "$REPO_DIR"
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

log "dependencies: exact pins, lockfile sha512 integrity, reviewed install scripts, installed tree (offline)"
npm run --silent check:dependencies
log "generated code is up to date"
npm run --silent codegen:check
log "lint and types"
npm run --silent lint
log "OpenAPI lint"
npx redocly lint --format=stylish

log "unit tests"
npm run --silent test:unit

# the test services use their own ports and a data folder made fresh for every run
export DATA_DIR="$REPO_DIR/.data/test" PG_PORT="${TEST_PG_PORT:-15442}"
export WEAVIATE_HTTP_PORT="${TEST_WEAVIATE_HTTP_PORT:-18090}" WEAVIATE_GRPC_PORT="${TEST_WEAVIATE_GRPC_PORT:-15061}"
export MAIL_SMTP_PORT="${TEST_MAIL_SMTP_PORT:-11035}" PAYHERE_SANDBOX_PORT="${TEST_PAYHERE_SANDBOX_PORT:-18037}" MAIL_HTTP_PORT="${TEST_MAIL_HTTP_PORT:-18035}"
export EMBEDDINGS_PORT="${TEST_EMBEDDINGS_PORT:-18101}"
source "$REPO_DIR/scripts/lib/services.sh"
start_fresh_services

log "integration tests"
npm run --silent test:integration
log "contract tests"
bash "$REPO_DIR/test/contract/run.sh"
# the benchmark on its own services: fails on failed requests or a server that dies, never on speed
log "benchmark smoke run (a few seconds a scenario, smallest corpus)"
npm run --silent bench -- --smoke
