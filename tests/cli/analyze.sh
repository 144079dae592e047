#!/bin/bash
# analyze.sh TESSERA CASES_DIR — `tessera analyze` end to end (docs/analysis.md):
# the Markdown summary, --json, --out's three files (the JSON parsed, its
# luck + skill against the final score difference, the SVG), standard input,
# and bad input failing as `tessera replay` fails (the same line but for the
# command's name, exit 2; --json's {"valid": false} last line), bad options
# and searches that cannot analyse. Small budgets: the figures are the
# library's test (tests/analysis). Run by CTest (tests/cli/analyze.cmake).
set -u
tessera=$1
cases=$2
. "$(dirname "$0")/lib.sh"

# run NAME WANT_EXIT ARGS... — run tessera, keep stdout/stderr, check the exit code.
run() {
    local name=$1 want=$2
    shift 2
    "$tessera" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "$name: exit $got, want $want ($(head -c 300 "$tmp/err"))"
}

carc=$cases/valid-with-discard/input.json
rev=$cases/valid-reversi-with-pass/input.json
illegal=$cases/place-edges-mismatch/input.json

run summary 0 analyze "$rev" --sims 40 --quiet
grep -q '^# Analysis of a Reversi 8x8 game' "$tmp/out" || fail "summary: no title: $(head -n 3 "$tmp/out")"
grep -q '^| luck share |' "$tmp/out" || fail "summary: no luck share row"
[ -s "$tmp/err" ] && fail "summary: unexpected stderr: $(cat "$tmp/err")"

run out 0 analyze "$carc" --sims 40 --chance-sims 8 --out "$tmp/a" --json
for f in analysis.json analysis.md winprob.svg; do
    [ -s "$tmp/a/$f" ] || fail "out: no $f"
done
python3 - "$tmp/a/analysis.json" "$tmp/out" <<'PY' || fail "out: the JSON (above)"
import json, sys
a = json.load(open(sys.argv[1]))
b = json.loads(open(sys.argv[2]).read().splitlines()[-1])
del a["search"]["ms"], b["search"]["ms"]
assert a == b, "--json and analysis.json differ"
assert a["format"] == "tessera-analysis" and a["game"] == "carcassonne"
d = a["decomposition"]
assert abs(d["luck"] + d["skill"] - d["final"]) < 1e-3, d
sc = [p["score"] for p in a["players"]]
assert abs(d["final"] - (sc[0] - sc[1])) < 1e-9, (d, sc)
draws = [t for t in a["turns"] if "draw" in t]
assert len(draws) == len(a["turns"]) == 71, len(draws)
for t in a["turns"]:
    if "played" in t:
        assert t["mark"] in (None, "inaccuracy", "mistake", "blunder")
        assert 0 <= t["value"]["win"] <= 1 and 0 <= t["played_value"]["win"] <= 1
PY
head -c 5 "$tmp/a/winprob.svg" | grep -q '^<svg' || fail "out: winprob.svg is not an SVG"
grep -q '<polyline' "$tmp/a/winprob.svg" || fail "out: winprob.svg has no curve"

# three seats: every player's luck + skill is their final lead (score minus the best of the others')
"$tessera" match carcassonne random random random --games 1 --seed 3 --out "$tmp/m3" >/dev/null 2>&1 ||
    fail "three seats: the match"
run three-seats 0 analyze "$tmp/m3/records/game-000000.json" --sims 20 --chance-sims 4 --out "$tmp/a3" --json
python3 - "$tmp/a3/analysis.json" <<'PY' || fail "three seats: the JSON (above)"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["rules"]["players"] == 3 and len(a["players"]) == 3, a["rules"]
sc = [p["score"] for p in a["players"]]
for p in a["players"]:
    d = p["decomposition"]
    lead = sc[p["seat"]] - max(s for q, s in enumerate(sc) if q != p["seat"])
    assert abs(d["luck"] + d["skill"] - d["final"]) < 1e-3 and abs(d["final"] - lead) < 1e-9, (d, sc)
for t in a["turns"]:
    assert len(t["after_by_seat"]) == 3 and all(0 <= v["win"] <= 1 for v in t["after_by_seat"])
PY
[ "$(grep -c '<polyline' "$tmp/a3/winprob.svg")" -eq 3 ] || fail "three seats: not a line per seat in the SVG"
grep -q '^| | P1 | P2 | P3 |' "$tmp/a3/analysis.md" || fail "three seats: no column per seat"

run stdin 0 analyze - --sims 20 --json <"$rev"
tail -n 1 "$tmp/out" | grep -q '^{"format":"tessera-analysis"' || fail "stdin: $(tail -c 200 "$tmp/out")"

# a bad record: the replay's line, with the command's name
"$tessera" replay "$illegal" 2>"$tmp/replay.err" >/dev/null
run illegal 2 analyze "$illegal" --sims 20
sed 's/^tessera replay:/tessera analyze:/' "$tmp/replay.err" | cmp -s - "$tmp/err" ||
    fail "illegal: '$(cat "$tmp/err")' is not the replay's '$(cat "$tmp/replay.err")'"
run illegal-json 2 analyze "$illegal" --sims 20 --json
tail -n 1 "$tmp/out" | grep -q '^{"valid":false,"turn":[1-9][0-9]*,"code":"illegal_move","reason":' ||
    fail "illegal-json: last line is $(tail -n 1 "$tmp/out")"
printf '{"format":"tessera-record","version":1,' >"$tmp/cut.json"
run truncated 2 analyze "$tmp/cut.json"
grep -q 'bad_json' "$tmp/err" || fail "truncated: $(cat "$tmp/err")"
run missing 2 analyze "$tmp/nothing.json"
grep -q '^tessera analyze: .*nothing.json: cannot read: ' "$tmp/err" || fail "missing: $(cat "$tmp/err")"
run directory 2 analyze "$tmp"

# searches and options that cannot be
run heuristic 2 analyze "$rev" --bot heuristic
grep -q '^tessera analyze: --bot: .*reward.*(bad_bot_spec)$' "$tmp/err" || fail "heuristic: $(cat "$tmp/err")"
run reward 2 analyze "$rev" --bot mcts:reward=winloss
grep -q 'reward' "$tmp/err" || fail "reward: $(cat "$tmp/err")"
run unknown-bot 2 analyze "$rev" --bot nosuch
grep -q '(unknown_bot)$' "$tmp/err" || fail "unknown-bot: $(cat "$tmp/err")"
run no-record 2 analyze
run two-records 2 analyze "$rev" "$rev"
run bad-sims 2 analyze "$rev" --sims 0
run bad-option 2 analyze "$rev" --frobnicate
run out-not-dir 1 analyze "$rev" --sims 20 --out "$rev/x"

# no memory for the search (its address space held at 200 MiB, less than a search's 256):
# a failure (1, out_of_memory), not a bad spec. Not under ASan: its shadow needs terabytes
if [ "${TESSERA_SANITIZED:-}" != 1 ] && command -v prlimit >/dev/null; then
    prlimit --as=$((200 << 20)) "$tessera" analyze "$rev" --sims 20 >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq 1 ] || fail "no memory: exit $got, want 1 ($(head -c 300 "$tmp/err"))"
    grep -q 'out of memory for a 256 MiB search (out_of_memory)$' "$tmp/err" ||
        fail "no memory: $(cat "$tmp/err")"
fi

finish analyze.sh
