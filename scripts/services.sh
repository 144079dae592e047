#!/usr/bin/env bash
# services.sh — a throwaway PostgreSQL cluster and Redis server on loopback,
# under one folder, for the tests and the local cluster (scripts/cluster.sh).
#
#   scripts/services.sh start DIR [--pg-port P] [--redis-port R] [--no-redis] [--no-pg]
#   scripts/services.sh stop DIR
#   scripts/services.sh pg-stop DIR | pg-start DIR          (fault tests: lose PostgreSQL)
#   scripts/services.sh pg-crash DIR    (PostgreSQL crashes: every process ends at once, no
#                                        checkpoint; its next start recovers from its WAL)
#   scripts/services.sh redis-stop DIR | redis-start DIR    (fault tests: lose Redis)
#
# `start` writes DIR/services.env with two lines a shell can source:
#   TESSERA_PG='host=127.0.0.1 port=P user=tessera dbname=tessera'
#   TESSERA_REDIS='127.0.0.1:R'
# PostgreSQL's initdb and pg_ctl refuse to run as root: as root, the cluster
# runs as the user `nobody`, its files in a folder of its own under /tmp (nobody
# may be unable to reach DIR: a private parent folder); DIR/pg.dir names it.
# Packages:
# postgresql and redis-server (scripts/deps.sh cluster installs them).
set -euo pipefail

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
shift 2

pg_bin() {
  local b
  for b in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$b/initdb" ] && { echo "$b"; return 0; }
  done
  command -v initdb >/dev/null && { dirname "$(command -v initdb)"; return 0; }
  echo "services.sh: PostgreSQL's initdb was not found: install the Debian package postgresql (scripts/deps.sh cluster)" >&2
  return 1
}

# as_pg CMD...: run as the cluster's user (nobody when we are root)
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# the cluster's folder (DIR/pg, or under /tmp when it runs as nobody)
pgdir() { cat "$dir/pg.dir" 2>/dev/null || echo "$dir/pg"; }

pg_start() {
  local bin; bin=$(pg_bin)
  local pg; pg=$(pgdir)
  local port; port=$(cat "$dir/pg.port")
  as_pg "$bin/pg_ctl" -D "$pg/data" -l "$pg/log" -w -t 60 \
    -o "-p $port -k $pg -c listen_addresses=127.0.0.1" start >/dev/null ||
    { echo "services.sh: PostgreSQL did not start; its log:" >&2; tail -n 20 "$pg/log" >&2; return 1; }
}

# pg_stop: a fast shutdown (clients cut off, a checkpoint), then an immediate one, then
# SIGKILL: bounded at about a minute even when a loaded machine makes the checkpoint
# crawl (a stop once outlived its test's 240 s); the throwaway data needs no checkpoint
pg_stop() {
  local bin; bin=$(pg_bin)
  local pg; pg=$(pgdir)
  [ -f "$pg/data/postmaster.pid" ] || return 0
  local started=$SECONDS
  if ! as_pg "$bin/pg_ctl" -D "$pg/data" -m fast -w -t 30 stop >/dev/null 2>&1 &&
     ! as_pg "$bin/pg_ctl" -D "$pg/data" -m immediate -w -t 20 stop >/dev/null 2>&1; then
    local pid; pid=$(head -n 1 "$pg/data/postmaster.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      echo "services.sh: PostgreSQL (pid $pid) did not stop in $((SECONDS - started)) s: killed" >&2
      kill -9 "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  fi
  [ $((SECONDS - started)) -lt 10 ] ||
    echo "services.sh: PostgreSQL took $((SECONDS - started)) s to stop" >&2
  return 0
}

redis_start() {
  command -v redis-server >/dev/null ||
    { echo "services.sh: redis-server was not found: install the Debian package redis-server (scripts/deps.sh cluster)" >&2; return 1; }
  local port; port=$(cat "$dir/redis.port")
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" >/dev/null
  for _ in $(seq 1 100); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  echo "services.sh: Redis did not answer on port $port; its log:" >&2
  tail -n 20 "$dir/redis.log" >&2
  return 1
}

redis_stop() {
  [ -f "$dir/redis.pid" ] || return 0
  local pid; pid=$(cat "$dir/redis.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -f "$dir/redis.pid"
}

case "$cmd" in
start)
  pg_port=""
  redis_port=""
  redis=1
  pg=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --pg-port) pg_port=$2; shift 2 ;;
      --redis-port) redis_port=$2; shift 2 ;;
      --no-redis) redis=0; shift ;;
      --no-pg) pg=0; shift ;;
      *) echo "services.sh: unknown option $1" >&2; exit 2 ;;
    esac
  done
  mkdir -p "$dir"
  chmod 755 "$dir"
  : >"$dir/services.env"
  if [ "$pg" = 1 ]; then
  bin=$(pg_bin)
  if [ ! -f "$dir/pg.dir" ]; then
    if [ "$(id -u)" -eq 0 ]; then
      pg=$(mktemp -d /tmp/tessera-pg.XXXXXX)
      chmod 755 "$pg"
      chown nobody:nogroup "$pg"
    else
      pg="$dir/pg"
      mkdir -p "$pg"
    fi
    echo "$pg" >"$dir/pg.dir"
  fi
  pg=$(pgdir)
  [ -n "$pg_port" ] || pg_port=$(free_port)
  echo "$pg_port" >"$dir/pg.port"
  if [ ! -f "$pg/data/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$pg/data" -U tessera -A trust -E UTF8 --locale=C.UTF-8 \
      >"$dir/initdb.log" 2>&1 ||
      { echo "services.sh: initdb failed:" >&2; tail -n 20 "$dir/initdb.log" >&2; exit 1; }
    # a cluster for tests and a laptop: small, and many connections
    cat >>"$pg/data/postgresql.conf" <<'CONF'
max_connections = 200
shared_buffers = 64MB
unix_socket_permissions = 0777
CONF
  fi
  pg_start
  as_pg "$bin/psql" -h "$pg" -p "$pg_port" -U tessera -d postgres -qAt \
    -c "SELECT 1 FROM pg_database WHERE datname='tessera'" | grep -q 1 ||
    as_pg "$bin/createdb" -h "$pg" -p "$pg_port" -U tessera tessera
  {
    echo "TESSERA_PG='host=127.0.0.1 port=$pg_port user=tessera dbname=tessera'"
    echo "TESSERA_PG_ADMIN='host=127.0.0.1 port=$pg_port user=tessera dbname=postgres'"
  } >>"$dir/services.env"
  fi
  if [ "$redis" = 1 ]; then
    [ -n "$redis_port" ] || redis_port=$(free_port)
    echo "$redis_port" >"$dir/redis.port"
    redis_start
    echo "TESSERA_REDIS='127.0.0.1:$redis_port'" >>"$dir/services.env"
  fi
  ;;
stop)
  redis_stop
  pg=$(pgdir)
  if [ -d "$pg/data" ]; then pg_stop; fi
  # a cluster folder of ours under /tmp goes with it, deleted in the background: the test
  # runs leave tens of thousands of files there (a database per suite), and deleting
  # them outlived services_stop's 240 s on a loaded machine's container filesystem
  case "$pg" in
  /tmp/tessera-pg.*)
    gone="$pg.gone"
    if mv "$pg" "$gone" 2>/dev/null; then
      setsid rm -rf "$gone" </dev/null >/dev/null 2>&1 &
    fi
    rm -f "$dir/pg.dir"
    ;;
  esac
  ;;
pg-stop) pg_stop ;;
pg-crash)
  bin=$(pg_bin)
  as_pg "$bin/pg_ctl" -D "$(pgdir)/data" -m immediate -w stop >/dev/null
  ;;
pg-start) pg_start ;;
redis-stop) redis_stop ;;
redis-start) redis_start ;;
*) echo "services.sh: unknown command $cmd (start, stop, pg-stop, pg-start, pg-crash, redis-stop, redis-start)" >&2; exit 2 ;;
esac
