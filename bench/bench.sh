#!/usr/bin/env bash
# npm run bench [-- --smoke]: builds the service, starts a fresh PostgreSQL, Weaviate and embeddings server on the
# benchmark's own ports and data folder (.data/bench), runs bench/main.ts, and stops both on
# every exit. Ports: BENCH_PG_PORT (15452), BENCH_WEAVIATE_HTTP_PORT (18110, and the four ports
# after it), BENCH_WEAVIATE_GRPC_PORT (15081), BENCH_EMBEDDINGS_PORT (18102, the embeddings server).
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"
ensure_node
cd "$REPO_DIR"
npm run --silent build
# never the services of the caller (scripts/test.sh exports its own): the run inserts its own plan
unset DATABASE_URL WEAVIATE_URL EMBEDDINGS_BASE_URL LOCAL_POSTGRES LOCAL_WEAVIATE LOCAL_EMBEDDINGS KEY_HASH_SECRET
export DATA_DIR="$REPO_DIR/.data/bench" PG_PORT="${BENCH_PG_PORT:-15452}"
export WEAVIATE_HTTP_PORT="${BENCH_WEAVIATE_HTTP_PORT:-18110}" WEAVIATE_GRPC_PORT="${BENCH_WEAVIATE_GRPC_PORT:-15081}"
export MAIL_SMTP_PORT="${BENCH_MAIL_SMTP_PORT:-11055}" PAYHERE_SANDBOX_PORT="${BENCH_PAYHERE_SANDBOX_PORT:-18057}" MAIL_HTTP_PORT="${BENCH_MAIL_HTTP_PORT:-18055}"
export EMBEDDINGS_PORT="${BENCH_EMBEDDINGS_PORT:-18102}"
source "$REPO_DIR/scripts/lib/services.sh"
start_fresh_services
LOG_LEVEL="${LOG_LEVEL:-info}" node dist/bench/main.js "$@"
