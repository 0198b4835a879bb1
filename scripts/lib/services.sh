# Starts the local backing services unless the environment points at existing ones, and exports
# the settings the service reads. Source after common.sh.

# A stable local secret for hashing keys, made once per data folder (never committed).
ensure_key_secret() {
  if [ -z "${KEY_HASH_SECRET:-}" ]; then
    local file="$DATA_DIR/key-hash-secret"
    if [ ! -s "$file" ]; then
      mkdir -p "$DATA_DIR"
      (umask 077 && openssl rand -hex 32 > "$file")
    fi
    KEY_HASH_SECRET="$(cat "$file")"
    export KEY_HASH_SECRET
  fi
}

start_services() {
  [ -n "${DATABASE_URL:-}" ] || LOCAL_POSTGRES=1
  bash "$REPO_DIR/scripts/postgres.sh" start
  DATABASE_URL="$(bash "$REPO_DIR/scripts/postgres.sh" url)"
  export DATABASE_URL
  # with WEAVIATE_URL set, weaviate.sh only waits for that server; give its gRPC port too
  if [ -z "${WEAVIATE_URL:-}" ]; then
    export WEAVIATE_HTTP_PORT="${WEAVIATE_HTTP_PORT:-18080}" WEAVIATE_GRPC_PORT="${WEAVIATE_GRPC_PORT:-15051}"
    WEAVIATE_URL="http://127.0.0.1:$WEAVIATE_HTTP_PORT"
    bash "$REPO_DIR/scripts/weaviate.sh" start
    export WEAVIATE_URL
    LOCAL_WEAVIATE=1
  else
    bash "$REPO_DIR/scripts/weaviate.sh" start
  fi
  # with SMTP_URL set, mail goes to that server; otherwise to the local catcher
  if [ -z "${SMTP_URL:-}" ]; then
    bash "$REPO_DIR/scripts/mail.sh" start
    SMTP_URL="$(bash "$REPO_DIR/scripts/mail.sh" url)"
    MAIL_WEB_URL="$(bash "$REPO_DIR/scripts/mail.sh" web)"
    export SMTP_URL MAIL_WEB_URL
    LOCAL_MAIL=1
  fi
  # with PAYHERE_MERCHANT_ID set, paid plans go to that merchant; otherwise to the local sandbox
  if [ -z "${PAYHERE_MERCHANT_ID:-}" ]; then
    bash "$REPO_DIR/scripts/payhere-sandbox.sh" start
    while IFS='=' read -r name value; do export "$name=$value"; done < <(bash "$REPO_DIR/scripts/payhere-sandbox.sh" env)
    LOCAL_PAYHERE=1
  fi
  # the embeddings server for hybrid retrieval, local unless EMBEDDINGS_BASE_URL names another
  if [ -z "${EMBEDDINGS_BASE_URL:-}" ]; then
    export EMBEDDINGS_PORT="${EMBEDDINGS_PORT:-18100}"
    bash "$REPO_DIR/scripts/embeddings.sh" start
    EMBEDDINGS_BASE_URL="$(bash "$REPO_DIR/scripts/embeddings.sh" url)"
    export EMBEDDINGS_BASE_URL
    LOCAL_EMBEDDINGS=1
  else
    bash "$REPO_DIR/scripts/embeddings.sh" start
  fi
  ensure_key_secret
  node "$REPO_DIR/dist/scripts/migrate.js"
}

# Starts local services on an empty data folder, stopped again when the calling script exits
# (the tests and the benchmark each run on their own ports and folder).
start_fresh_services() {
  stop_services
  rm -rf "$DATA_DIR"
  trap stop_services EXIT
  start_services
}

# Stops the local servers (and only those): the URLs exported for the service must not make the
# scripts take our own servers for external ones.
stop_services() {
  if [ -n "${LOCAL_PAYHERE:-}" ] || [ -z "${PAYHERE_MERCHANT_ID:-}" ]; then
    PAYHERE_MERCHANT_ID='' bash "$REPO_DIR/scripts/payhere-sandbox.sh" stop || true
  fi
  if [ -n "${LOCAL_MAIL:-}" ] || [ -z "${SMTP_URL:-}" ]; then
    SMTP_URL='' bash "$REPO_DIR/scripts/mail.sh" stop || true
  fi
  if [ -n "${LOCAL_EMBEDDINGS:-}" ] || [ -z "${EMBEDDINGS_BASE_URL:-}" ]; then
    EMBEDDINGS_BASE_URL='' bash "$REPO_DIR/scripts/embeddings.sh" stop || true
  fi
  if [ -n "${LOCAL_WEAVIATE:-}" ] || [ -z "${WEAVIATE_URL:-}" ]; then
    WEAVIATE_URL='' bash "$REPO_DIR/scripts/weaviate.sh" stop || true
  fi
  if [ -n "${LOCAL_POSTGRES:-}" ] || [ -z "${DATABASE_URL:-}" ]; then
    DATABASE_URL='' bash "$REPO_DIR/scripts/postgres.sh" stop || true
  fi
}
