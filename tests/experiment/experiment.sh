#!/bin/bash
# `tessera experiment` end to end, one case per CTest test:
#   list            --list names every built-in experiment
#   quick NAME      NAME --quick: exit 0, the JSON/Markdown/CSV (and SVG) have
#                   every row with its paper figures and 2 games of ours; the
#                   same command again finds every row in the store (resumed,
#                   nothing played); --report reads it back the same
#   report          --report on an empty store: every row "not run", exit 0
#   resume          SIGINT after the first game: exit 1, "stopped"; the same
#                   command continues from the store and plays only the rest
#   rows            --rows plays the rows named and reports the others from the
#                   store (not run); an unknown row id exits 2 listing the ids
#   bad             bad arguments exit 2 with a message naming what is wrong
# Run from the repository's root (CTest does): the EvoMCTS experiments name
# the evolved evaluations in docs/examples by relative paths.
# usage: experiment.sh TESSERA CASE [NAME]
set -u
T=$1
CASE=$2
NAME=${3:-}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case $CASE in
list)
    "$T" experiment --list > "$DIR/list" || fail "--list exit $?"
    for n in es-ix evomcts-v evomcts-vi evomcts-vii evomcts-x evomcts-xi evomcts-xii \
        muller-5.5 muller-5.6 muller-5.7 siea-iii siea-iv siea-vi siea-viii siea-x siea-xi; do
        grep -q "^$n " "$DIR/list" || fail "--list lacks $n"
    done
    ;;
quick)
    "$T" experiment "$NAME" --quick --out "$DIR/o" --jobs 2 --json > "$DIR/out" 2> "$DIR/err" \
        || { cat "$DIR/err"; fail "$NAME --quick exit $?"; }
    grep -q "tessera experiment: $NAME row 1/" "$DIR/err" || fail "no progress lines"
    tail -n 1 "$DIR/out" > "$DIR/result.json"
    python3 - "$DIR" "$NAME" <<'PY' || exit 1
import csv, json, os, sys
d, name = sys.argv[1], sys.argv[2]
r = json.load(open(f"{d}/result.json"))
f = json.load(open(f"{d}/o/{name}.json"))
assert r == f, "the --json line and NAME.json differ"
assert r["experiment"] == name and r["quick"] is True
for k in ("title", "paper", "anchor", "table", "conclusion", "setup", "game"):
    assert r[k], k
assert isinstance(r["rules"], list)
if name.startswith("muller-"):
    assert r["game"] == "carcassonne" and r["rules"] == ["tiny_city=2"], r["rules"]
if name.startswith("evomcts-"):
    assert r["game"] in ("reversi", "dodgem"), r["game"]
rows = r["rows"]
assert len(rows) >= 1
ids = set()
for row in rows:
    assert row["id"] not in ids; ids.add(row["id"])
    o = row["ours"]
    assert o["games"] == 2 and o["games_expected"] == 2, row
    assert o["w"] + o["l"] + o["d"] == 2, row
    assert 0 <= o["lo"] <= o["rate"] <= o["hi"] <= 1, row
    assert o["played"] == 2 and o["resumed"] is False, row
    p = row["paper"]
    assert p is not None and p["n"] > 0 and p["lo"] <= p["rate"] <= p["hi"], row
    if p["w"] is not None:
        assert p["w"] + p["l"] + p["d"] == p["n"], row
        assert abs(p["rate"] - (p["w"] + p["d"] / 2) / p["n"]) < 1e-6
    else:  # a paper that gives a rate alone (the EvoMCTS paper)
        assert p["l"] is None and p["d"] is None and name.startswith("evomcts-"), row
    assert row["verdict"] in ("agrees", "differs"), row
md = open(f"{d}/o/{name}.md").read()
if name in ("siea-iv", "siea-vi", "siea-viii", "siea-xi"):  # the papers' ranking tables
    rk = r["ranking"]
    assert rk["table"] in ("Table V", "Table VII", "Table IX", "Table XI") and rk["complete"] is True, rk
    n = {"siea-viii": 3, "siea-xi": 13}.get(name, 6)
    assert len(rk["entries"]) == n
    assert sorted(e["ours"]["rank"] for e in rk["entries"])[0] == 1
    assert sorted(e["paper"]["rank"] for e in rk["entries"]) == list(range(1, n + 1))
    # each controller plays n - 1 rows, two league matches each
    for e in rk["entries"]:
        o = e["ours"]
        assert o["w"] + o["l"] + o["d"] == 2 * (n - 1), e
        assert o["points"] == 4 * o["w"] + 2 * o["d"] + o["bwp"] + o["blp"], e
    assert "### Ranking: the paper's " + rk["table"] in md
else:
    assert "ranking" not in r
assert md.startswith(f"# {name}: ")
assert "| row | A | B | paper W-L-D |" in md
for row in rows:
    assert f"| {row['label']} |" in md, row["label"]
lines = list(csv.reader(open(f"{d}/o/{name}.csv")))
assert lines[0][:2] == ["experiment", "row"] and len(lines) == len(rows) + 1
assert [l[1] for l in lines[1:]] == [row["id"] for row in rows]
svg = os.path.exists(f"{d}/o/{name}.svg")
if name in ("muller-5.5", "muller-5.6"):
    s = open(f"{d}/o/{name}.svg").read()
    assert s.startswith("<svg") and s.rstrip().endswith("</svg>")
    assert s.count("<circle") == len(rows) + 1  # ours + the legend's
else:
    assert not svg
PY
    # the same command again: every row comes from the store
    "$T" experiment "$NAME" --quick --out "$DIR/o" --jobs 2 --json > "$DIR/out2" 2> "$DIR/err2" \
        || fail "second run exit $?"
    grep -q "resumed, 2 of 2 games done" "$DIR/err2" || fail "second run did not resume"
    tail -n 1 "$DIR/out2" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert all(x["ours"]["played"] == 0 and x["ours"]["resumed"] for x in r["rows"])' \
        || fail "second run played games again"
    # --report reads the same figures
    "$T" experiment "$NAME" --quick --out "$DIR/o" --report --json > "$DIR/out3" 2>/dev/null \
        || fail "--report exit $?"
    python3 - "$DIR" <<'PY' || fail "--report differs from the run"
import json, sys
d = sys.argv[1]
a = json.loads(open(f"{d}/result.json").read())
b = json.loads(open(f"{d}/out3").read().splitlines()[-1])
for x, y in zip(a["rows"], b["rows"]):
    for k in ("w", "l", "d", "games", "rate"):
        assert x["ours"][k] == y["ours"][k], (x["id"], k)
PY
    ;;
report)
    "$T" experiment siea-x --out "$DIR/o" --report > "$DIR/out" 2>/dev/null || fail "exit $?"
    n=$(grep -c " not run$" "$DIR/out")
    [ "$n" = 18 ] || fail "expected 18 rows not run, got $n"
    grep -q "fitness_tree=copy" "$DIR/o/siea-x.md" || fail "no Markdown"
    ;;
resume)
    # quick budgets: many short games (fewer under the sanitizers, several times slower)
    N=200
    [ -n "${TESSERA_SANITIZED:-}" ] && N=60
    "$T" experiment siea-iii --quick --games $N --jobs 2 --out "$DIR/o" > "$DIR/out1" 2> "$DIR/err1" &
    pid=$!
    for _ in $(seq 600); do
        grep -q "row 1/1 (R2 vs R1): [1-9][0-9]*/$N games" "$DIR/err1" && break
        sleep 0.1
    done
    kill -INT $pid
    wait $pid
    rc=$?
    [ $rc = 1 ] || { grep -q "$N games, A" "$DIR/err1" && echo "finished before the signal: skipped" \
        && exit 0; fail "stopped run exit $rc, not 1"; }
    grep -q "stopped; run the same command again to continue" "$DIR/err1" || fail "no 'stopped'"
    "$T" experiment siea-iii --quick --games $N --jobs 2 --out "$DIR/o" --json > "$DIR/out2" 2> "$DIR/err2" \
        || fail "continued run exit $?"
    done1=$(sed -n "s/.*resumed, \([0-9]*\) of $N games done.*/\1/p" "$DIR/err2")
    [ -n "$done1" ] && [ "$done1" -ge 1 ] && [ "$done1" -lt $N ] || fail "resumed with '$done1' games"
    tail -n 1 "$DIR/out2" | python3 -c '
import json, sys
r = json.load(sys.stdin)["rows"][0]["ours"]
done1, n = int(sys.argv[1]), int(sys.argv[2])
assert r["games"] == n and r["resumed"], r
assert r["played"] == n - done1, (r["played"], done1)' "$done1" $N || fail "continued run's counts"
    ;;
rows)
    "$T" experiment siea-iv --quick --rows k0.5-k1,k2-k3 --out "$DIR/o" --json > "$DIR/out" \
        2> "$DIR/err" || { cat "$DIR/err"; fail "--rows exit $?"; }
    tail -n 1 "$DIR/out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
played = {x["id"]: x["ours"]["games"] for x in r["rows"]}
assert len(played) == 15
assert played.pop("k0.5-k1") == 2 and played.pop("k2-k3") == 2, played
assert all(g == 0 for g in played.values()), played
assert sum(x["verdict"] == "not run" for x in r["rows"]) == 13' || fail "--rows played the wrong rows"
    # the rest of the table continues in the same store; the two rows are found again
    "$T" experiment siea-iv --quick --rows k0.25-k0.5,k0.5-k1 --out "$DIR/o" > /dev/null \
        2> "$DIR/err2" || fail "second --rows exit $?"
    grep -q "row 6/15 (K=0.5 vs K=1): resumed, 2 of 2 games done" "$DIR/err2" \
        || fail "the row played before was not found again"
    ;;
bad)
    expect2() {
        local want=$1; shift
        "$T" experiment "$@" > /dev/null 2> "$DIR/err"
        local rc=$?
        [ $rc = 2 ] || fail "'$*' exit $rc, not 2"
        grep -q -- "$want" "$DIR/err" || { cat "$DIR/err"; fail "'$*': message lacks '$want'"; }
    }
    expect2 "which experiment"
    expect2 "unknown experiment 'nope'; experiments: es-ix evomcts-v" nope --out "$DIR/o"
    expect2 "--rows: unknown row 'k9'; the rows of siea-iv: k0.25-k0.5" siea-iv --rows k0.5-k1,k9 \
        --out "$DIR/o"
    expect2 "--rows: an empty row id in 'k0.5-k1,'" siea-iv --rows k0.5-k1, --out "$DIR/o"
    expect2 "one experiment at a time" siea-iii muller-5.5
    expect2 "--games needs an integer" siea-iii --games 0
    expect2 "--games needs an integer" siea-iii --games x
    expect2 "--jobs needs an integer" siea-iii --jobs 0
    expect2 "--seed" siea-iii --seed -1
    expect2 "unknown option '--bogus'" siea-iii --bogus
    expect2 "--out needs a value" siea-iii --out
    expect2 "--list takes no experiment name" --list siea-iii
    touch "$DIR/file"
    expect2 "is not a folder" siea-iii --out "$DIR/file"
    ;;
*) fail "unknown case $CASE" ;;
esac
echo ok
