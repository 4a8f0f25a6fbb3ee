#!/usr/bin/env bash
# Throwaway PgBouncer in TRANSACTION pooling mode in front of a test PostgreSQL (scripts/pg-test-server.sh), for the
# multi-instance test (test/integration/multi-instance-pgbouncer.test.ts) and for trying the app behind PgBouncer.
#
#   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:55432/postgres scripts/pgbouncer-test.sh start
#       # prints PGBOUNCER_URL=postgres://postgres@127.0.0.1:PORT/postgres last (same database names as upstream)
#   scripts/pgbouncer-test.sh stop
#
# Every database name is forwarded to the same name upstream (`*`), as user postgres without a password (the test
# server trusts 127.0.0.1). Runs as the `postgres` user when this script runs as root (PgBouncer refuses root).
#
# Environment:
#   PGBOUNCER_PORT  port to try first (default 56432); the next free one above it is used if taken. It also names
#                   the instance: start/stop with the same PGBOUNCER_PORT act on the same PgBouncer.
#   PGBOUNCER_BIN   the binary (default: pgbouncer on PATH, else /usr/sbin/pgbouncer)
#   PGBOUNCER_POOL  server connections per database (default 20)
# Progress goes to stderr; stdout carries only the PGBOUNCER_URL line.
set -euo pipefail

REQUESTED_PORT="${PGBOUNCER_PORT:-56432}"
STATE_FILE="/tmp/loyalty-pgbouncer-test.${REQUESTED_PORT}.state"
BIN="${PGBOUNCER_BIN:-$(command -v pgbouncer || echo /usr/sbin/pgbouncer)}"

log() { echo "pgbouncer-test: $*" >&2; }
die() { log "error: $*"; exit 1; }

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

read_state() {
  DIR="" PORT=""
  [ -f "$STATE_FILE" ] || return 1
  DIR="$(sed -n 's/^DIR=//p' "$STATE_FILE")"
  PORT="$(sed -n 's/^PORT=//p' "$STATE_FILE")"
  [ -n "$DIR" ] && [ -n "$PORT" ]
}

do_stop() {
  if ! read_state; then
    log "nothing to stop (no state file $STATE_FILE)"
    return 0
  fi
  local pid
  pid="$(cat "$DIR/pgbouncer.pid" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    log "stopping pgbouncer $pid on port $PORT"
    kill -INT "$pid" 2>/dev/null || true # SIGINT: shut down at once, closing every connection
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  case "$DIR" in
    /tmp/loyalty-pgbouncer.*) rm -rf -- "$DIR" ;;
    *) log "not removing unexpected directory '$DIR'" ;;
  esac
  rm -f -- "$STATE_FILE"
  log "stopped"
}

do_start() {
  [ -x "$BIN" ] || die "$BIN not found: apt-get install -y pgbouncer (.ci/run installs it)"
  [ -n "${TEST_DATABASE_URL:-}" ] || die "TEST_DATABASE_URL is not set (the PostgreSQL to pool)"
  if read_state && kill -0 "$(cat "$DIR/pgbouncer.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
    log "already running on port $PORT; reusing it"
    echo "PGBOUNCER_URL=postgres://postgres@127.0.0.1:$PORT/postgres"
    return 0
  fi
  [ -f "$STATE_FILE" ] && do_stop
  local upstream_host upstream_port
  upstream_host="$(node -e 'const u = new URL(process.argv[1]); console.log(u.hostname)' "$TEST_DATABASE_URL")"
  upstream_port="$(node -e 'const u = new URL(process.argv[1]); console.log(u.port || 5432)' "$TEST_DATABASE_URL")"

  local port="$REQUESTED_PORT" limit=$((REQUESTED_PORT + 100))
  while port_in_use "$port"; do
    port=$((port + 1))
    [ "$port" -le "$limit" ] || die "no free port in $REQUESTED_PORT..$limit"
  done
  DIR="$(mktemp -d /tmp/loyalty-pgbouncer.XXXXXX)"
  PORT="$port"
  chmod 755 "$DIR"
  printf 'DIR=%s\nPORT=%s\n' "$DIR" "$PORT" >"$STATE_FILE"
  cat >"$DIR/pgbouncer.ini" <<INI
[databases]
* = host=$upstream_host port=$upstream_port user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = ${PGBOUNCER_POOL:-20}
max_client_conn = 1000
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
INI
  local user_flag=()
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user to run PgBouncer as"
    chown -R postgres: "$DIR"
    user_flag=(-u postgres)
  fi
  log "starting on 127.0.0.1:$PORT (transaction pooling) in front of $upstream_host:$upstream_port"
  "$BIN" -d "${user_flag[@]}" "$DIR/pgbouncer.ini" || { cat "$DIR/pgbouncer.log" >&2 2>/dev/null; do_stop; exit 1; }
  for _ in $(seq 1 50); do
    if port_in_use "$PORT"; then
      log "ready (dir $DIR)"
      echo "PGBOUNCER_URL=postgres://postgres@127.0.0.1:$PORT/postgres"
      return 0
    fi
    sleep 0.1
  done
  cat "$DIR/pgbouncer.log" >&2 2>/dev/null || true
  do_stop
  die "pgbouncer did not listen within 5 s"
}

case "${1:-}" in
  start) do_start ;;
  stop) do_stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
