#!/bin/bash
# kit.sh TESSERA CASE — the tools for bot authors, one CTest test per case, run
# from the source tree (tests/kit/kit.cmake):
#   vectors     the conformance vectors (docs/vectors.md): the files shipped in
#               kit/vectors are what `tessera vectors` writes now (else they are
#               stale: the command that regenerates them is printed); the same
#               arguments write the same bytes again; each vector is one JSON
#               object of a known kind; bad arguments exit 2 and leave no file
# Prints what failed and exits 1; KIT_KEEP=1 keeps the temporary folder.
set -u
tessera=$(realpath "$1")
case_name=$2
py=/usr/bin/python3
root=$(pwd)
games="carcassonne reversi dodgem pentago-twist"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-kit.XXXXXX")
fails=0
pids=()

cleanup() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    wait 2>/dev/null
    if [ -n "${KIT_KEEP:-}" ]; then
        echo "kit.sh: files kept in $tmp" >&2
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

dump() {
    for f in "$@"; do
        [ -f "$f" ] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }
    done
}

case_vectors() {
    for g in $games; do
        "$tessera" vectors "$g" --out "$tmp/$g.jsonl" || { fail "tessera vectors $g"; continue; }
        if ! cmp -s "$tmp/$g.jsonl" "kit/vectors/$g.jsonl"; then
            fail "kit/vectors/$g.jsonl is stale: the engine now writes other vectors; if the rules" \
                 "changed on purpose, regenerate them: build/cli/tessera vectors $g --out kit/vectors/$g.jsonl"
        fi
        "$tessera" vectors "$g" --count 150 --seed 77 >"$tmp/a.jsonl" &&
            "$tessera" vectors "$g" --count 150 --seed 77 >"$tmp/b.jsonl" &&
            cmp -s "$tmp/a.jsonl" "$tmp/b.jsonl" || fail "$g: the same arguments wrote other vectors"
        "$py" - "$g" "$tmp/a.jsonl" <<'EOF' || fail "$g: the vectors are not what docs/vectors.md says"
import json, sys
game, path = sys.argv[1:]
lines = open(path).read().splitlines()
head = json.loads(lines[0])
assert head["kind"] == "header" and head["game"] == game and head["count"] == 150, head
kinds = {"turn": {"state", "legal", "move", "after"}, "draw": {"state", "outcome", "after"},
         "fits": {"state", "placements"}, "score_now": {"state", "scores"}}
seen = set()
for i, line in enumerate(lines[1:], 1):
    v = json.loads(line)
    assert v["id"] == i and v["game"] == game and "players" in v["rules"], line[:200]
    assert kinds[v["kind"]] <= set(v), line[:200]
    seen.add(v["kind"])
    if v["kind"] == "turn":
        bare = [{k: x for k, x in e.items() if k != "meeples"} for e in v["legal"]]
        move = {k: x for k, x in v["move"].items() if k != "meeple"}
        assert move in bare, "the move is not a legal entry: " + line[:200]
assert len(lines) == 151, len(lines)
assert "turn" in seen
if game == "carcassonne":
    assert seen == set(kinds), seen
EOF
    done
    "$tessera" vectors nosuchgame >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "an unknown game does not exit 2"
    "$tessera" vectors reversi --count 0 >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "--count 0 does not exit 2"
    "$tessera" vectors reversi --out "$tmp/no/such/dir/v.jsonl" 2>"$tmp/err"; [ $? -eq 1 ] ||
        fail "an unwritable --out does not exit 1"
    grep -q "cannot write" "$tmp/err" || fail "an unwritable --out is not named"
}

case "$case_name" in
vectors) "case_$case_name" ;;
*) echo "kit.sh: unknown case $case_name" >&2; exit 2 ;;
esac
[ "$fails" -eq 0 ] || { echo "kit.sh $case_name: $fails failure(s)" >&2; exit 1; }
echo "kit.sh $case_name: ok"
