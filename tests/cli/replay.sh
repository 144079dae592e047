#!/bin/sh
# replay.sh TESSERA CASES_DIR — end-to-end checks of `tessera replay`:
# exit codes (0 valid, 2 malformed/illegal or no readable FILE), the stderr
# format "tessera replay: FILE: turn N: reason", --json as the last line,
# --trace one line per turn, and '-' for standard input. Run by CTest
# (tests/cli/replay.cmake); prints what failed and exits 1.
set -u
tessera=$1
cases=$2
tmp=${TMPDIR:-/tmp}/tessera-replay-test.$$
mkdir -p "$tmp"
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

valid=$cases/valid-with-discard/input.json
invalid=$cases/place-edges-mismatch/input.json

run valid 0 replay "$valid"
grep -q '^final scores: P1=[0-9]* P2=[0-9]*$' "$tmp/out" || fail "valid: no final scores line"
[ -s "$tmp/err" ] && fail "valid: unexpected stderr: $(cat "$tmp/err")"

run valid-json 0 replay "$valid" --json
tail -n 1 "$tmp/out" | grep -q '^{"valid":true,"game":"carcassonne","players":2,"turns":71,"finished":true,"scores":\[[0-9]*,[0-9]*\]}$' ||
    fail "valid-json: last line is $(tail -n 1 "$tmp/out")"

run valid-trace 0 replay --trace "$valid"
n=$(grep -c '^turn ' "$tmp/out")
[ "$n" -eq 71 ] || fail "valid-trace: $n turn lines, want 71"
# players as people count them next to the record's 0-based seat
grep -q '^turn   1  P1 (seat 0)  {"player":0,' "$tmp/out" || fail "valid-trace: turn 1 is $(grep '^turn   1 ' "$tmp/out")"
grep -q '^turn   2  P2 (seat 1)  {"player":1,' "$tmp/out" || fail "valid-trace: turn 2 is $(grep '^turn   2 ' "$tmp/out")"

run valid-stdin 0 replay - <"$valid"
grep -q '^final scores:' "$tmp/out" || fail "valid-stdin: no final scores"

run invalid 2 replay "$invalid"
grep -q "^tessera replay: $invalid: turn [0-9]*: tile .* edge .*(illegal_move)\$" "$tmp/err" ||
    fail "invalid: stderr is $(cat "$tmp/err")"

run invalid-json 2 replay --json "$invalid"
tail -n 1 "$tmp/out" | grep -q '^{"valid":false,"turn":[0-9]*,"code":"illegal_move","reason":".*edge.*"}$' ||
    fail "invalid-json: last line is $(tail -n 1 "$tmp/out")"

run bad-json 2 replay "$cases/bad-json-truncated/input.json"
grep -q 'invalid JSON at line 1' "$tmp/err" || fail "bad-json: stderr is $(cat "$tmp/err")"

# A FILE that names no readable file is a bad argument (exit 2, README), with the reason.
run missing-file 2 replay "$tmp/no-such-file.json"
grep -q "^tessera replay: $tmp/no-such-file.json: cannot read: No such file or directory" "$tmp/err" ||
    fail "missing-file: stderr is $(cat "$tmp/err")"
run missing-file-json 2 replay --json "$tmp/no-such-file.json"
tail -n 1 "$tmp/out" | grep -q '^{"valid":false,"code":"[a-z_]*","reason":"No such file or directory"}$' ||
    fail "missing-file-json: last line is $(tail -n 1 "$tmp/out")"

run directory 2 replay "$tmp"
grep -q "^tessera replay: $tmp: cannot read: is a directory" "$tmp/err" ||
    fail "directory: stderr is $(cat "$tmp/err")"

run no-argument 2 replay
run two-arguments 2 replay "$valid" "$valid"
run unknown-option 2 replay --bogus "$valid"

# A file one byte over the size limit (1 MiB): refused as too large, exit 2.
head -c 1048577 /dev/zero | tr '\0' ' ' >"$tmp/big.json"
run too-large 2 replay "$tmp/big.json"
grep -q 'message_too_large' "$tmp/err" || fail "too-large: stderr is $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "replay.sh: all checks passed"
[ "$fails" -eq 0 ]
