#!/bin/bash
# bridge.sh TESSERA WSCTL STDIO_BOT CASE — end-to-end tests of `tessera
# bridge` (a program of the stdio protocol playing on a server, docs/
# stdio.md and docs/botclient.md) against a real `tessera serve` on a free
# port with a temporary database. Run from the source tree by CTest
# (tests/cli/bridge.cmake), one case per test:
#   args         exit 2 with a message for each bad argument
#   python       docs/examples/stdio_bot.py plays a whole Carcassonne game
#                through the bridge against an in-process bot: exit 0, a
#                normal 71-turn result, its CPU time and stderr in the log
#   examples     the Python example (--stateless, through bridge) against
#                the C example (through `tessera bot --bot cmd:...`, the same
#                code path) on the two open seats: both see the same end
#   crash        a program that exits at its first turn from 20 on: the bridge reports it
#                (crashed, RE) and sends nothing; under the default policy
#                the server forfeits the seat on time, and the bridge prints
#                that result; under random_move the server plays that turn,
#                the program is started again with the history and the game
#                ends normally; meanwhile another match is unharmed
#   reconnect    kill -9 the server mid-game and restart it: the bridge
#                resumes, the program (never restarted) plays on to the end
#   after_game_over  a program that writes on stderr after it read game_over
#                (and a moment later, as it exits): both lines are shown
#                (issue 30, item 4: they never appeared)
#   bridge_kill  kill -9 the bridge mid-game: its program dies with it; the
#                bridge started again with --resume-token starts the program
#                with the history (every later move says "history ok")
# Needs python3. Prints what failed and exits 1; BRIDGE_KEEP=1 keeps the
# temporary folder.
set -u
tessera=$1
wsctl=$2
cbot=$3
case_name=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-bridge.XXXXXX")
fails=0
pids=()
slow=1
[ "${TESSERA_SANITIZED:-}" = 1 ] && slow=3

cleanup() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    wait 2>/dev/null
    if [ -n "${BRIDGE_KEEP:-}" ]; then
        echo "bridge.sh: files kept in $tmp" >&2
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

dump() {
    for f in "$@"; do
        [ -f "$f" ] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }
    done
}

# start_server [PORT] — sets server_pid, port, url
start_server() {
    rm -f "$tmp/port"
    "$tessera" serve --port "${1:-0}" --port-file "$tmp/port" --db "$tmp/db" --no-web \
        --log-level info >>"$tmp/server.out" 2>>"$tmp/server.log" &
    server_pid=$!
    pids+=("$server_pid")
    for _ in $(seq $((300 * slow))); do # 15 s (x3 under the sanitizers): a loaded machine
        [ -s "$tmp/port" ] && break
        sleep 0.05
    done
    [ -s "$tmp/port" ] || { fail "the server did not start"; dump "$tmp/server.log"; exit 1; }
    port=$(cat "$tmp/port")
    url="ws://127.0.0.1:$port/"
}

# create JSON_SEATS [TIME_CONTROL] [POLICIES] — a carcassonne match; sets
# match, token0, token1
create() {
    local msg="{\"type\":\"create_match\",\"game\":\"carcassonne\",\"seats\":$1"
    [ -n "${2:-}" ] && msg="$msg,\"time_control\":$2"
    [ -n "${3:-}" ] && msg="$msg,\"policies\":$3"
    msg="$msg}"
    local out
    out=$("$wsctl" "$url" "$msg") || { fail "create_match: no reply"; exit 1; }
    match=$(printf '%s' "$out" | sed -n 's/.*"type":"match_created","match":"\([A-Za-z0-9_-]*\)".*/\1/p')
    [ -n "$match" ] || { fail "create_match replied $out"; exit 1; }
    for s in 0 1; do
        eval "token$s=\$(printf '%s' \"\$out\" | sed -n 's/.*{\"seat\":$s,\"token\":\"\([A-Za-z0-9_-]*\)\"}.*/\1/p')"
    done
}

# bridge NAME SEAT TOKEN [OPTIONS...] -- PROGRAM... — in the background;
# output in $tmp/NAME.out/.err, pid in bridge_pid
bridge() {
    local name=$1 seat=$2 token=$3
    shift 3
    "$tessera" bridge --url "$url" --match "$match" --seat "$seat" --token "$token" "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" &
    bridge_pid=$!
    pids+=("$bridge_pid")
}

# finished NAME PID [REASON] — wait; exit 0 and a result line with REASON
# (default: normal, 71 turns); sets result
finished() {
    local name=$1 pid=$2 reason=${3:-normal} rc
    wait "$pid"
    rc=$?
    result=$(grep '^game over: ' "$tmp/$name.out")
    [ "$rc" -eq 0 ] || fail "$name: exit $rc, want 0"
    if [ "$reason" = normal ]; then
        printf '%s\n' "$result" | grep -q "^game over: reason=normal scores=[0-9]*,[0-9]* .* turns=71 match=$match seat=[01]$" ||
            fail "$name: result line is '$result'"
    else
        printf '%s\n' "$result" | grep -q "^game over: reason=$reason .* match=$match seat=[01] faulty=" ||
            fail "$name: result line is '$result', want reason=$reason"
    fi
}

# wait_turns NAME N — until NAME logged N turn lines (max ~20 s)
wait_turns() {
    for _ in $(seq 400); do
        [ "$(grep -c '^tessera bridge: turn ' "$tmp/$1.err" 2>/dev/null)" -ge "$2" ] && return 0
        sleep 0.05
    done
    fail "$1: fewer than $2 turns after 20 s"
    return 1
}

# run_expect NAME WANT_EXIT ARGS... — tessera bridge in the foreground
run_expect() {
    local name=$1 want=$2
    shift 2
    "$tessera" bridge "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    local got=$?
    [ "$got" -eq "$want" ] || { fail "$name: exit $got, want $want"; dump "$tmp/$name.err"; }
}

scores_of() { printf '%s\n' "$1" | sed -n 's/.* scores=\([0-9,]*\) .*/\1/p'; }

py=docs/examples/stdio_bot.py
seat_args=(--url ws://127.0.0.1:1/ --match m1 --seat 0 --token t)

case "$case_name" in
args)
    run_expect no-program 2 "${seat_args[@]}"
    grep -q 'the program to run is required' "$tmp/no-program.err" || fail "no-program: $(cat "$tmp/no-program.err")"
    run_expect stateless-alone 2 "${seat_args[@]}" --stateless
    run_expect missing 2 "${seat_args[@]}" -- /nonexistent/bot
    grep -q '/nonexistent/bot' "$tmp/missing.err" || fail "missing: $(cat "$tmp/missing.err")"
    run_expect spaces 2 "${seat_args[@]}" -- python3 "my bot.py"
    run_expect both 2 "${seat_args[@]}" --bot random -- python3 "$py"
    run_expect no-secret 2 --url ws://127.0.0.1:1/ --register alice -- python3 "$py"
    run_expect short-secret 2 --url ws://127.0.0.1:1/ --register alice --secret short -- python3 "$py"
    run_expect bad-name 2 --url ws://127.0.0.1:1/ --register 'al ice' --secret longenough -- python3 "$py"
    run_expect register-seat 2 --url ws://127.0.0.1:1/ --register alice --secret longenough \
        --match m1 --seat 0 -- python3 "$py"
    run_expect capacity 2 --url ws://127.0.0.1:1/ --register alice --secret longenough \
        --capacity 17 -- python3 "$py"
    run_expect secret-alone 2 "${seat_args[@]}" --secret longenough -- python3 "$py"
    run_expect bad-game 2 --url ws://127.0.0.1:1/ --register alice --secret longenough \
        --game chess -- python3 "$py"
    "$tessera" bot "${seat_args[@]}" --bot random python3 >"$tmp/bot-extra.out" 2>&1
    [ $? -eq 2 ] || fail "tessera bot with a program after the options: exit $?, want 2"
    "$tessera" bridge --help | grep -q -- '--stateless' || fail "help: no --stateless"
    "$tessera" --help | grep -q '^  bridge ' || fail "tessera --help does not list bridge"
    # nobody listens: exit 1 after --give-up-ms, the program never asked
    run_expect no-server 1 "${seat_args[@]}" --give-up-ms 300 -- python3 "$py"
    grep -q 'giving up' "$tmp/no-server.err" || fail "no-server: $(cat "$tmp/no-server.err")"
    ;;

python)
    start_server
    create '[{"bot":"heuristic"},{"open":true}]' '{"move_ms":3000}'
    bridge py 1 "$token1" -- python3 "$py"
    finished py "$bridge_pid"
    n=$(grep -c '^tessera bridge: turn [0-9]*: {"x":.*} cpu [0-9]* ms, [0-9]* ms (budget [0-9]* ms); debug: [0-9]* legal moves$' "$tmp/py.err")
    [ "$n" -ge 30 ] && [ "$n" -le 36 ] || fail "py: $n turn lines with cpu and debug"
    grep -q '^tessera bridge: stderr| seat 1 of a carcassonne game$' "$tmp/py.err" ||
        fail "py: the program's stderr is not shown"
    grep -q 'error' "$tmp/py.err" && fail "py: errors logged"
    grep -q '"match_finished".*"reason":"normal"' "$tmp/server.log" || fail "server: no normal finish logged"
    ;;

after_game_over)
    start_server
    create '[{"bot":"random"},{"open":true}]' '{"move_ms":3000}'
    cat >"$tmp/goodbye.py" <<'PY'
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
    elif msg["type"] == "game_over":
        print("goodbye: the game is over, reason " + msg["result"]["reason"], file=sys.stderr, flush=True)
        time.sleep(0.1)
        print("goodbye: my last words", file=sys.stderr, flush=True)
PY
    chmod 755 "$tmp" "$tmp/goodbye.py" # the sandbox runs programs as nobody under root
    bridge bye 1 "$token1" -- python3 "$tmp/goodbye.py"
    finished bye "$bridge_pid"
    grep -q '^tessera bridge: stderr| goodbye: the game is over, reason normal$' "$tmp/bye.err" ||
        { fail "bye: the stderr written after game_over is not shown"; dump "$tmp/bye.err"; }
    grep -q '^tessera bridge: stderr| goodbye: my last words$' "$tmp/bye.err" ||
        fail "bye: the stderr written as it exits is not shown"
    ;;

examples)
    start_server
    create '[{"open":true},{"open":true}]' '{"move_ms":3000}'
    bridge py 0 "$token0" --stateless -- python3 "$py"
    pp=$bridge_pid
    "$tessera" bot --url "$url" --match "$match" --seat 1 --token "$token1" --bot "cmd:$cbot" \
        >"$tmp/c.out" 2>"$tmp/c.err" &
    pc=$!
    pids+=("$pc")
    finished py "$pp"
    rp=$result
    finished c "$pc"
    rc_=$result
    [ "$(scores_of "$rp")" = "$(scores_of "$rc_")" ] || fail "the two disagree: '$rp' vs '$rc_'"
    grep -q '^tessera bot: turn [0-9]*: {"x":.*} cpu [0-9]* ms' "$tmp/c.err" || fail "c: no turn lines"
    ;;

crash)
    start_server
    # an unrelated match of two in-process bots, slow enough to overlap
    "$wsctl" "$url" '{"type":"create_match","game":"carcassonne","seats":[{"bot":"mcts:ms=20"},{"bot":"mcts:ms=20"}]}' \
        >"$tmp/other.json"
    other=$(sed -n 's/.*"match":"\([A-Za-z0-9_-]*\)".*/\1/p' "$tmp/other.json")
    # default policies: the crash costs the match on time
    create '[{"bot":"random"},{"open":true}]' '{"move_ms":1500}'
    bridge forfeit 1 "$token1" -- python3 tests/doctor/bots/crash_at.py 20
    finished forfeit "$bridge_pid" timeout
    grep -q 'faulty=1' "$tmp/forfeit.out" || fail "forfeit: $(cat "$tmp/forfeit.out")"
    # the program's first turn from 20 on (which turns are seat 1's depends
    # on the tiles drawn)
    t=$(sed -n 's/^tessera bridge: error: turn \([0-9]*\): crashed (RE): exited with status 3; stderr: crashing on purpose at turn \1$/\1/p' \
        "$tmp/forfeit.err" | head -n 1)
    if [ -z "$t" ] || [ "$t" -lt 20 ] || [ "$t" -gt 23 ]; then
        fail "forfeit: the crash is not reported: $(grep -i 'crash' "$tmp/forfeit.err")"
    else
        grep -q "^tessera bridge: turn $t: no move sent: the server.s policy" "$tmp/forfeit.err" ||
            fail "forfeit: no word about the policy"
    fi
    # random_move: the server plays the turn of the crash, the program comes
    # back at the seat's next turn
    create '[{"bot":"random"},{"open":true}]' '{"move_ms":1500}' '{"timeout":"random_move"}'
    bridge goes_on 1 "$token1" -- python3 tests/doctor/bots/crash_at.py 20
    finished goes_on "$bridge_pid"
    t=$(sed -n 's/^tessera bridge: error: turn \([0-9]*\): crashed (RE).*/\1/p' "$tmp/goes_on.err" | head -n 1)
    t2=$(sed -n 's/^tessera bridge: turn \([0-9]*\): note: started again.*/\1/p' "$tmp/goes_on.err" | head -n 1)
    if [ -z "$t" ] || [ -z "$t2" ] || [ "$t2" -le "$t" ]; then
        fail "goes_on: the program crashed at turn '${t}' and was started again at turn '${t2}'"
    fi
    grep -q '^tessera bridge: turn 7[01]: {' "$tmp/goes_on.err" || fail "goes_on: did not play to the end"
    # nothing else was harmed: the other match ended normally, the server answers
    "$wsctl" "$url" --until spectating "{\"type\":\"spectate\",\"match\":\"$other\"}" >"$tmp/other.view"
    for _ in $(seq 200); do
        grep -q '"reason":"normal"' "$tmp/other.view" && break
        sleep 0.1
        "$wsctl" "$url" --until spectating "{\"type\":\"spectate\",\"match\":\"$other\"}" >"$tmp/other.view"
    done
    grep -q '"reason":"normal"' "$tmp/other.view" || fail "the other match: $(head -c 300 "$tmp/other.view")"
    ;;

reconnect)
    start_server
    create '[{"bot":"mcts:ms=40"},{"open":true}]' '{"move_ms":5000}' \
        '{"disconnect":"forfeit","reconnect_grace_ms":30000}'
    bridge py 1 "$token1" -- python3 "$py"
    pb=$bridge_pid
    wait_turns py 6
    kill -9 "$server_pid"
    wait "$server_pid" 2>/dev/null
    sleep 1
    start_server "$port"
    finished py "$pb"
    grep -q 'reconnecting in' "$tmp/py.err" || fail "py: never lost the connection"
    grep -q "^tessera bridge: resumed match $match as seat 1" "$tmp/py.err" || fail "py: never resumed"
    [ "$(grep -c '^tessera bridge: stderr| seat 1 of a carcassonne game$' "$tmp/py.err")" -eq 1 ] ||
        fail "py: the program was started more than once"
    ;;

bridge_kill)
    start_server
    create '[{"bot":"mcts:ms=40"},{"open":true}]' '{"move_ms":5000}' \
        '{"disconnect":"forfeit","reconnect_grace_ms":20000}'
    prog=tests/players/progs/oneshot.py
    mark="bridge-kill-$$" # an argument oneshot.py ignores, to find this test's processes
    bridge victim 1 "$token1" --token-file "$tmp/victim.token" --quiet -- python3 "$prog" "$mark"
    pv=$bridge_pid
    # --quiet: no turn lines; wait for the token, then for a few turns
    for _ in $(seq 100); do
        [ -s "$tmp/victim.token" ] && break
        sleep 0.05
    done
    sleep 1
    kill -9 "$pv"
    wait "$pv" 2>/dev/null
    sleep 0.5
    # neither the program nor a process the bridge was starting (the program
    # restarts every turn) may outlive it: once, a child still waiting for its
    # go did
    if pgrep -f "$mark" >/dev/null; then
        fail "a process outlived the bridge killed by SIGKILL: $(pgrep -af "$mark")"
    fi
    grep -q 'game over' "$tmp/victim.out" && fail "victim: the match ended before the kill"
    bridge again 1 "$token1" --resume-token "$(cat "$tmp/victim.token")" -- python3 "$prog" "$mark"
    finished again "$bridge_pid"
    grep -q "^tessera bridge: resumed match $match as seat 1 (carcassonne, [1-9][0-9]* turns played)" \
        "$tmp/again.err" || fail "again: no resume from the history: $(head -n 2 "$tmp/again.err")"
    n=$(grep -c '^tessera bridge: turn [0-9]*: .*; debug: history ok$' "$tmp/again.err")
    bad=$(grep -c 'history missing' "$tmp/again.err")
    [ "$n" -ge 1 ] && [ "$bad" -eq 0 ] || fail "again: $n moves with the history, $bad without"
    ;;

*)
    echo "bridge.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac

if [ "$fails" -ne 0 ]; then
    dump "$tmp"/*.err "$tmp/server.log"
    exit 1
fi
echo "bridge.sh $case_name: all checks passed"
