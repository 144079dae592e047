#!/bin/sh
# evolve.sh TESSERA — `tessera evolve` end to end: a short Reversi evolution
# with a checkpoint and --out, the evolved file played by evomcts:eval=FILE,
# a run stopped after a generation and resumed giving exactly the file of an
# uninterrupted run, SIGINT stopping cleanly, and bad arguments exiting 2
# with a message. Run by CTest (tests/cli/evolve.cmake).
set -u
tessera=$1
tmp=${TMPDIR:-/tmp}/tessera-evolve-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
run() {
    name=$1 want=$2
    shift 2
    "$tessera" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "$name: exit $got, want $want ($(head -c 400 "$tmp/err"))"
}
small="--population 4 --games-per-eval 1 --sims 5 --seed 3"

# a short run: two progress lines, a checkpoint, the best individual
run short 0 evolve reversi $small --generations 2 --threads 2 --checkpoint "$tmp/a.ckpt" --out "$tmp/a.txt"
n=$(grep -c '^generation [12]/2: best [0-9.]* of 2' "$tmp/out")
[ "$n" -eq 2 ] || fail "short: $n progress lines: $(cat "$tmp/out")"
grep -q '^tessera-evolve 1$' "$tmp/a.ckpt" || fail "short: no checkpoint"
grep -q '^generation 2$' "$tmp/a.ckpt" || fail "short: checkpoint not at generation 2"
grep -v '^#' "$tmp/a.txt" | grep -q . || fail "short: no expression in --out"
run play 0 match reversi "evomcts:sims=5,eval=$tmp/a.txt" random --games 2 --threads 1

# stopped after one generation and resumed: the same as the whole run
run part 0 evolve reversi $small --generations 1 --threads 1 --checkpoint "$tmp/b.ckpt" --quiet
run resume 0 evolve reversi --generations 2 --threads 2 --checkpoint "$tmp/b.ckpt" --out "$tmp/b.txt"
grep -q '^resuming from .* at generation 1 of 2$' "$tmp/out" || fail "resume: $(head -n 1 "$tmp/out")"
cmp -s "$tmp/a.ckpt" "$tmp/b.ckpt" || fail "resume: the checkpoints differ"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "resume: the evolved files differ"

# SIGINT after the first checkpoint: exit 1, "stopped", and it resumes
"$tessera" evolve reversi $small --generations 1000 --threads 1 --checkpoint "$tmp/c.ckpt" \
    >"$tmp/c.out" 2>"$tmp/c.err" &
pid=$!
i=0
while [ ! -s "$tmp/c.ckpt" ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill -INT $pid
wait $pid
got=$?
[ "$got" -eq 1 ] || fail "sigint: exit $got, want 1"
grep -q 'stopped; the checkpoint keeps every finished generation' "$tmp/c.err" || fail "sigint: $(cat "$tmp/c.err")"
g=$(sed -n 's/^generation \([0-9]*\)$/\1/p' "$tmp/c.ckpt")
[ -n "$g" ] && [ "$g" -ge 1 ] || fail "sigint: checkpoint generation '$g'"
run after-sigint 0 evolve reversi --generations $((g + 1)) --threads 1 --checkpoint "$tmp/c.ckpt" --quiet --out "$tmp/c.txt"
grep -q "^generation $((g + 1))\$" "$tmp/c.ckpt" || fail "after-sigint: not at generation $((g + 1))"

# bad arguments: exit 2, a message naming the problem
run no-game 2 evolve
grep -q 'which game' "$tmp/err" || fail "no-game: $(cat "$tmp/err")"
run bad-game 2 evolve chess
grep -q "unknown game 'chess'" "$tmp/err" || fail "bad-game: $(cat "$tmp/err")"
run pop-1 2 evolve reversi --population 1
grep -q -- '--population needs an integer from 2' "$tmp/err" || fail "pop-1: $(cat "$tmp/err")"
run pxo 2 evolve reversi --pxo 2
grep -q -- '--pxo needs a probability' "$tmp/err" || fail "pxo: $(cat "$tmp/err")"
run players-3 2 evolve carcassonne --rule players=3
grep -q 'two-player' "$tmp/err" || fail "players-3: $(cat "$tmp/err")"
run players-eval 2 evolve reversi --players eval=x
grep -q 'may not set eval' "$tmp/err" || fail "players-eval: $(cat "$tmp/err")"
run elite 2 evolve reversi --population 4 --elite 4
grep -q 'elite' "$tmp/err" || fail "elite: $(cat "$tmp/err")"
run conflict 2 evolve reversi --population 9 --checkpoint "$tmp/a.ckpt"
grep -q -- '--population 9 differs from the checkpoint' "$tmp/err" || fail "conflict: $(cat "$tmp/err")"
run other-game 2 evolve dodgem --checkpoint "$tmp/a.ckpt"
grep -q 'differ from the checkpoint' "$tmp/err" || fail "other-game: $(cat "$tmp/err")"
sed 's/^rng .*/rng 0 0 0 0/' "$tmp/a.ckpt" >"$tmp/broken.ckpt"
run broken 2 evolve reversi --checkpoint "$tmp/broken.ckpt"
grep -q 'broken.ckpt, line [0-9]*: bad generator state' "$tmp/err" || fail "broken: $(cat "$tmp/err")"
run unknown-option 2 evolve reversi --colour red
grep -q "unknown option '--colour'" "$tmp/err" || fail "unknown-option: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "evolve.sh: all checks passed"
exit $((fails > 0))
