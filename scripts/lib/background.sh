# Starting and stopping the project's own small local servers (mail catcher, payment sandbox) as
# background processes with a pid file. Source after common.sh.

# start_background NAME PIDFILE LOGFILE READY_URL COMMAND...: starts COMMAND unless it runs, and
# waits up to 30 s for READY_URL to answer; on failure prints the log and exits 1.
start_background() {
  local name="$1" pidfile="$2" logfile="$3" ready="$4"
  shift 4
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then return 0; fi
  mkdir -p "$(dirname "$pidfile")" "$(dirname "$logfile")"
  nohup "$@" >"$logfile" 2>&1 &
  echo $! > "$pidfile"
  local deadline=$((SECONDS + 30))
  until curl -s -o /dev/null --max-time 2 "$ready"; do
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null || ((SECONDS >= deadline)); then
      log "$name did not start; its log:"; cat "$logfile" >&2; exit 1
    fi
    sleep 0.2
  done
}

# stop_background PIDFILE: stops the process (TERM, then KILL after 5 s) and removes the pid file.
stop_background() {
  local pidfile="$1" pid
  if [ -f "$pidfile" ]; then
    pid="$(cat "$pidfile")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile"
}
