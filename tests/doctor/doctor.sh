#!/bin/bash
# doctor.sh TESSERA STDIO_BOT CASE — end-to-end tests of `tessera doctor`
# (docs/stdio.md, "Checking your bot"), run from the source tree by CTest
# (tests/doctor/doctor.cmake), one case per test:
#   args       exit 2 with a message for what is wrong: nothing to check, a
#              program that does not exist, an unknown game, --stateless
#              without a program, an argument with a space
#   pass       our own bots (mcts, heuristic: in-process) and the examples
#              (docs/examples/stdio_bot.py, the C example) pass every check of
#              every game: exit 0, "Every check passed", --json says so
#   stateless  the Python example started afresh for every move passes
#   broken     each deliberately broken bot (tests/doctor/bots/, three of
#              tests/players/bad/) fails the check it should with the verdict
#              it should (read from --json), exit 1, and the text report names
#              the check and a hint
# Needs python3 (scripts/deps.sh test). Prints what failed and exits 1.
set -u
tessera=$1
cbot=$2
case_name=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-doctor.XXXXXX")
fails=0
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# expect NAME WANT_EXIT ARGS... — run tessera doctor; output in $tmp/NAME.out/.err
expect() {
    local name=$1 want=$2
    shift 2
    "$tessera" doctor "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit $got, want $want"
        tail -n 30 "$tmp/$name.out" "$tmp/$name.err" >&2
    fi
}

# json_check FILE PYTHON_EXPR — evaluate an assertion on the --json output
# (bound to `r`); prints the expression when it does not hold
json_check() {
    python3 - "$1" "$2" <<'PY' || fail "$(basename "$1"): $2"
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
checks = {(c["game"], c["check"]): c for c in r["checks"]}
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(r, indent=1)[:3000], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

# Our bots must pass; the low_clock check's 200 ms is about the bot's logic
# (does it scale its thinking to time_left_ms?), not the machine's speed: a
# loaded CI machine can take longer than that to start a Python turn. The
# broken bots keep the default, which is what catches them.
slack=(--low-ms 1500)

case "$case_name" in
args)
    expect nothing 2
    grep -q 'what to check' "$tmp/nothing.err" || fail "nothing: $(cat "$tmp/nothing.err")"
    expect missing 2 -- /nonexistent/bot --fast
    grep -q '/nonexistent/bot' "$tmp/missing.err" || fail "missing: $(cat "$tmp/missing.err")"
    expect unknown-game 2 --game chess -- python3 docs/examples/stdio_bot.py
    expect stateless-alone 2 --stateless
    expect both 2 --bot random -- python3 docs/examples/stdio_bot.py
    expect spaces 2 -- python3 "my bot.py"
    expect bad-bot 2 --bot nosuchbot
    expect low-over-move 2 --move-ms 100 --low-ms 500 --bot random
    expect unknown-check 2 --check nosuchcheck --bot random
    grep -q "unknown check 'nosuchcheck'" "$tmp/unknown-check.err" || fail "unknown-check: $(cat "$tmp/unknown-check.err")"
    "$tessera" doctor --help | grep -q -- '--stateless' || fail "help: no --stateless"
    "$tessera" --help | grep -q '^  doctor ' || fail "tessera --help does not list doctor"
    ;;

pass)
    for spec in mcts:sims=50 heuristic; do
        expect "bot-$spec" 0 "${slack[@]}" --bot "$spec"
        grep -q '^Every check passed' "$tmp/bot-$spec.out" || fail "$spec: $(tail -n 3 "$tmp/bot-$spec.out")"
    done
    expect python 0 "${slack[@]}" -- python3 docs/examples/stdio_bot.py
    grep -q '^pass  carcassonne  dead_tile ' "$tmp/python.out" || fail "python: no dead_tile check passed"
    grep -q '^pass  carcassonne  no_meeples ' "$tmp/python.out" || fail "python: no no_meeples check passed"
    grep -q '^pass  reversi ' "$tmp/python.out" || fail "python: reversi not checked"
    grep -q 'FAIL' "$tmp/python.out" && fail "python: a check failed"
    expect c-example 0 "${slack[@]}" -- "$cbot"
    expect python-json 0 "${slack[@]}" --json -- python3 docs/examples/stdio_bot.py
    json_check "$tmp/python-json.out" \
        'r["passed"] and r["fail"] == 0 and r["kind"] == "long-running" and r["pass"] == len(r["checks"]) - r["skip"] and ("carcassonne", "resync") in checks and all(c["status"] != "fail" for c in r["checks"])'
    ;;

stateless)
    expect stateless 0 "${slack[@]}" --game carcassonne --stateless -- python3 docs/examples/stdio_bot.py
    grep -q '^pass  carcassonne  new_game ' "$tmp/stateless.out" || fail "stateless: $(cat "$tmp/stateless.out")"
    grep -q -- '--stateless -- python3 docs/examples/stdio_bot.py$' "$tmp/stateless.out" ||
        fail "stateless: the bridge line does not say --stateless"
    # --check runs the checks named, nothing else
    expect only 0 "${slack[@]}" --check low_clock --check resync --game reversi -- python3 docs/examples/stdio_bot.py
    [ "$(grep -c '^pass ' "$tmp/only.out")" -eq 2 ] || fail "only: $(cat "$tmp/only.out")"
    ;;

broken)
    # bot, the check that must fail (the first to fail: the meeple counter
    # may already trip on the random game's last turn), its verdict, and
    # "only" to run that check alone (bots that make every check wait).
    # All Carcassonne, 2.5 s a move (first moves too: a Python bot's start
    # in the sandbox on a loaded machine must not be what fails), the low
    # clock doctor's 200 ms (fixed_time.py thinks 400 ms).
    time_args=(--game carcassonne --move-ms 2500 --first-move-ms 2500)
    while read -r bot check verdict only; do
        name=$(basename "$bot" .py)
        only_args=()
        [ -n "$only" ] && only_args=(--check "$check")
        expect "$name" 1 --json "${time_args[@]}" "${only_args[@]}" -- python3 "$bot"
        json_check "$tmp/$name.out" \
            "not r['passed'] and checks[('carcassonne', '$check')]['status'] == 'fail' and checks[('carcassonne', '$check')]['verdict'] == '$verdict' and [c for c in r['checks'] if c['status'] == 'fail'][0]['check'] in ('$check', 'last_move')"
    done <<LIST
tests/players/bad/sleep.py first_move time_limit only
tests/players/bad/garbage.py first_move bad_output
tests/players/bad/illegal.py first_move illegal_move
tests/doctor/bots/fixed_time.py low_clock time_limit only
tests/doctor/bots/strict.py unknown_fields crashed
tests/doctor/bots/stale.py new_game bad_output
tests/doctor/bots/hangs.py new_game time_limit
tests/doctor/bots/discard.py dead_tile crashed
tests/doctor/bots/meeples.py no_meeples crashed
tests/doctor/bots/chatty.py full_game bad_output
tests/doctor/bots/leftover.py new_game bad_output only
LIST
    # the text report: a FAIL line naming the check, the reason, the
    # program's own words from stderr, and what to do
    for name in meeples stale; do
        expect "$name-text" 1 "${time_args[@]}" -- python3 "tests/doctor/bots/$name.py"
        grep -q '^  what to do: ' "$tmp/$name-text.out" || fail "$name: no hint in the summary"
    done
    grep -q '^FAIL  carcassonne  no_meeples .*crashed (RE)' "$tmp/meeples-text.out" ||
        fail "meeples: $(grep FAIL "$tmp/meeples-text.out")"
    grep -q '^      its stderr: .*ZeroDivisionError' "$tmp/meeples-text.out" ||
        fail "meeples: its stderr is not shown"
    grep -q '^FAIL  carcassonne  new_game .*not_your_turn' "$tmp/stale-text.out" ||
        fail "stale: the reason is not named: $(grep FAIL "$tmp/stale-text.out")"
    # the same not_your_turn from two causes, each hint naming its own
    # (issue 30, item 5): a bot that never resets its turn count, and a
    # line left over from the previous game (printed on stdout outside a turn)
    json_check "$tmp/stale.out" \
        "'reset your game state' in checks[('carcassonne', 'new_game')]['hint'] and 'left over' not in checks[('carcassonne', 'new_game')]['hint']"
    json_check "$tmp/leftover.out" \
        "'left over' in checks[('carcassonne', 'new_game')]['hint'] and 'reset your game state' not in checks[('carcassonne', 'new_game')]['hint']"
    ;;

*)
    echo "doctor.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac

if [ "$fails" -ne 0 ]; then
    exit 1
fi
echo "doctor.sh $case_name: all checks passed"
