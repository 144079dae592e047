#!/bin/sh
# bench/thinking.sh BIN [MATCHES [SECONDS [ROUNDS]]] — what relaying thinking
# lines costs per move (issue 27): live matches of two remote random Reversi
# bots (bench/load.js), every match watched (--watchers), each seat sending
# two info lines before every move (--info 2) or none, the two interleaved
# round by round (the order alternating), each run stopped after SECONDS of
# play. Prints each run's server CPU per move and its per-move overhead
# (move in -> next your_turn queued, p50), then the medians and their ratio.
# Defaults: 1000 matches, 60 s, 3 rounds. Needs bench/'s npm packages
# (npm ci in bench/), or NODE_PATH naming a node_modules with ws.
set -eu
bin=${1:?usage: bench/thinking.sh BIN [MATCHES [SECONDS [ROUNDS]]]}
n=${2:-1000}
secs=${3:-60}
rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # $1: info lines per move, $2: round
    node "$here/load.js" --tessera "$bin" --matches "$n" --game reversi --watchers --info "$1" \
        --duration-s "$secs" --seats-per-conn 32 --json 2>/dev/null | grep '^{' | tail -1 > "$out/r$2-i$1.json"
    python3 - "$out/r$2-i$1.json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"info {sys.argv[2]}: {r['turns']} moves, {r['server_cpu_us_per_move']:.0f} us CPU per move, "
      f"overhead p50 {r['server_overhead_us']['p50']} us")
PY
}
r=1
while [ "$r" -le "$rounds" ]; do
    if [ $((r % 2)) -eq 1 ]; then run 0 "$r"; run 2 "$r"; else run 2 "$r"; run 0 "$r"; fi
    r=$((r + 1))
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
def med(info, key):
    v = []
    for f in glob.glob(f"{sys.argv[1]}/r*-i{info}.json"):
        r = json.load(open(f))
        v.append(r["server_cpu_us_per_move"] if key == "cpu" else r["server_overhead_us"]["p50"])
    return statistics.median(v)
c0, c2, o0, o2 = med(0, "cpu"), med(2, "cpu"), med(0, "ov"), med(2, "ov")
print(f"median CPU per move: {c0:.0f} us without info, {c2:.0f} us with 2 lines a move: x{c2 / c0:.3f}")
print(f"median overhead p50: {o0} us without info, {o2} us with: x{o2 / o0:.3f}")
PY
