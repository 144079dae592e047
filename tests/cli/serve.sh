#!/usr/bin/env bash
# serve.sh TESSERA CASE — `tessera serve` refusing to start, as a user meets it:
#   port_in_use  a second server on the port of a running one exits 1 at once
#                with "port P is in use" and never says it is serving; the
#                first one keeps serving and stops cleanly
#   bad_host     --host with an address this machine does not have: exit 1,
#                the reason named
#   demo_args    bad --demo specs (unknown bot, a third bot, an empty or bad
#                spec) exit 2 with the reason before anything is opened
# Prints what failed and exits 1.
set -u
tessera=$1
case_name=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-serve.XXXXXX")
first=
cleanup() {
  [ -n "$first" ] && kill "$first" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

# refused NAME WANT_EXIT WANT_STDERR ARGS... — `tessera serve ARGS` must exit
# WANT_EXIT within 15 s, with WANT_STDERR (a grep -F string) on stderr and no
# "serving" line on stdout
refused() {
  local name=$1 want=$2 msg=$3
  shift 3
  timeout 15 "$tessera" serve --db "$tmp/$name.db" --no-web "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 124 ] && fail "$name: still running after 15 s (it should have refused to start)"
  [ $rc -eq "$want" ] || fail "$name: exit $rc, want $want ($(tail -n 3 "$tmp/err"))"
  grep -qF -- "$msg" "$tmp/err" || fail "$name: stderr lacks '$msg': $(tail -n 5 "$tmp/err")"
  grep -q 'serving' "$tmp/out" && fail "$name: says it is serving: $(cat "$tmp/out")"
  return 0
}

case "$case_name" in
port_in_use)
  "$tessera" serve --port 0 --port-file "$tmp/port" --db "$tmp/first.db" --no-web \
    >"$tmp/first.out" 2>"$tmp/first.err" &
  first=$!
  for _ in $(seq 600); do
    [ -s "$tmp/port" ] && break
    sleep 0.05
  done
  [ -s "$tmp/port" ] || { fail "the first server did not start: $(tail "$tmp/first.err")"; exit 1; }
  port=$(cat "$tmp/port")
  refused second 1 "tessera serve: port $port is in use" --port "$port"
  # the same with the demo on, as scripts/run.sh starts it
  refused second-demo 1 "port $port is in use" --port "$port" --demo
  kill -0 "$first" 2>/dev/null || fail "the first server died"
  kill -TERM "$first"
  wait "$first"
  rc=$?
  first=
  [ $rc -eq 0 ] || fail "the first server exited $rc after SIGTERM"
  ;;
bad_host)
  # 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine
  refused test-net 1 "cannot listen on 192.0.2.1:" --host 192.0.2.1 --port 0
  refused no-name 1 "is neither an address nor a network interface" --host no-such-host.invalid --port 0
  ;;
demo_args)
  refused unknown 2 "--demo: bot 1: unknown bot 'foo'" --port 0 --demo=foo
  refused unknown-second 2 "--demo: unknown bot 'foo'" --port 0 --demo=mcts,foo
  refused third 2 "--demo takes one or two bots" --port 0 --demo=random,heuristic,random
  refused empty 2 "--demo= names no bot" --port 0 --demo=
  refused trailing-comma 2 "--demo: bot 2 is empty" --port 0 --demo=random,
  refused bad-option 2 "--demo: bot 2: mcts: option 'sims' needs an integer" --port 0 \
    --demo=random,mcts:sims=x
  for n in unknown third empty bad-option; do
    [ -e "$tmp/$n.db" ] && fail "demo $n: the journal was created before the arguments were checked"
  done
  ;;
*)
  echo "serve.sh: unknown case '$case_name'" >&2
  exit 2
  ;;
esac
[ "$fails" -eq 0 ] && echo "serve.sh $case_name: all checks passed"
[ "$fails" -eq 0 ]
