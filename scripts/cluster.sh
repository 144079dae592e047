#!/usr/bin/env bash
# cluster.sh — a local cluster in one command: a throwaway PostgreSQL and
# Redis (scripts/services.sh), N tessera servers on loopback ports sharing
# them, and haproxy in front of them on one address (docs/scaling.md).
#
#   scripts/cluster.sh start [--dir DIR] [--instances N] [--port P] [--demo]
#   scripts/cluster.sh stop  [--dir DIR]
#   scripts/cluster.sh status [--dir DIR]
#   scripts/cluster.sh kill NAME [--dir DIR]     (kill -9 one server: watch the takeover)
#
# Defaults: DIR=.cluster, N=3, P=8080 (the proxy; the servers listen on
# P+1 .. P+N). The servers are named t1 .. tN; their logs are DIR/tK.log,
# the admin token DIR/admin-token (one for all: it lives in the database).
# haproxy routes as docker/cluster/haproxy.cfg does: a URL with ?server=tK
# goes to tK while it is up, and each server advertises the proxy's address
# with its name (ws://127.0.0.1:P/?server=tK, owner_url): a client told where
# its match is played — the web page too, which follows only addresses of its
# own origin — reaches that server through the proxy (docs/scaling.md).
# It builds tessera first if needed, as scripts/run.sh does.
#   TESSERA_BUILD_DIR  the build folder (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${TESSERA_BUILD_DIR:-build}
case "$build" in /*) ;; *) build=$root/$build ;; esac

cmd=${1:-}
[ -n "$cmd" ] || { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
shift
dir=.cluster
n=3
port=8080
demo=0
victim=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --instances) n=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --demo) demo=1; shift ;;
    -*) echo "cluster.sh: unknown option $1" >&2; exit 2 ;;
    *) victim=$1; shift ;;
  esac
done
case "$n" in ''|*[!0-9]*) echo "cluster.sh: --instances takes a number" >&2; exit 2 ;; esac
[ "$n" -ge 1 ] && [ "$n" -le 16 ] || { echo "cluster.sh: --instances from 1 to 16" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_all() {
  for f in "$dir"/t*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$f"
  done
  if pid_alive "$dir/haproxy.pid"; then kill "$(cat "$dir/haproxy.pid")" 2>/dev/null || true; fi
  rm -f "$dir/haproxy.pid"
  [ -d "$dir/services" ] && "$root/scripts/services.sh" stop "$dir/services"
  return 0
}

case "$cmd" in
start)
  scripts/deps.sh cluster
  if [ ! -x "$build/cli/tessera" ]; then
    echo "cluster.sh: building tessera (scripts/run.sh's build)"
    configure=()
    [ -f "$build/CMakeCache.txt" ] || configure=(-DBUILD_TESTING=OFF)
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${configure[@]}" >"$dir/build.log" 2>&1 &&
      cmake --build "$build" -j"$(nproc)" --target tessera >>"$dir/build.log" 2>&1 ||
      { echo "cluster.sh: the build failed; its output:" >&2; tail -n 40 "$dir/build.log" >&2; exit 1; }
  fi
  tessera="$build/cli/tessera"
  for f in "$dir"/t*.pid; do
    if pid_alive "$f"; then echo "cluster.sh: a cluster runs in $dir already (scripts/cluster.sh stop)" >&2; exit 1; fi
  done
  "$root/scripts/services.sh" start "$dir/services"
  # shellcheck disable=SC1091
  . "$dir/services/services.env"
  for i in $(seq 1 "$n"); do
    args=(serve --host 127.0.0.1 --port $((port + i)) --storage "$TESSERA_PG" --instance "t$i"
          --redis "$TESSERA_REDIS" --advertise "ws://127.0.0.1:$port/?server=t$i"
          --set "server.trusted_proxies=127.0.0.1" --admin-token-file "$dir/admin-token")
    [ "$demo" = 1 ] && [ "$i" = 1 ] && args+=(--demo)
    nohup "$tessera" "${args[@]}" >"$dir/t$i.out" 2>"$dir/t$i.log" &
    echo $! >"$dir/t$i.pid"
    # the first makes the tables; the others wait for its port
    for _ in $(seq 1 150); do
      grep -q '"event":"listening"' "$dir/t$i.log" 2>/dev/null && break
      pid_alive "$dir/t$i.pid" || { echo "cluster.sh: server t$i did not start:" >&2; tail -n 5 "$dir/t$i.log" >&2; stop_all; exit 1; }
      sleep 0.1
    done
  done
  # haproxy needs two descriptors a connection: as many as the hard limit allows
  hard=$(ulimit -Hn)
  case "$hard" in unlimited) maxconn=20000 ;; *) maxconn=$(( (hard - 200) / 2 )) ;; esac
  [ "$maxconn" -gt 20000 ] && maxconn=20000
  ulimit -n "$hard" 2>/dev/null || true
  {
    echo "global"
    echo "  maxconn $maxconn"
    echo "defaults"
    echo "  mode http"
    echo "  option redispatch 1"
    echo "  retries 2"
    echo "  timeout connect 2s"
    echo "  timeout client 120s"
    echo "  timeout server 120s"
    echo "  timeout tunnel 1h"
    echo "frontend tessera"
    echo "  bind 127.0.0.1:$port"
    echo "  option forwardfor"
    echo "  default_backend servers"
    echo "backend servers"
    echo "  balance leastconn"
    echo "  option httpchk GET /readyz"
    for i in $(seq 1 "$n"); do echo "  use-server t$i if { urlp(server) -m str t$i }"; done
    for i in $(seq 1 "$n"); do echo "  server t$i 127.0.0.1:$((port + i)) check inter 1s fall 2 rise 1"; done
  } >"$dir/haproxy.cfg"
  haproxy -f "$dir/haproxy.cfg" -D -p "$dir/haproxy.pid" ||
    { echo "cluster.sh: haproxy did not start (is port $port taken?)" >&2; stop_all; exit 1; }
  echo "tessera cluster: $n servers (t1..t$n on ports $((port + 1))..$((port + n))) behind http://127.0.0.1:$port/"
  echo "  one server through the proxy: ws://127.0.0.1:$port/?server=tK (what each advertises)"
  echo "  PostgreSQL: $TESSERA_PG"
  echo "  Redis: $TESSERA_REDIS"
  echo "  logs: $dir/t*.log; admin token: $dir/admin-token; stop: scripts/cluster.sh stop --dir $dir"
  ;;
stop) stop_all; echo "tessera cluster in $dir stopped" ;;
status)
  for f in "$dir"/t*.pid; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .pid)
    if pid_alive "$f"; then echo "$name: running (pid $(cat "$f"))"; else echo "$name: not running"; fi
  done
  if pid_alive "$dir/haproxy.pid"; then echo "haproxy: running"; else echo "haproxy: not running"; fi
  ;;
kill)
  [ -n "$victim" ] && [ -f "$dir/$victim.pid" ] || { echo "cluster.sh: kill NAME (t1, t2, ...)" >&2; exit 2; }
  kill -9 "$(cat "$dir/$victim.pid")" && rm -f "$dir/$victim.pid" && echo "$victim killed (kill -9)"
  ;;
*) echo "cluster.sh: unknown command $cmd (start, stop, status, kill)" >&2; exit 2 ;;
esac
