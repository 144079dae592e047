#!/bin/sh
# play.sh TESSERA — `tessera play --record` and what play/bench print for people
# (P1 = seat 0 in renders and tables). A --record path that cannot be written is
# a bad argument found before the game is played (exit 2, nothing played);
# a write that fails at the end exits 1 and leaves no file; a good path gets
# a record that `tessera replay` accepts. Run by CTest (tests/cli/play.cmake);
# prints what failed and exits 1.
set -u
tessera=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-play-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
# run NAME WANT_EXIT ARGS... — run tessera, keep stdout/stderr, check the exit code.
run() {
    name=$1 want=$2
    shift 2
    "$tessera" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "$name: exit $got, want $want ($(head -c 300 "$tmp/err"))"
}

run no-dir 2 play carcassonne --seed 1 --record "$tmp/no/such/dir/x.json"
grep -q "^tessera play: --record: cannot write '$tmp/no/such/dir/x.json': No such file or directory" "$tmp/err" ||
    fail "no-dir: stderr is $(cat "$tmp/err")"
grep -q 'final scores' "$tmp/out" && fail "no-dir: the game was played before the path was checked"

run directory 2 play carcassonne --seed 1 --record "$tmp"
grep -q "is a directory" "$tmp/err" || fail "directory: stderr is $(cat "$tmp/err")"
grep -q 'final scores' "$tmp/out" && fail "directory: the game was played before the path was checked"

if [ -w /dev/full ]; then # the disk fills up while writing: exit 1, /dev/full left alone
    run full 1 play carcassonne --seed 1 --record /dev/full
    grep -q "cannot write the record to '/dev/full'" "$tmp/err" || fail "full: stderr is $(cat "$tmp/err")"
    [ -c /dev/full ] || fail "full: /dev/full is gone"
fi

run good 0 play carcassonne --seed 1 --record "$tmp/game.json"
grep -q "^record written to $tmp/game.json\$" "$tmp/out" || fail "good: stdout is $(cat "$tmp/out")"
run good-replay 0 replay "$tmp/game.json"
grep -q '71 turns, finished' "$tmp/out" || fail "good-replay: stdout is $(cat "$tmp/out")"

# people count players from 1 in what is drawn (seat 0 is P1)
run render 0 play carcassonne --seed 1 --render
grep -q 'meeples in hand: P1=[0-7] P2=[0-7] ' "$tmp/out" || fail "render: $(grep 'meeples' "$tmp/out")"
run render-reversi 0 play reversi --seed 1 --render
grep -q '^P1 X (black) [0-9]*  P2 O (white) [0-9]*  game over$' "$tmp/out" ||
    fail "render-reversi: $(tail -n 2 "$tmp/out")"
run bench 0 bench carcassonne --games 20 --repeat 1
grep -q '^mean score per player: P1=[0-9.]* P2=[0-9.]*$' "$tmp/out" || fail "bench: $(cat "$tmp/out")"

run stdout 0 play reversi --seed 1 --record -
tail -n 1 "$tmp/out" >"$tmp/rev.json"
run stdout-replay 0 replay "$tmp/rev.json"

[ "$fails" -eq 0 ] && echo "play.sh: all checks passed"
[ "$fails" -eq 0 ]
