#!/usr/bin/env bash
# PgBouncer in transaction pooling in front of the local PostgreSQL, for the
# tests, CI and `npm run bench -- --pgbouncer` (issue 26): `scripts/pgbouncer.sh start` listens on
# 127.0.0.1:${PGBOUNCER_PORT:-6432} and passes every database name through to
# ${PGBOUNCER_TARGET_HOST:-127.0.0.1}:${PGBOUNCER_TARGET_PORT:-5432} (a wildcard entry, so databases the tests
# create work too), authenticating as ${PGBOUNCER_USER:-postgres} with ${PGBOUNCER_PASSWORD:-postgres};
# `scripts/pgbouncer.sh stop` stops it. Then:
#   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:6432/postgres node --import tsx --test …
# Needs Debian's pgbouncer package. As root it runs as the postgres user.
set -euo pipefail
dir=${PGBOUNCER_DIR:-/tmp/almanac-pgbouncer}
port=${PGBOUNCER_PORT:-6432}
user=${PGBOUNCER_USER:-postgres}
password=${PGBOUNCER_PASSWORD:-postgres}
target_host=${PGBOUNCER_TARGET_HOST:-127.0.0.1}
target_port=${PGBOUNCER_TARGET_PORT:-5432}

case ${1:-start} in
  start)
    mkdir -p "$dir"
    cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$target_host port=$target_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
max_db_connections = 40
server_idle_timeout = 30
ignore_startup_parameters = extra_float_digits
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
    # The auth file doubles a double quote inside a quoted value.
    printf '"%s" "%s"\n' "${user//\"/\"\"}" "${password//\"/\"\"}" >"$dir/userlist.txt"
    chmod 600 "$dir/userlist.txt"
    if [ "$(id -u)" = 0 ]; then
      chown -R postgres "$dir"
      pgbouncer -d -u postgres "$dir/pgbouncer.ini"
    else
      pgbouncer -d "$dir/pgbouncer.ini"
    fi
    for _ in $(seq 1 50); do
      PGPASSWORD=$password psql -h 127.0.0.1 -p "$port" -U "$user" -d postgres -Atqc 'select 1' >/dev/null 2>&1 && exit 0
      sleep 0.2
    done
    echo "pgbouncer did not start; its log:" >&2
    tail -20 "$dir/pgbouncer.log" >&2 || true
    exit 1
    ;;
  stop)
    [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 1
    ;;
esac
