#!/usr/bin/env bash
# Throwaway PostgreSQL 15 server for tests.
#
#   scripts/pg-test-server.sh start    # prints TEST_DATABASE_URL=postgres://postgres@127.0.0.1:PORT/postgres last
#   scripts/pg-test-server.sh stop     # stops it and deletes its data directory
#   scripts/pg-test-server.sh status
#   scripts/pg-test-server.sh pause    # stops the server but keeps its data (fault tests: the database goes away)
#   scripts/pg-test-server.sh resume   # starts a paused server again on the same port and data
#
# The server lives in a fresh temp dir (data + unix socket), listens on 127.0.0.1 with trust auth and durability
# turned off for speed. It runs as the `postgres` user when this script runs as root (initdb refuses root).
#
# Environment:
#   PGPORT_TEST  port to try first (default 55432); if it is taken, the next free port above it is used.
#                It also names the instance: start/stop/status with the same PGPORT_TEST act on the same server.
#   PG_BIN       PostgreSQL binaries (default /usr/lib/postgresql/15/bin)
#
# `start` while the instance is already running reuses it (prints its URL); `stop` when nothing runs is a no-op.
# Progress goes to stderr; stdout carries only the TEST_DATABASE_URL line.
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
REQUESTED_PORT="${PGPORT_TEST:-55432}"
STATE_FILE="/tmp/loyalty-pg-test-server.${REQUESTED_PORT}.state"

log() { echo "pg-test-server: $*" >&2; }
die() { log "error: $*"; exit 1; }

# Run a command as the database owner: `postgres` when we are root, ourselves otherwise.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    if command -v runuser >/dev/null 2>&1; then
      runuser -u postgres -- "$@"
    else
      local cmd
      cmd="$(printf '%q ' "$@")"
      su postgres -s /bin/sh -c "$cmd"
    fi
  else
    "$@"
  fi
}

port_in_use() {
  # Something accepts TCP connections on the port (IPv4 loopback), or a server of ours already claims it.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
  compgen -G "/tmp/loyalty-pg-test-server.*.state" >/dev/null &&
    grep -lqx "PORT=$1" /tmp/loyalty-pg-test-server.*.state 2>/dev/null && return 0
  return 1
}

read_state() {
  DIR="" PORT=""
  [ -f "$STATE_FILE" ] || return 1
  DIR="$(sed -n 's/^DIR=//p' "$STATE_FILE")"
  PORT="$(sed -n 's/^PORT=//p' "$STATE_FILE")"
  [ -n "$DIR" ] && [ -n "$PORT" ]
}

is_running() {
  read_state || return 1
  [ -d "$DIR/data" ] || return 1
  as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1
}

print_url() {
  echo "TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$1/postgres"
}

do_stop() {
  if ! read_state; then
    log "nothing to stop (no state file $STATE_FILE)"
    return 0
  fi
  if [ -d "$DIR/data" ]; then
    if as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
      log "stopping server on port $PORT"
      if ! as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" stop -m fast -w -t 30 >/dev/null 2>&1; then
        # Last resort: kill the postmaster recorded in its own pid file.
        local pid
        pid="$(head -n1 "$DIR/data/postmaster.pid" 2>/dev/null || true)"
        if [ -n "$pid" ]; then
          log "pg_ctl stop failed; sending SIGQUIT to postmaster $pid"
          kill -QUIT "$pid" 2>/dev/null || true
          sleep 1
        fi
      fi
    fi
  fi
  case "$DIR" in
    /tmp/loyalty-pgtest.*) rm -rf -- "$DIR" ;;
    *) log "not removing unexpected directory '$DIR'" ;;
  esac
  rm -f -- "$STATE_FILE"
  log "stopped"
}

do_start() {
  [ -x "$PG_BIN/initdb" ] || die "$PG_BIN/initdb not found (apt-get install -y postgresql-15, or set PG_BIN)"
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    die "running as root but there is no 'postgres' user to run the server as"
  fi

  if is_running; then
    log "already running on port $PORT (dir $DIR); reusing it"
    print_url "$PORT"
    return 0
  fi
  # Stale state from a crashed run: clean it up first.
  if [ -f "$STATE_FILE" ]; then do_stop; fi

  local port="$REQUESTED_PORT" limit=$((REQUESTED_PORT + 100))
  while port_in_use "$port"; do
    port=$((port + 1))
    [ "$port" -le "$limit" ] || die "no free port in $REQUESTED_PORT..$limit"
  done

  DIR="$(mktemp -d /tmp/loyalty-pgtest.XXXXXX)"
  PORT="$port"
  chmod 755 "$DIR"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$DIR"; fi
  printf 'DIR=%s\nPORT=%s\n' "$DIR" "$PORT" >"$STATE_FILE"

  # On failure, show the server log and clean up.
  trap 'rc=$?; if [ $rc -ne 0 ]; then log "start failed"; [ -f "$DIR/log" ] && tail -n 30 "$DIR/log" >&2; do_stop; fi' EXIT

  log "initdb in $DIR/data"
  as_owner "$PG_BIN/initdb" -D "$DIR/data" -A trust -U postgres -E UTF8 --locale=C --no-sync --no-instructions \
    >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }

  cat >>"$DIR/data/postgresql.conf" <<EOF

# --- throwaway test server (scripts/pg-test-server.sh) ---
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
logging_collector = off
EOF

  log "starting on 127.0.0.1:$PORT"
  as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -t 60 start >/dev/null

  local i
  for i in $(seq 1 60); do
    if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres; then
      trap - EXIT
      log "ready (dir $DIR)"
      print_url "$PORT"
      return 0
    fi
    sleep 0.5
  done
  die "server did not accept connections within 30 s"
}

do_pause() {
  read_state || die "no server to pause (no state file $STATE_FILE)"
  as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" stop -m fast -w -t 30 >/dev/null
  log "paused (port $PORT, dir $DIR)"
}

do_resume() {
  read_state || die "no server to resume (no state file $STATE_FILE)"
  as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -t 60 start >/dev/null
  log "resumed on port $PORT"
  print_url "$PORT"
}

case "${1:-}" in
  start) do_start ;;
  stop) do_stop ;;
  status)
    if is_running; then log "running on port $PORT (dir $DIR)"; print_url "$PORT"; else log "not running"; exit 1; fi
    ;;
  pause) do_pause ;;
  resume) do_resume ;;
  *) echo "usage: $0 start|stop|status|pause|resume" >&2; exit 2 ;;
esac
