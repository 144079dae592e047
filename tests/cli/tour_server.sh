#!/bin/bash
# tour_server.sh TESSERA WSCTL — `tessera tournament ... --url` (issue 30,
# item 8) against a real `tessera serve --admin-token-file`, as an author or
# an instructor would use it, no JSON written by hand:
#   - a round-robin of an in-process bot, the server's random bot and a
#     program the server runs (cmd:, the Python example): created, started,
#     its page's address printed, followed to the end (a line per game when
#     stderr is not a terminal), and the standings printed are the server's
#     (asked again with watch_tournament);
#   - --detach leaves it running; --watch ID follows it to the same end;
#   - a program that crashes: each game's fault bundle fetched from the
#     server into --bundles DIR with its replay line, and doctor --replay
#     crashes it again;
#   - without the token: exit 2 naming --admin-token-file, before anything
#     is sent; a wrong token: the server's forbidden, exit 2; a participant
#     the server refuses: its reason, exit 2; no server: exit 1; --out with
#     --url: exit 2.
# Prints what failed and exits 1.
set -u
tessera=$1 wsctl=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
# expect CODE PATTERN ARGS... — tessera ARGS exits CODE, its output matches
expect() {
    local code=$1 pattern=$2 rc
    shift 2
    timeout 120 "$tessera" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq "$code" ] || fail "tessera $*: exit $rc, want $code: $(tail -n 5 "$tmp/err")"
    cat "$tmp/out" "$tmp/err" | grep -qE -- "$pattern" ||
        fail "tessera $*: the output lacks '$pattern': $(tail -n 8 "$tmp/out" "$tmp/err")"
}

start_server --log-level warn
parts=(best=heuristic rand=random "py=cmd:python3 $root/docs/examples/stdio_bot.py")
common=(tournament rr --game reversi --games-per-pair 2 --move-ms 3000 --seed 7 --url "$url")

# ---- refusals ----
expect 2 "admin-token-file" "${common[@]}" "${parts[@]}"
echo "not-the-token" >"$tmp/wrong"
expect 2 "\(forbidden\)" "${common[@]}" --admin-token-file "$tmp/wrong" "${parts[@]}"
expect 2 "no-such-bot" "${common[@]}" --admin-token-file "$tmp/admin" a=random b=no-such-bot
expect 2 "--out is for a tournament played here" "${common[@]}" --admin-token-file "$tmp/admin" \
    --out "$tmp/x" "${parts[@]}"
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
expect 1 "cannot reach a tessera server" tournament rr --url "ws://127.0.0.1:$dead/" --admin-token-file "$tmp/admin" \
    "${parts[@]}"

# ---- created, started, followed to the server's standings ----
expect 0 "tournament 1 created on $url and started; its page: http://127.0.0.1:$port/#/tournament/1" \
    "${common[@]}" --admin-token-file "$tmp/admin" "${parts[@]}"
cp "$tmp/out" "$tmp/follow.out"
cp "$tmp/err" "$tmp/follow.err"
n=$(grep -c '^tessera tournament: game [0-9]*: P1 .* P2 .*, match [a-z0-9]*  \[[0-9]*/6 games' "$tmp/follow.err")
[ "$n" -eq 6 ] || fail "a line per game: $n of 6: $(cat "$tmp/follow.err")"
grep -q "^tournament 1 on $url: done, 6 games done of 6 expected" "$tmp/follow.out" ||
    fail "the end: $(cat "$tmp/follow.out")"
# the standings printed are the server's
"$wsctl" "$url" '{"type":"watch_tournament","tournament":1}' >"$tmp/watch.json" ||
    fail "watch_tournament: $(cat "$tmp/watch.json")"
python3 - "$tmp/watch.json" "$tmp/follow.out" <<'EOF' || fail "the printed standings are not the server's"
import json, re, sys
t = json.loads(open(sys.argv[1]).readline())
rows = t["standings"]["standings"]
printed = [l.split() for l in open(sys.argv[2]) if re.match(r"^ +\d+  \S", l)]
want = [[str(r["place"]), r["name"], str(r["games"]), f'{r["wins"]}-{r["draws"]}-{r["losses"]}'] for r in rows]
got = [p[:4] for p in printed]
if got != want:
    print(f"printed {got}\nserver  {want}", file=sys.stderr)
    sys.exit(1)
EOF

# ---- --detach, then --watch ----
expect 0 "tournament 2 created .* and started" "${common[@]}" --admin-token-file "$tmp/admin" \
    --detach --name detached "${parts[@]}"
grep -q "tessera tournament --url $url --watch 2" "$tmp/out" || fail "--detach: no --watch line: $(cat "$tmp/out")"
expect 0 "^tournament 2 on $url: done, 6 games done of 6 expected" tournament --url "$url" --watch 2
expect 0 '"tournament":2,"state":"done"' tournament --url "$url" --watch 2 --json

# ---- a program's faults: each game's bundle fetched and kept here, and it replays ----
expect 0 "tournament 3 created .* and started" tournament rr --game reversi --games-per-pair 2 \
    --move-ms 3000 --url "$url" --admin-token-file "$tmp/admin" --bundles "$tmp/faults" \
    rand=random "broken=cmd:python3 $root/tests/classroom/bots/broken.py"
n=$(grep -c "tessera doctor --replay $tmp/faults/game-00000[01]-P[12].json" "$tmp/err")
[ "$n" -eq 2 ] || fail "a replay line per crashed game: $n of 2: $(cat "$tmp/err")"
b=$(ls "$tmp/faults/"*.json | head -n 1)
expect 1 "FAULT AGAIN at turn [12]: crashed" doctor --replay "$b"

finish tour_server.sh
