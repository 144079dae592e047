#!/bin/sh
# engine_compare.sh — two tessera binaries' engine speed, interleaved.
#
# Runs `tessera bench carcassonne` (random games/s, one thread) or, with
# --bot SPEC, `tessera bench carcassonne --bot SPEC` (the bot's simulations/s)
# for binary A and binary B in turn, A B then B A, ROUNDS times, and prints
# each round's figures and the medians (with min and max) of A, B and the
# round-by-round ratio A/B. Pairing the runs keeps the ratio meaningful on a
# machine whose speed drifts (other work, frequency); the median keeps one
# noisy round from moving it. A benchmark: it measures, it never fails on a
# figure (exit 0 unless a run fails).
#
# usage: bench/engine_compare.sh A B [--players P] [--rounds R] [--games N]
#                                    [--bot SPEC] [--positions N] [--seed S]
set -eu
[ $# -ge 2 ] || { echo "usage: $0 A B [--players P] [--rounds R] [--games N] [--bot SPEC] [--positions N] [--seed S]" >&2; exit 2; }
A=$1 B=$2
shift 2
players=2 rounds=7 games=20000 bot="" positions=20 seed=1
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; exit 2; }
    case $1 in
    --players) players=$2 ;;
    --rounds) rounds=$2 ;;
    --games) games=$2 ;;
    --bot) bot=$2 ;;
    --positions) positions=$2 ;;
    --seed) seed=$2 ;;
    *) echo "$0: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
for bin in "$A" "$B"; do
    [ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done

# one run of a binary: its figure (games/s, or the bot's sims/s) from --json
run() {
    if [ -n "$bot" ]; then
        out=$("$1" bench carcassonne --players "$players" --bot "$bot" --positions "$positions" \
            --seed "$seed" --json) || return 1
        key=sims_per_sec
    else
        out=$("$1" bench carcassonne --players "$players" --games "$games" --repeat 1 \
            --seed "$seed" --json) || return 1
        key=games_per_sec
    fi
    # the top level's figure: the first, before any nested object (phases)
    printf '%s\n' "$out" | tail -n 1 | sed -n "s/^{[^{]*\"$key\":\([0-9.e+]*\).*/\1/p"
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
i=0
while [ "$i" -lt "$rounds" ]; do
    if [ $((i % 2)) -eq 0 ]; then
        a=$(run "$A"); b=$(run "$B")
    else
        b=$(run "$B"); a=$(run "$A")
    fi
    [ -n "$a" ] && [ -n "$b" ] || { echo "$0: a run printed no figure" >&2; exit 1; }
    echo "$a $b" >>"$tmp"
    echo "round $((i + 1)): A $a  B $b" >&2
    i=$((i + 1))
done

what=${bot:+"sims/s of $bot"}
what=${what:-"random games/s"}
# medians (and min, max) of A, B and A/B over the rounds
awk -v what="$what" -v players="$players" '
function med(v, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{ n++; a[n] = $1; b[n] = $2; r[n] = $1 / $2 }
END {
    ma = med(a, n); mb = med(b, n); mr = med(r, n)
    printf "%s, %d players, %d rounds: A median %.0f (%.0f-%.0f), B median %.0f (%.0f-%.0f), A/B median %.2f (%.2f-%.2f)\n",
        what, players, n, ma, a[1], a[n], mb, b[1], b[n], mr, r[1], r[n]
}' "$tmp"
