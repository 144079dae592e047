#!/bin/sh
# play.sh TESSERA — `tessera play --record`: a path that cannot be written is
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

run stdout 0 play reversi --seed 1 --record -
tail -n 1 "$tmp/out" >"$tmp/rev.json"
run stdout-replay 0 replay "$tmp/rev.json"

[ "$fails" -eq 0 ] && echo "play.sh: all checks passed"
[ "$fails" -eq 0 ]
