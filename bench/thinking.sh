#!/bin/sh
# bench/thinking.sh BIN [MATCHES [SECONDS [ROUNDS]]] — what relaying thinking
# lines costs per move (issue 27): live matches of two remote random Reversi
# bots (bench/load.js), every match watched (--watchers, one spectator
# connection per 32 matches), once with the bots sending info lines and once
# without ("the figure without info": the same matches, spectators, seats
# per connection and move delay, the bots sending no info), the two
# interleaved round by round (the order alternating), each run stopped after
# SECONDS of play. Prints each run's moves, server CPU per move (the primary
# figure: CPU time, robust to the machine's load; and its split, user space
# and kernel) and per-move overhead (move in -> next your_turn queued: mean, p50
# and p99), then the medians, their ratios, and the per-round CPU ratios
# (min-max).
#
# BASE=BIN0 runs a second server binary (the one before a change) in the
# same rounds, its runs interleaved with BIN's (the order alternating too),
# and prints its figures beside BIN's: a before/after under the same load.
#
# INFO says what the bots send (default "paced"):
#   paced  as our searching bots do (load.js --info-paced): a line every
#          100-250 ms of thinking and one with the choice — with DELAY=0
#          (bots that answer at once) one line a move, just before it;
#   N      N lines at once before every move (load.js --info N; 2 was the
#          figure of the first measurement: more than any bot sends).
# INLINE says how the line with the choice goes (docs/protocol.md, "A move
# that carries its line"): unset or 0, an info message just before the move
# (two frames); 1, inside the move (load.js --info-inline: one frame);
# both, each round runs the two forms ("with" two frames, "inline" one) and
# the figure without info, the order turning round by round.
# DELAY is the bots' mean move delay in ms (load.js --move-delay-ms; 0).
# WARMUP=K first plays K matches on each run's server, unmeasured (load.js
# --warmup): the figures of a server that has been playing, its journal's
# WAL written again from its start rather than grown (a fresh file's blocks
# cost the kernel a zeroing each; bench/README.md, 2026-12-04 night).
# OUT=DIR keeps each run's load.js JSON there.
# Defaults: 1000 matches, 60 s, 3 rounds. Needs bench/'s npm packages
# (npm ci in bench/), or NODE_PATH naming a node_modules with ws.
set -eu
bin=${1:?usage: bench/thinking.sh BIN [MATCHES [SECONDS [ROUNDS]]]}
n=${2:-1000}
secs=${3:-60}
rounds=${4:-3}
info=${INFO:-paced}
delay=${DELAY:-0}
warmup=${WARMUP:-0}
base=${BASE:-}
inline=${INLINE:-0}
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${OUT:-}" ]; then
    out=$OUT
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
case "$info" in
paced) with="--info-paced" ;;
*[!0-9]* | '') echo "INFO must be paced or a number" >&2; exit 2 ;;
*) with="--info $info" ;;
esac
case "$inline" in
0) kinds="without with" ;;
1) kinds="without with"; with="$with --info-inline" ;;
both) kinds="without with inline" ;;
*) echo "INLINE must be 0, 1 or both" >&2; exit 2 ;;
esac
echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $n matches, ${secs} s, $rounds rounds, INFO=$info DELAY=$delay INLINE=$inline WARMUP=$warmup${base:+ BASE=$base}"
run() { # $1: "with", "inline" or "without", $2: round, $3: "new" or "base"
    flags=""
    [ "$1" = with ] && flags=$with
    [ "$1" = inline ] && flags="$with --info-inline"
    b=$bin
    [ "$3" = base ] && b=$base
    # shellcheck disable=SC2086 # flags is a list of words
    node "$here/load.js" --tessera "$b" --matches "$n" --game reversi --watchers $flags \
        --move-delay-ms "$delay" --duration-s "$secs" --seats-per-conn 32 --warmup "$warmup" --json 2>/dev/null |
        grep '^{' | tail -1 > "$out/r$2-$3-$1.json"
    python3 - "$out/r$2-$3-$1.json" "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
o = r["server_overhead_us"]
sp = r.get("server_cpu_us_per_move_split") or {"user": 0, "sys": 0}
print(f"round {sys.argv[3]} {sys.argv[4]:>4} {sys.argv[2]:>7} info: {r['turns']} moves, "
      f"{r['server_cpu_us_per_move']:.1f} us CPU per move (user {sp['user']:.1f}, sys {sp['sys']:.1f}), "
      f"overhead mean {o.get('mean', 0):.2f} us p50 {o['p50']} us p99 {o['p99']} us, load {r['host']['loadavg_end'][0]:.1f}")
PY
}
pair() { # $1: round, $2: new or base, $3: 1 for the kinds in order, 0 reversed
    order=$kinds
    [ "$3" -eq 1 ] || order=$(echo "$kinds" | tr ' ' '\n' | tac | tr '\n' ' ')
    for k in $order; do run "$k" "$1" "$2"; done
}
r=1
while [ "$r" -le "$rounds" ]; do
    odd=$((r % 2))
    if [ -z "$base" ]; then
        pair "$r" new "$odd"
    elif [ "$odd" -eq 1 ]; then
        pair "$r" base 1; pair "$r" new 0
    else
        pair "$r" new 1; pair "$r" base 0
    fi
    r=$((r + 1))
done
python3 - "$out" "$rounds" "${base:+base}" "$kinds" <<'PY'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
kinds = (["base"] if sys.argv[3] else []) + ["new"]
forms = sys.argv[4].split()[1:]
med = statistics.median
def get(r, b, kind):
    return json.load(open(f"{d}/r{r}-{b}-{kind}.json"))
for b, form in [(b, f) for b in kinds for f in forms]:
    R = range(1, rounds + 1)
    get0 = get
    get = lambda r, b, k, form=form: get0(r, b, form if k == "with" else k)
    cpu = {k: [get(r, b, k)["server_cpu_us_per_move"] for r in R] for k in ("without", "with")}
    usr = {k: [(get(r, b, k).get("server_cpu_us_per_move_split") or {}).get("user", 0) for r in R] for k in ("without", "with")}
    sys_ = {k: [(get(r, b, k).get("server_cpu_us_per_move_split") or {}).get("sys", 0) for r in R] for k in ("without", "with")}
    mean = {k: [get(r, b, k)["server_overhead_us"].get("mean", 0) for r in R] for k in ("without", "with")}
    p50 = {k: [get(r, b, k)["server_overhead_us"]["p50"] for r in R] for k in ("without", "with")}
    p99 = {k: [get(r, b, k)["server_overhead_us"]["p99"] for r in R] for k in ("without", "with")}
    mv = {k: [get(r, b, k)["turns"] for r in R] for k in ("without", "with")}
    per = [w / o for w, o in zip(cpu["with"], cpu["without"])]
    name = (b if len(kinds) > 1 else "median") + ("" if len(forms) == 1 else f" {form}")
    print(f"[{name}] CPU per move: {med(cpu['without']):.1f} us without info, {med(cpu['with']):.1f} us with: "
          f"x{med(cpu['with']) / med(cpu['without']):.3f} (per round x{min(per):.3f}-x{max(per):.3f}, median x{med(per):.3f}); "
          f"moves {min(mv['without'] + mv['with'])}-{max(mv['without'] + mv['with'])}")
    print(f"[{name}] user {med(usr['without']):.1f} -> {med(usr['with']):.1f} us, "
          f"sys {med(sys_['without']):.1f} -> {med(sys_['with']):.1f} us per move")
    mper = [w / o for w, o in zip(mean["with"], mean["without"]) if o]
    if mper:
        print(f"[{name}] overhead mean: {med(mean['without']):.2f} us without info, {med(mean['with']):.2f} us with: "
              f"x{med(mean['with']) / med(mean['without']):.3f} (per round x{min(mper):.3f}-x{max(mper):.3f})")
    print(f"[{name}] overhead p50: {med(p50['without'])} us without, {med(p50['with'])} us with: "
          f"x{med(p50['with']) / med(p50['without']):.3f}; p99: {med(p99['without'])} -> {med(p99['with'])} us")
    get = get0
PY
