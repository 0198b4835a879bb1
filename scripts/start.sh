#!/usr/bin/env bash
# npm start: runs the compiled API as it is deployed, with the Node options and the memory
# allocator measured in the README ("Performance": the memory allocator): V8's young generation
# capped at 4 MB a semi-space, its old generation grown by 30% of what survived the last full
# collection, and jemalloc (Debian's libjemalloc2; scripts/setup.sh installs it) in place of
# glibc's malloc, which held 20-36 MB more under the soak's load. SERVICE_MALLOC=glibc keeps
# glibc's. Arguments go to node after those options: Node options alone (in --name=value form)
# still run the API; with a script or code (-e), node runs that instead. Runs the `node` on PATH,
# as `npm start` does.
set -eu
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
if [ "${SERVICE_MALLOC:-jemalloc}" = jemalloc ]; then
  lib="$(jemalloc_library)"
  if [ -n "$lib" ]; then
    export LD_PRELOAD="$lib${LD_PRELOAD:+ $LD_PRELOAD}"
    # freed pages go back to the system after 1 s (10 s by default), from jemalloc's own thread:
    # 5-15 MB less under sustained query load (README "The memory allocator")
    export MALLOC_CONF="${MALLOC_CONF:-background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0}"
  else
    log "libjemalloc2 is not installed (scripts/setup.sh installs it): glibc's malloc, 20-36 MB more memory under load"
  fi
elif [ "$SERVICE_MALLOC" != glibc ]; then
  log "SERVICE_MALLOC is 'jemalloc' (the default) or 'glibc', not '$SERVICE_MALLOC'"
  exit 2
fi
only_options=yes
for arg in "$@"; do
  case "$arg" in -*) ;; *) only_options=no ;; esac
done
[ "$only_options" = no ] || set -- "$@" "$REPO_DIR/dist/src/main.js"
exec node --max-semi-space-size=4 --heap-growing-percent=30 "$@"
