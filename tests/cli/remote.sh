#!/bin/bash
# remote.sh TESSERA — `tessera create`, `tessera matches` and `tessera export`
# end to end against a real `tessera serve` on a free port (--port 0
# --port-file) with a temporary database (issue 15, item 17):
#   - bad arguments exit 2 naming what is wrong, before any connection; a
#     server that refuses the arguments (an unknown match) is exit 2 too;
#   - no server at the URL: exit 1, naming the URL;
#   - create prints the match id, each open seat's token and a `tessera bot`
#     command line; that line, pasted, plays the seat to the end of the match;
#   - matches lists it (and --status filters, --json is JSON);
#   - export writes a record that `tessera replay` accepts: the finished
#     match (71 turns), and a match still waiting for its seats (0 turns).
# Prints what failed and exits 1. REMOTE_KEEP=1 keeps the temporary directory.
set -u
tessera=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-remote.XXXXXX")
fails=0
server_pid=

cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    wait 2>/dev/null
    if [ -n "${REMOTE_KEEP:-}" ]; then
        echo "remote.sh: files kept in $tmp" >&2
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# expect CODE PATTERN CMD... — run the command; its exit status must be CODE
# and its output (stdout and stderr) must match the grep -E PATTERN
expect() {
    local code=$1 pattern=$2 rc
    shift 2
    "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        fail "$* exited $rc, want $code: $(head -c 600 "$tmp/out")"
    elif ! grep -qE -- "$pattern" "$tmp/out"; then
        fail "$*: the output does not match '$pattern': $(head -c 600 "$tmp/out")"
    fi
}

# A port nobody listens on: a server started and stopped again.
"$tessera" serve --port 0 --port-file "$tmp/deadport" --db "$tmp/dead.db" --no-web \
    --log-level warn >/dev/null 2>&1 &
dead_pid=$!
for _ in $(seq 200); do [ -s "$tmp/deadport" ] && break; sleep 0.05; done
kill "$dead_pid"
wait "$dead_pid" 2>/dev/null
dead="ws://127.0.0.1:$(cat "$tmp/deadport")/"

"$tessera" serve --port 0 --port-file "$tmp/port" --db "$tmp/db" --no-web \
    --log-level info >"$tmp/server.out" 2>"$tmp/server.log" &
server_pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
if [ ! -s "$tmp/port" ]; then
    echo "FAIL: the server did not start" >&2
    tail -n 20 "$tmp/server.log" >&2
    exit 1
fi
url="ws://127.0.0.1:$(cat "$tmp/port")/"

# ---- bad arguments: exit 2, named, before connecting (the URL is dead) ----
expect 2 'which game' "$tessera" create --url "$dead"
expect 2 "unknown game 'chess'" "$tessera" create chess --url "$dead"
expect 2 "mcst" "$tessera" create carcassonne --url "$dead" --seat mcst
expect 2 "colour" "$tessera" create carcassonne --url "$dead" --seat random:colour=red
expect 2 "--policy timeout takes one of" "$tessera" create carcassonne --url "$dead" --policy timeout=slow
expect 2 "--policy: unknown 'speed'" "$tessera" create carcassonne --url "$dead" --policy speed=1
expect 2 "--time move_ms needs an integer" "$tessera" create carcassonne --url "$dead" --time 0
expect 2 "--time: unknown 'hour'" "$tessera" create carcassonne --url "$dead" --time hour=1
expect 2 "3 --seat for 2 players" "$tessera" create carcassonne --url "$dead" --players 2 \
    --seat random --seat random --seat random
expect 2 "tiny_city" "$tessera" create carcassonne --url "$dead" --rule tiny_city=3
expect 2 "seat name" "$tessera" create carcassonne --url "$dead" --seat "open:"
expect 2 "must start with ws://" "$tessera" create carcassonne --url http://localhost/
expect 2 "unknown option '--colour'" "$tessera" create carcassonne --url "$dead" --colour red
expect 2 "--status takes live, finished or all" "$tessera" matches --url "$dead" --status over
expect 2 "unexpected argument" "$tessera" matches --url "$dead" extra
expect 2 "which match" "$tessera" export --url "$dead"
expect 2 "is not a match id" "$tessera" export "a b" --url "$dead"
expect 2 "cannot create the file" "$tessera" export abc --url "$dead" -o "$tmp/no/such/dir/r.json"

# ---- no server: exit 1 naming the URL ----
expect 1 "cannot reach a tessera server at $dead" "$tessera" create carcassonne --url "$dead"
expect 1 "cannot reach a tessera server at $dead" "$tessera" matches --url "$dead"
expect 1 "cannot reach a tessera server at $dead" "$tessera" export abc --url "$dead" -o "$tmp/r.json"
[ -e "$tmp/r.json" ] && fail "export left $tmp/r.json behind after failing"
ls "$tmp"/r.json.tmp* >/dev/null 2>&1 && fail "export left a temporary file behind"

# ---- create: the id, the token, a command line that plays the seat ----
expect 0 "^match [a-z0-9]+ created on $url: carcassonne, 2 players, waiting for 1 open seat" \
    "$tessera" create carcassonne --url "$url" --seat heuristic --seat open:alice \
    --time 20000 --time first_move_ms=30000 --policy timeout=random_move --bot random
cp "$tmp/out" "$tmp/create.out"
match=$(sed -n 's/^match \([a-z0-9]*\) created.*/\1/p' "$tmp/create.out")
grep -qE "^  P1 \(seat 0\)  bot   heuristic$" "$tmp/create.out" || fail "no P1 line: $(cat "$tmp/create.out")"
grep -qE "^  P2 \(seat 1\)  open  token [a-z0-9]{24}  name alice$" "$tmp/create.out" ||
    fail "no P2 token line: $(cat "$tmp/create.out")"
line=$(grep -E "^  tessera bot " "$tmp/create.out")
[ -n "$line" ] || fail "no tessera bot line: $(cat "$tmp/create.out")"
printf '%s\n' "$line" | grep -qE -- "--url $url --match $match --seat 1 --token [a-z0-9]{24} --bot random$" ||
    fail "the tessera bot line is '$line'"

expect 0 "$match +carcassonne +waiting +0 .*P1 heuristic, P2 alice \(not connected\)" \
    "$tessera" matches --url "$url"
expect 0 "$match" "$tessera" matches --url "$url" --status live
expect 0 "no finished matches" "$tessera" matches --url "$url" --status finished

# a match still waiting exports as a record of 0 turns
expect 0 "match $match \(waiting, 0 turns so far\) written to $tmp/waiting.json" \
    "$tessera" export "$match" --url "$url" -o "$tmp/waiting.json"
expect 0 "scores after turn 0" "$tessera" replay "$tmp/waiting.json"

# paste the printed line: it plays the seat to the end
eval "set -- ${line#  tessera }"
"$tessera" "$@" --quiet >"$tmp/bot.out" 2>"$tmp/bot.err"
rc=$?
[ "$rc" -eq 0 ] || fail "the pasted tessera bot line exited $rc: $(tail -n 5 "$tmp/bot.err")"
grep -qE "^game over: reason=normal .*turns=71 match=$match seat=1" "$tmp/bot.out" ||
    fail "the pasted bot did not finish the match: $(cat "$tmp/bot.out")"

expect 0 "$match +carcassonne +finished +71 +[0-9]+-[0-9]+ +P1 heuristic, P2 alice.* — P[12]( and P[12] drew| won)" \
    "$tessera" matches --url "$url" --status finished
expect 0 "^\[\{\"match\":\"$match\"" "$tessera" matches --url "$url" --json

# ---- export: a record tessera replay accepts ----
expect 0 "match $match \(finished, 71 turns, the whole game\) written to $tmp/rec.json" \
    "$tessera" export "$match" --url "$url" -o "$tmp/rec.json"
expect 0 '"valid":true,"game":"carcassonne","players":2,"turns":71,"finished":true' \
    "$tessera" replay "$tmp/rec.json" --json
"$tessera" export "$match" --url "$url" >"$tmp/stdout.json" 2>/dev/null || fail "export to stdout failed"
cmp -s "$tmp/stdout.json" "$tmp/rec.json" || fail "export to stdout differs from -o"
expect 2 "match nosuchmatch: the server at $url says: no match with that id \(unknown_match\)" \
    "$tessera" export nosuchmatch --url "$url" -o "$tmp/none.json"
[ -e "$tmp/none.json" ] && fail "export of an unknown match left a file"

# ---- --json, and a bot-only match that starts at once ----
expect 0 '^\{"type":"match_created","match":"[a-z0-9]+","seats":\[\]\}$' \
    "$tessera" create reversi --url "$url" --seat random --seat random --json

if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$tmp/server.log"; then
    fail "the server reported a memory or UB error"
    grep -E -A20 'AddressSanitizer|LeakSanitizer|runtime error:' "$tmp/server.log" | head -40 >&2
fi
if [ "$fails" -ne 0 ]; then
    echo "remote.sh: $fails failure(s); server log:" >&2
    tail -n 20 "$tmp/server.log" >&2
    exit 1
fi
echo "remote.sh: all passed"
