#!/bin/bash
# create.sh TESSERA — `tessera create` for a bot author (issue 30, item 7),
# against a real `tessera serve --admin-token-file`:
#   - a program seat (--seat "cmd:python3 bot.py") without the admin token is
#     refused before connecting, naming --admin-token-file (it said
#     "unknown bot 'cmd'");
#   - with --admin-token-file the server runs the program in that seat;
#   - a wrong token is the server's `forbidden`, exit 2;
#   - an open seat gets a `tessera bridge ... -- PROGRAM ARGS...` line too,
#     which, pasted with the author's program, plays the seat to the end
#     against the server's program.
# Prints what failed and exits 1.
set -u
tessera=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
py="python3 $root/docs/examples/stdio_bot.py"

start_server

# without the token: refused here, naming what to give
"$tessera" create carcassonne --url "$url" --seat "cmd:$py" --seat open >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "cmd: seat without the token: exit $rc, want 2"
grep -q -- "--admin-token-file" "$tmp/err" || fail "cmd: seat without the token: $(cat "$tmp/err")"

# a wrong token: the server's forbidden
echo "not-the-token-at-all" >"$tmp/wrong"
"$tessera" create carcassonne --url "$url" --seat "cmd:$py" --seat open \
    --admin-token-file "$tmp/wrong" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "a wrong token: exit $rc, want 2 ($(cat "$tmp/err"))"
grep -q "(forbidden)" "$tmp/err" || fail "a wrong token: $(cat "$tmp/err")"
"$tessera" create carcassonne --url "$url" --seat "cmd:$py" --admin-token-file "$tmp/none" \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "$tmp/none" "$tmp/err" || fail "a missing token file: $(cat "$tmp/err")"

# the program seat, and the open seat's lines
"$tessera" create carcassonne --url "$url" --seat "cmd:$py" --seat open --time 5000 \
    --admin-token-file "$admin" >"$tmp/out" 2>"$tmp/err" ||
    { fail "create with the token: exit $? ($(cat "$tmp/err"))"; exit 1; }
grep -q "^  P1 (seat 0)  program cmd:$py\$" "$tmp/out" || fail "the program seat: $(cat "$tmp/out")"
grep -q "^  tessera bot --url .* --seat 1 --token [^ ]* --bot mcts:sims=400\$" "$tmp/out" ||
    fail "no tessera bot line: $(cat "$tmp/out")"
line=$(grep "^  tessera bridge --url .* --seat 1 --token [^ ]* -- PROGRAM ARGS...\$" "$tmp/out")
[ -n "$line" ] || { fail "no tessera bridge line: $(cat "$tmp/out")"; exit 1; }
# pasted, with the author's program in place of PROGRAM ARGS...
eval "set -- ${line% -- PROGRAM ARGS...}"
shift # "tessera"
timeout 120 "$tessera" "$@" --quiet -- python3 "$root/docs/examples/stdio_bot.py" \
    >"$tmp/bridge.out" 2>"$tmp/bridge.err"
rc=$?
[ $rc -eq 0 ] || fail "the pasted bridge line: exit $rc ($(tail -n 5 "$tmp/bridge.err"))"
grep -q "^game over: reason=normal .* turns=71 .*seat=1" "$tmp/bridge.out" ||
    fail "the pasted bridge line: $(cat "$tmp/bridge.out")"
grep -q '"program_started".*"seat":0' "$tmp/server.log" || fail "the server did not start the program"

finish create.sh
