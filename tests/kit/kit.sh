#!/bin/bash
# kit.sh TESSERA CASE — the Python kit (kit/python, docs/kit.md) and the
# conformance vectors (kit/vectors, docs/vectors.md), one CTest test per case,
# run from the source tree (tests/kit/kit.cmake):
#   vectors     the conformance vectors (docs/vectors.md): the files shipped in
#               kit/vectors are what `tessera vectors` writes now (else they are
#               stale: the command that regenerates them is printed); the same
#               arguments write the same bytes again; each vector is one JSON
#               object of a known kind; bad arguments exit 2
#   unit        the kit's own unit tests (kit/python/tests): the stdio loop,
#               the clock, the tiles, whole games, features, the examples
#   shipped     the kit against the vectors it ships, every game
#   fresh       the engine's side: the kit agrees with 400 new vectors per game
#               from another seed, and its tile data is what `tessera games
#               --json` writes now (else it is stale: the command that
#               regenerates it is printed)
#   doctor      both example bots pass `tessera doctor` in every game
#   server      on a real server: each example plays a whole Carcassonne game
#               through `tessera bridge` against an in-process bot, and the
#               kit's own WebSocket loop plays a whole Dodgem game
#   pip         `pip install` of kit/python, offline, into a fresh folder; the
#               installed kit checks vectors from outside the checkout
#   rate        `tessera rate`: bad arguments exit 2; a bot of the built-in ladder
#               (Pentago-Twist's mcts:sims=100) is rated within its interval of
#               its published figure; a program that crashes loses every game
#               by a fault, counted and shown, each kept as a bundle that
#               crashes it again
#   bundle      fault bundles: a program that crashes on a U or V tile from
#               turn 15 on leaves a bundle in `tessera match`; `tessera doctor
#               --replay` crashes it again at the same turn with the bundle's
#               lines, and passes a copy fixed since; an illegal move in a
#               Reversi tournament (--out DIR/faults) happens again; a tampered
#               or missing bundle exits 2; --no-bundles keeps none
#   greedy      (slow) the greedy example against `heuristic`, 40 paired games
#               (20 tile orders, seats swapped): it must win more than it loses
# Python is Debian's /usr/bin/python3 (python3-websockets is installed for it,
# scripts/deps.sh). Prints what failed and exits 1; KIT_KEEP=1 keeps the
# temporary folder.
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

case_unit() {
    "$py" -m unittest discover -s kit/python/tests || fail "the kit's unit tests"
}

case_shipped() {
    local files=()
    for g in $games; do
        [ -s "kit/vectors/$g.jsonl" ] || fail "kit/vectors/$g.jsonl is missing"
        files+=("kit/vectors/$g.jsonl")
    done
    (cd kit/python && "$py" -m tessera_kit.conformance "${files[@]/#/$root/}") ||
        fail "the kit disagrees with its shipped vectors"
}

case_fresh() {
    for g in $games; do
        "$tessera" vectors "$g" --count 400 --seed 20261202 --out "$tmp/$g-more.jsonl" ||
            { fail "tessera vectors $g --count 400"; continue; }
        (cd kit/python && "$py" -m tessera_kit.conformance "$tmp/$g-more.jsonl") ||
            fail "the kit disagrees with the engine on new $g vectors"
    done
    # the kit's tile data is the engine's published data, not a copy typed in:
    # what the kit reads of it (Carcassonne's tiles and port order) is what
    # `tessera games --json` writes now
    "$tessera" games --json >"$tmp/games.json" || { fail "tessera games --json"; return; }
    "$py" - "$tmp/games.json" kit/python/tessera_kit/data/games.json <<'EOF' ||
import json, sys
def tiles(path):
    g = next(g for g in json.load(open(path))["games"] if g["name"] == "carcassonne")
    return g["tiles"], g["port_order"]
now, kit = (tiles(p) for p in sys.argv[1:])
sys.exit(0 if now == kit and len(now[0]) == 24 else 1)
EOF
        fail "kit/python/tessera_kit/data/games.json is stale: regenerate it with" \
             "build/cli/tessera games --json > kit/python/tessera_kit/data/games.json"
}

# The examples import the checkout's kit through PYTHONPATH, which tessera
# keeps for the sandboxed program (its folder shown read-only): as an author
# who runs them from a checkout does (docs/kit.md).
kitpath="$root/kit/python"

case_doctor() {
    PYTHONPATH="$kitpath" "$tessera" doctor --move-ms 5000 -- "$py" kit/python/examples/greedy_bot.py >"$tmp/greedy.out" 2>&1 ||
        { fail "the greedy example fails the doctor"; dump "$tmp/greedy.out"; }
    PYTHONPATH="$kitpath" "$tessera" doctor --move-ms 5000 -- "$py" kit/python/examples/mcts_bot.py --ms 60 >"$tmp/mcts.out" 2>&1 ||
        { fail "the MCTS example fails the doctor"; dump "$tmp/mcts.out"; }
    for f in greedy mcts; do
        grep -q "0 failed" "$tmp/$f.out" || fail "$f: no summary with 0 failed"
        for g in $games; do
            grep -q "^pass  $g " "$tmp/$f.out" || fail "$f: no check of $g passed"
        done
    done
}

# start_server — sets port, url
start_server() {
    "$tessera" serve --port 0 --port-file "$tmp/port" --db "$tmp/db" --no-web \
        >>"$tmp/server.out" 2>>"$tmp/server.log" &
    pids+=("$!")
    for _ in $(seq 200); do
        [ -s "$tmp/port" ] && break
        sleep 0.05
    done
    [ -s "$tmp/port" ] || { fail "the server did not start"; dump "$tmp/server.log"; exit 1; }
    url="ws://127.0.0.1:$(cat "$tmp/port")/"
}

# create NAME GAME SEAT0 — a match with SEAT0 a bot and seat 1 open; writes
# $tmp/NAME.match and $tmp/NAME.token
create() {
    "$tessera" create "$2" --url "$url" --seat "$3" --seat open --time 10000 --json \
        >"$tmp/$1.created" 2>&1 || { fail "create $1"; dump "$tmp/$1.created"; return 1; }
    "$py" -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["match"]); print(m["seats"][0]["token"])' \
        "$tmp/$1.created" >"$tmp/$1.ids" || { fail "read $1's reply"; return 1; }
    sed -n 1p "$tmp/$1.ids" >"$tmp/$1.match"
    sed -n 2p "$tmp/$1.ids" >"$tmp/$1.token"
}

case_server() {
    start_server
    create greedy carcassonne heuristic || return
    create mcts carcassonne random || return
    create ws dodgem random || return
    PYTHONPATH="$kitpath" "$tessera" bridge --url "$url" --match "$(cat "$tmp/greedy.match")" --seat 1 \
        --token "$(cat "$tmp/greedy.token")" -- "$py" kit/python/examples/greedy_bot.py \
        >"$tmp/greedy.out" 2>"$tmp/greedy.err" &
    local b1=$!
    PYTHONPATH="$kitpath" "$tessera" bridge --url "$url" --match "$(cat "$tmp/mcts.match")" --seat 1 \
        --token "$(cat "$tmp/mcts.token")" -- "$py" kit/python/examples/mcts_bot.py --ms 200 \
        >"$tmp/mcts.out" 2>"$tmp/mcts.err" &
    local b2=$!
    "$py" kit/python/examples/mcts_bot.py --ms 100 --url "$url" --match "$(cat "$tmp/ws.match")" \
        --seat 1 --token "$(cat "$tmp/ws.token")" >"$tmp/ws.out" 2>"$tmp/ws.err" &
    local b3=$!
    pids+=("$b1" "$b2" "$b3")
    wait "$b1" || { fail "the bridge of the greedy example exited $?"; dump "$tmp/greedy.err"; }
    wait "$b2" || { fail "the bridge of the MCTS example exited $?"; dump "$tmp/mcts.err"; }
    wait "$b3" || { fail "the WebSocket loop exited $?"; dump "$tmp/ws.err"; }
    # a whole game, ended by the rules: 71 turns of Carcassonne, the kit's seat
    # never replaced by the server (no fault, no random move for it)
    for b in greedy mcts; do
        grep -q "game over: reason=normal" "$tmp/$b.out" ||
            { fail "$b: the game did not end normally"; dump "$tmp/$b.out" "$tmp/$b.err"; }
        grep -q "turns=71" "$tmp/$b.out" || fail "$b: not a whole Carcassonne game"
        grep -qi "crashed\|time_limit\|illegal" "$tmp/$b.err" &&
            { fail "$b: a fault on the way"; dump "$tmp/$b.err"; }
    done
    grep -q "game over: match $(cat "$tmp/ws.match"), scores \[[01], [01]\], normal" "$tmp/ws.err" ||
        { fail "the WebSocket loop's Dodgem game did not end normally"; dump "$tmp/ws.err"; }
    grep -q "choose() failed" "$tmp/"*.err && fail "an example's choose() failed"
    # the server saw every move of the kit's seats come from the seat itself
    "$tessera" export "$(cat "$tmp/greedy.match")" --url "$url" -o "$tmp/greedy.record" ||
        fail "export the greedy example's match"
    "$py" - "$tmp/greedy.record" <<'EOF' || fail "the server played a turn for the greedy example"
import json, sys
rec = json.load(open(sys.argv[1]))
mine = [t for t in rec["turns"] if t.get("player") == 1 and not t.get("discarded")]
sys.exit(0 if mine and not any(t.get("by", "player") != "player" for t in mine) else 1)
EOF
}

case_pip() {
    cp -r kit/python "$tmp/src"
    rm -rf "$tmp/src/build" "$tmp/src/"*.egg-info
    "$py" -m pip install --no-index --no-build-isolation --no-deps --quiet --target "$tmp/site" \
        "$tmp/src" >"$tmp/pip.out" 2>&1 || { fail "pip install kit/python"; dump "$tmp/pip.out"; return; }
    [ -f "$tmp/site/tessera_kit/data/games.json" ] || fail "the installed kit has no tile data"
    (cd "$tmp" && PYTHONPATH="$tmp/site" "$py" -c 'import tessera_kit, sys; sys.exit(0 if tessera_kit.__file__.startswith(sys.argv[1]) else 1)' "$tmp/site") ||
        fail "python does not import the installed kit"
    (cd "$tmp" && PYTHONPATH="$tmp/site" "$py" -m tessera_kit.conformance "$root/kit/vectors/carcassonne.jsonl") ||
        fail "the installed kit disagrees with the vectors"
}

case_rate() {
    # bad arguments: exit 2 with the reason
    local bad
    for bad in "" "--game nosuchgame --bot random" "--bot nosuchbot" "--bot random --ladder $tmp/none.json" \
               "--bot random --min-games 50 --max-games 10" "--bot random --target 0" \
               "--bot random -- python3 x.py"; do
        # shellcheck disable=SC2086
        "$tessera" rate $bad >"$tmp/out" 2>"$tmp/err"
        [ $? -eq 2 ] || fail "rate $bad: not exit 2"
        grep -q "tessera rate" "$tmp/err" || fail "rate $bad: no reason given"
    done
    echo '{"format":1,"games":{"reversi":{"rungs":[{"name":"random","spec":"random","elo":0}]}}}' \
        >"$tmp/one.json"
    "$tessera" rate --bot random --ladder "$tmp/one.json" --game reversi >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] || fail "a ladder of one rung is not refused"
    # the built-in ladder: a bot of the ladder is rated within its interval of its
    # published figure (Pentago-Twist, the fastest game; its games depend on the
    # seed alone, so this is the same run every time)
    "$tessera" rate --game pentago-twist --bot mcts:sims=100 --target 100 --concurrency 2 \
        --move-ms 60000 --json >"$tmp/rate.out" 2>"$tmp/rate.err" ||
        { fail "rate mcts:sims=100"; dump "$tmp/rate.err"; return; }
    tail -n 1 "$tmp/rate.out" | "$py" -c '
import json, sys
r = json.load(sys.stdin)
ladder = json.load(open("kit/ladder.json"))["games"]["pentago-twist"]["rungs"]
published = next(x["elo"] for x in ladder if x["spec"] == "mcts:sims=100")
print("mcts:sims=100 rated %.0f +- %.0f after %d games; published %d" % (r["elo"], r["ci95"], r["games"], published))
ok = r["ci95"] <= 100 and r["games"] >= 20 and abs(r["elo"] - published) <= r["ci95"] and r["faults"] == 0
ok = ok and sum(a["games"] for a in r["against"]) == r["games"] and not r["stopped"]
sys.exit(0 if ok else 1)' || fail "the rating of mcts:sims=100 is not what its published figure says"
    grep -q "round .*rating" "$tmp/rate.err" || fail "no progress line per round"
    # a program that crashes at its first turn loses every game by a fault
    printf 'import sys\nfor line in sys.stdin:\n    if "your_turn" in line:\n        sys.exit(3)\n' \
        >"$tmp/crash.py"
    chmod 755 "$tmp" && chmod 644 "$tmp/crash.py"
    "$tessera" rate --game reversi --min-games 4 --max-games 4 --json --bundles "$tmp/rfaults" \
        -- "$py" "$tmp/crash.py" >"$tmp/crash.out" 2>"$tmp/crash.err" ||
        { fail "rate of a crashing program"; dump "$tmp/crash.err"; }
    # each of its faults kept as a bundle of its own, which crashes it again
    [ "$(ls "$tmp/rfaults" | wc -l)" -eq 4 ] || { fail "not 4 bundles of 4 faults"; ls "$tmp/rfaults" >&2; }
    "$tessera" doctor --replay "$(ls "$tmp/rfaults/"*.json | tail -n 1)" >"$tmp/replay.out" 2>&1
    [ $? -eq 1 ] && grep -q "FAULT AGAIN at turn [12]: crashed" "$tmp/replay.out" ||
        { fail "a rating's bundle does not crash the program again"; dump "$tmp/replay.out"; }
    grep -q "4 games lost by a fault of the player" "$tmp/crash.out" ||
        { fail "the faults are not counted"; dump "$tmp/crash.out"; }
    grep -q "crashed" "$tmp/crash.err" || fail "the fault's verdict is not shown"
    tail -n 1 "$tmp/crash.out" | "$py" -c '
import json, sys
r = json.load(sys.stdin)
sys.exit(0 if r["faults"] == 4 and r["games"] == 4 and all(a["score"] == 0 for a in r["against"]) else 1)' ||
        fail "a crashing program scored points"
}

# a Carcassonne program that plays the first legal entry and crashes when it
# holds a U or a V from turn 15 on (unless a file BOT.fixed is beside it)
crash_bot() {
    cat >"$1" <<'EOF'
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") != "your_turn":
        continue
    tile = m["state"].get("tile")
    if m["turn"] >= 15 and tile in ("U", "V") and not os.path.exists(__file__ + ".fixed"):
        print("crashing on tile %s at turn %d" % (tile, m["turn"]), file=sys.stderr)
        sys.exit(3)
    e = dict(m["legal"][0])
    e.pop("meeples", None)
    print(json.dumps({"type": "move", "turn": m["turn"], "move": e}), flush=True)
EOF
}

# replay_crash BUNDLE — a crash bundle holds what it should, crashes the same
# program again at the same turn with the same lines, and passes a fixed copy
replay_crash() {
    local b=$1
    grep -q "tessera doctor --replay $b" "$tmp/match.err" || fail "the replay command is not printed"
    # the bundle holds the game up to the fault, the seed, the lines, stderr
    "$py" - "$b" <<'EOF' >"$tmp/turn" || fail "the bundle does not hold what it should"
import json, sys
b = json.load(open(sys.argv[1]))
assert b["format"] == "tessera-fault" and b["game"] == "carcassonne", b.get("format")
assert b["verdict"] == "crashed", b["verdict"]
assert "crashing on tile" in b["stderr"], b["stderr"]
assert b["turn"] >= 15 and len(b["record"]["turns"]) == b["turn"] - 1, b["turn"]
assert b["record"]["chance"]["seed"], "no seed revealed"
ins = [l["in"] for l in b["lines"] if "in" in l]
last = json.loads(ins[-1])
assert json.loads(ins[0])["type"] == "start" and last["type"] == "your_turn", ins[:1]
assert last["turn"] == b["turn"] and last["state"]["tile"] in ("U", "V"), last["state"]["tile"]
print(b["turn"])
EOF
    local turn
    turn=$(cat "$tmp/turn")
    # the same program crashes again, at the same turn, on the same tile
    "$tessera" doctor --replay "$b" >"$tmp/again.out" 2>&1
    [ $? -eq 1 ] || { fail "$b: the crash did not happen again under doctor --replay"; dump "$tmp/again.out"; }
    grep -q "FAULT AGAIN at turn $turn: crashed" "$tmp/again.out" ||
        { fail "not the same crash at turn $turn"; dump "$tmp/again.out"; }
    grep -q "line.* it was sent .* the bundle's, the clocks aside" "$tmp/again.out" ||
        { fail "the replay did not send the bundle's lines"; dump "$tmp/again.out"; }
    # the program fixed since: no fault at that turn, a legal move with the tile
    "$tessera" doctor --replay "$b" -- "$py" "$tmp/fixed/bot.py" >"$tmp/fixed.out" 2>&1 ||
        { fail "the fixed program does not pass the replay"; dump "$tmp/fixed.out"; }
    grep -q "no fault now: turn $turn answered {\"player\":[01],\"tile\":\"[UV]\"" "$tmp/fixed.out" ||
        { fail "the fixed program's answer is not shown"; dump "$tmp/fixed.out"; }
}

case_bundle() {
    chmod 755 "$tmp" # the sandbox runs programs as nobody when we are root
    mkdir -m 755 "$tmp/crash" "$tmp/fixed"
    crash_bot "$tmp/crash/bot.py"
    crash_bot "$tmp/fixed/bot.py"
    touch "$tmp/fixed/bot.py.fixed"
    chmod 644 "$tmp/crash/bot.py" "$tmp/fixed/bot.py" "$tmp/fixed/bot.py.fixed"
    # a match keeps one bundle per fault, and says how to replay it
    "$tessera" match carcassonne "cmd:$py $tmp/crash/bot.py" random --games 4 --seed 3 --threads 1 \
        --bundles "$tmp/faults" >"$tmp/match.out" 2>"$tmp/match.err" ||
        { fail "tessera match with a crashing program"; dump "$tmp/match.err"; return; }
    local b n=0
    for b in "$tmp/faults/"*.json; do
        [ -f "$b" ] || continue
        n=$((n + 1))
        replay_crash "$b"
    done
    # each game crashed (each has a U or a V after turn 15 here), each kept its bundle: a
    # tile drawn otherwise in the replay would have ended the crash in at least one of them
    [ "$n" -eq 4 ] || { fail "$n bundles kept of 4 crashes"; dump "$tmp/match.err"; }
    # another game's fault: an illegal move in Reversi, kept in a tournament's --out DIR/faults
    cat >"$tmp/fixed/ill.py" <<'EOF'
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "your_turn":
        first = m["legal"][0]
        mv = first if m["turn"] < 9 else {"move": "h8" if first == {"move": "a1"} else "a1"}
        print(json.dumps({"type": "move", "turn": m["turn"], "move": mv}), flush=True)
EOF
    chmod 644 "$tmp/fixed/ill.py"
    "$tessera" tournament rr --game reversi --games-per-pair 2 --quiet --out "$tmp/tour" \
        random "cmd:$py $tmp/fixed/ill.py" >/dev/null 2>"$tmp/tour.err" ||
        { fail "the tournament"; dump "$tmp/tour.err"; }
    b=$(ls "$tmp/tour/faults/"*.json 2>/dev/null | head -n 1)
    [ -n "$b" ] || { fail "no bundle in --out DIR/faults"; return; }
    grep -q "^- \[\`faults/$(basename "$b")\`\](faults/$(basename "$b")) — \`cmd:.*\`: illegal_move at turn" \
        "$tmp/tour/standings.md" || { fail "the report does not link the bundle"; dump "$tmp/tour/standings.md"; }
    "$tessera" doctor --replay "$b" --json >"$tmp/ill.json" 2>&1
    [ $? -eq 1 ] || fail "the illegal move did not happen again"
    "$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["verdict"] == "illegal_move" and r["failed"] and not r["earlier"] and r["lines_differ"] == 0 else 1)' \
        "$tmp/ill.json" || { fail "the replay's JSON"; dump "$tmp/ill.json"; }
    # a tampered bundle (another move in its record) is refused, exit 2
    "$py" - "$b" "$tmp/tampered.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
b["record"]["turns"][0]["move"] = "a1"
json.dump(b, open(sys.argv[2], "w"))
EOF
    "$tessera" doctor --replay "$tmp/tampered.json" >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] || fail "a tampered bundle is not refused with exit 2"
    grep -q "its record, turn 1" "$tmp/err" || { fail "the tampered turn is not named"; dump "$tmp/err"; }
    "$tessera" doctor --replay "$tmp/none.json" >/dev/null 2>&1
    [ $? -eq 2 ] || fail "a missing bundle is not exit 2"
    # --no-bundles keeps none
    (cd "$tmp" && "$tessera" match reversi "cmd:$py $tmp/fixed/ill.py" random --games 2 --no-bundles \
        >/dev/null 2>&1)
    [ ! -e "$tmp/tessera-faults" ] || fail "--no-bundles kept bundles"
}

case_greedy() {
    PYTHONPATH="$kitpath" "$tessera" match carcassonne "cmd:$py kit/python/examples/greedy_bot.py" heuristic --games 40 \
        --seed 1 --threads 2 --json >"$tmp/match.out" 2>"$tmp/match.err" ||
        { fail "tessera match"; dump "$tmp/match.err"; return; }
    tail -n 1 "$tmp/match.out" | "$py" -c '
import json, sys
r = json.load(sys.stdin)
a, b = r["bots"][0], r["bots"][1]
print("greedy %d-%d-%d against heuristic over %d games, mean score %.1f to %.1f" % (
    a["wins"], a["losses"], a["draws"], r["games"], a["mean_score"], b["mean_score"]))
sys.exit(0 if a["wins"] > a["losses"] else 1)' || fail "the greedy example did not beat heuristic"
}

case "$case_name" in
vectors | unit | shipped | fresh | doctor | server | pip | rate | bundle | greedy) "case_$case_name" ;;
*) echo "kit.sh: unknown case $case_name" >&2; exit 2 ;;
esac
[ "$fails" -eq 0 ] || { echo "kit.sh $case_name: $fails failure(s)" >&2; exit 1; }
echo "kit.sh $case_name: ok"
