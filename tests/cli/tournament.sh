#!/usr/bin/env bash
# tournament.sh TESSERA SOURCE_DIR CASE — `tessera tournament` and
# `tessera replay --verify` run as a user would. JSON is read with python3
# (also the example bot's interpreter). Each case is its own CTest test:
#   formats      every format on tiny budgets: the game counts of the JSON
#   out          --out DIR: reports, SVGs and one verifiable record per game
#   python       the Python example bot (docs/examples/stdio_bot.py) as a cmd:
#                participant next to in-process bots (the bar of issue 10)
#   resume       kill -9 of the runner mid-tournament, the same command again:
#                every scheduled game done once, first results kept
#   verify       replay --verify: an honest record passes; a changed tile order,
#                seed, nonce or commitment, no chance block, no reveal fail (exit 2)
#   sprt         mcts:sims=200 against random at Reversi: the SPRT stops early
#   bad          bad arguments exit 2 with the reason
# Prints what failed and exits 1.
set -u
tessera=$1
src=$2
case_name=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-tournament.XXXXXX")
pid=
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

# run NAME WANT_EXIT ARGS...: tessera with stdout/stderr kept in $tmp/out, $tmp/err
run() {
  local name=$1 want=$2
  shift 2
  "$tessera" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "$name: exit $got, want $want: $(head -c 600 "$tmp/err")"
}

# jq-like: py EXPR — evaluate a Python expression on the last line of $tmp/out (as j)
py() {
  tail -n 1 "$tmp/out" | python3 -c "import json,sys; j=json.loads(sys.stdin.read()); print($1)"
}

# expect NAME EXPR WANT — the expression's value
expect() {
  local got
  got=$(py "$2" 2>&1)
  [ "$got" = "$3" ] || fail "$1: $2 is '$got', want '$3'"
}

# sql DB QUERY — one value from an SQLite file (python3's sqlite3)
sql() {
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print(r[0] if r else '')" "$1" "$2"
}

case "$case_name" in
formats)
  # round-robin: 4 participants, 2 seats: 6 pairs x 2 cycles x 2 games
  run rr 0 tournament round-robin --game reversi --games-per-pair 2 --cycles 2 --json --quiet \
    random heuristic mcts:sims=5 random:seed=9
  expect rr 'j["counts"]["done"]' 24
  expect rr 'j["counts"]["expected"]' 24
  expect rr 'j["status"]' finished
  expect rr 'sum(r["games"] for r in j["standings"])' 48
  expect rr 'j["run"]["played"]' 24
  grep -q '^  1  ' "$tmp/out" || fail "rr: no standings table: $(head -5 "$tmp/out")"
  # gauntlet: the first against 3 others, 4 games each (rounded up from 3)
  run gauntlet 0 tournament gauntlet --game reversi --games-per-pair 3 --json --quiet \
    mcts:sims=5 random heuristic random:seed=2
  expect gauntlet 'j["counts"]["done"]' 12
  expect gauntlet '[r["games"] for r in j["standings"] if r["name"]=="mcts:sims=5"][0]' 12
  # swiss: 6 participants, 3 rounds of 3 tables of 2 games
  run swiss 0 tournament swiss --rounds 3 --game reversi --games-per-pair 2 --json --quiet \
    random heuristic mcts:sims=5 random:seed=2 heuristic:seed=3 random:seed=4
  expect swiss 'j["counts"]["done"]' 18
  expect swiss 'j["counts"]["rounds"]' 3
  expect swiss 'all(r["games"]==6 for r in j["standings"])' True
  # knockout: 4 seeds, best of 1 group: 2 semi-finals and a final, 2 games each at most
  run knockout 0 tournament knockout --best-of 1 --game reversi --json --quiet \
    mcts:sims=20 random heuristic random:seed=5
  expect knockout 'j["status"]' finished
  expect knockout 'j["counts"]["done"] + j["counts"]["void"] <= 6 and j["counts"]["done"] >= 3' True
  expect knockout '[r["knockout"]["stage"] for r in j["standings"] if r["place"]==1][0]' winner
  # Carcassonne at 3 seats: C(4,3) = 4 tables, 3 games each (one per seat order)
  run carc3 0 tournament rr --players 3 --games-per-pair 3 --json --quiet \
    random heuristic random:seed=3 heuristic:seed=4
  expect carc3 'j["counts"]["done"]' 12
  expect carc3 'all(r["games"]==9 for r in j["standings"])' True
  # tessera match shares the runner: its output and JSON keep working
  run match 0 match carcassonne random heuristic --games 4 --json
  expect match 'j["games"]' 4
  expect match 'j["bots"][1]["wins"] + j["bots"][1]["losses"] + j["bots"][1]["draws"]' 4
  ;;
out)
  run out 0 tournament rr --games-per-pair 2 --out "$tmp/o" --json --quiet \
    --name "a small test" R=random H=heuristic M=mcts:sims=10
  for f in standings.md standings.csv result.json ratings.svg scores.svg crosstable.svg; do
    [ -s "$tmp/o/$f" ] || fail "out: $f missing or empty"
  done
  n=$(ls "$tmp/o/records" | grep -c '^game-[0-9]*\.json$')
  [ "$n" = 6 ] || fail "out: $n records, want 6"
  for r in "$tmp"/o/records/*.json; do
    "$tessera" replay --verify "$r" >/dev/null 2>"$tmp/verr" || fail "out: $r does not verify: $(cat "$tmp/verr")"
  done
  grep -q 'a small test' "$tmp/o/standings.md" || fail "out: the label is not in standings.md"
  python3 - "$tmp/o/records/game-000000.json" <<'EOF' || fail "out: game 0's turns lack times"
import json, sys
r = json.load(open(sys.argv[1]))
turns = [t for t in r["turns"] if not t.get("discarded")]
assert all(isinstance(t.get("think_ms"), int) and isinstance(t.get("wait_ms"), int) for t in turns)
assert set(r["chance"]) == {"scheme", "commitment", "seed", "nonce"}
EOF
  expect out 'sorted(r["name"] for r in j["standings"])' "['H', 'M', 'R']"
  # the standings report each participant's time use
  expect out 'all("ms_per_move" in r and "time_losses" in r for r in j["standings"])' True
  ;;
python)
  command -v python3 >/dev/null || { echo "python3 is missing (scripts/deps.sh test)" >&2; exit 1; }
  run python 0 tournament round-robin --games-per-pair 2 --concurrency 2 --json --out "$tmp/o" \
    --move-ms 20000 random "py=cmd:python3 $src/docs/examples/stdio_bot.py" heuristic
  expect python 'j["counts"]["done"]' 6
  expect python '[r["games"] for r in j["standings"] if r["name"]=="py"][0]' 4
  expect python '[r["faults"] for r in j["standings"] if r["name"]=="py"][0]' 0
  expect python '[r["moves"] > 0 for r in j["standings"] if r["name"]=="py"][0]' True
  grep -q 'game [0-9]*:.* py ' "$tmp/err" || fail "python: no per-game lines on stderr (not a tty)"
  for r in "$tmp"/o/records/*.json; do
    "$tessera" replay --verify "$r" >/dev/null 2>"$tmp/verr" || fail "python: $r: $(cat "$tmp/verr")"
  done
  # its log beside each of its 4 games' records, named in the output (issue 30,
  # item 3): turn lines, its debug, its stderr
  logs=$(ls "$tmp"/o/records/game-*.P[12].log 2>/dev/null | wc -l)
  [ "$logs" -eq 4 ] || fail "python: $logs program logs, want 4"
  for l in "$tmp"/o/records/game-*.P[12].log; do
    head -n 1 "$l" | grep -q "^# tessera game log 1: game [0-9]*, P[12] (seat [01]), record game-[0-9]*.json, cmd:python3 " ||
      fail "python: $l: $(head -n 1 "$l")"
    grep -q '^turn [0-9]*: ok (cpu ' "$l" && grep -q '^debug: [0-9]* legal moves$' "$l" &&
      grep -q '^stderr: seat [01] of a carcassonne game$' "$l" && grep -q '^game over$' "$l" ||
      fail "python: $l lacks turns, debug or stderr"
  done
  grep -q "programs' logs (debug and stderr, turn by turn): $tmp/o/records/game-NNNNNN.PS.log" "$tmp/out" ||
    fail "python: the output does not name the logs"
  # no program outlives the run
  sleep 0.5
  pgrep -f "$src/docs/examples/stdio_bot.py" >/dev/null && fail "python: a bot process is left"
  ;;
resume)
  db=$tmp/t.db
  # mcts by time, not by simulations: its games take a second or more however
  # fast the machine, so the kill comes mid-run (with sims=60 a quiet machine
  # finished all 24 games between two polls)
  args=(tournament round-robin --games-per-pair 8 --concurrency 2 --db "$db" --out "$tmp/o"
        --json --quiet mcts:ms=40 heuristic random)
  "$tessera" "${args[@]}" >"$tmp/out1" 2>"$tmp/err1" &
  pid=$!
  # wait until a few games are stored (at most 5 minutes on a loaded machine)
  done1=0
  for _ in $(seq 1 3000); do
    done1=$(sql "$db" "SELECT count(*) FROM tour_games WHERE status='done'" 2>/dev/null || echo 0)
    [ "${done1:-0}" -ge 3 ] 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  pid=
  before=$(sql "$db" "SELECT count(*) FROM tour_games WHERE status='done'")
  [ "$before" -ge 3 ] || fail "resume: only $before games stored before the kill"
  [ "$before" -lt 24 ] || fail "resume: the first run finished before the kill ($before)"
  results() { # results DB: every done game's id and stored result, as JSON
    python3 -c "import sqlite3,sys,json; c=sqlite3.connect(sys.argv[1]); print(json.dumps(dict(c.execute(\"SELECT id, result FROM tour_games WHERE status='done'\").fetchall())))" "$1"
  }
  results "$db" >"$tmp/first"
  recs=$(sql "$db" "SELECT count(*) FROM tour_records")
  [ "$recs" = "$before" ] || fail "resume: $recs records for $before results"
  # the same command again
  run resume 0 "${args[@]}"
  expect resume 'j["counts"]["done"]' 24
  expect resume 'j["run"]["resumed"]' True
  expect resume 'j["run"]["done_before"]' "$before"
  expect resume 'j["run"]["played"]' $((24 - before))
  [ "$(sql "$db" "SELECT count(*) FROM tour_games")" = 24 ] || fail "resume: the schedule changed"
  [ "$(sql "$db" "SELECT count(DISTINCT id) FROM tour_games WHERE status='done'")" = 24 ] ||
    fail "resume: not every game is done exactly once"
  [ "$(sql "$db" "SELECT count(*) FROM tour_records")" = 24 ] || fail "resume: records missing"
  [ "$(sql "$db" "SELECT count(*) FROM tour_tournaments")" = 1 ] || fail "resume: a second tournament"
  # the first run's results are kept as they were
  results "$db" >"$tmp/again"
  python3 - "$tmp/first" "$tmp/again" <<'EOF' || fail "resume: a result of the first run changed"
import json, sys
first, again = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert first and all(again[k] == v for k, v in first.items())
EOF
  n=$(ls "$tmp/o/records" | grep -c '^game-[0-9]*\.json$')
  [ "$n" = 24 ] || fail "resume: $n record files, want 24"
  # and once more: nothing left to play
  run resume-done 0 "${args[@]}"
  expect resume-done 'j["run"]["played"]' 0
  expect resume-done 'j["counts"]["done"]' 24
  ;;
verify)
  run verify-games 0 tournament rr --games-per-pair 4 --seed 3 --out "$tmp/o" --quiet random heuristic
  a=$tmp/o/records/game-000000.json b=$tmp/o/records/game-000002.json
  run honest 0 replay --verify "$a"
  grep -q '^verified: every chance outcome follows from seed [0-9]*' "$tmp/out" || fail "honest: $(cat "$tmp/out")"
  run honest-json 0 replay --verify --json "$a"
  expect honest-json 'j["verified"]' True
  tamper() { # tamper OUT PYTHON-STATEMENTS (r: the record of game 0, o: of game 2)
    python3 - "$a" "$b" "$1" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1])); o = json.load(open(sys.argv[2]))
exec(sys.argv[4])
json.dump(r, open(sys.argv[3], "w"))
EOF
  }
  # the tile order of another game (a legal record, still) under game 0's reveal
  tamper "$tmp/tiles.json" 'r["turns"] = o["turns"]; r["result"] = o["result"]'
  run tiles-replay 0 replay "$tmp/tiles.json"
  run tiles 2 replay --verify "$tmp/tiles.json"
  grep -q 'turn [0-9]*: chance event [0-9]* is [A-X] in the record, but the revealed seed gives [A-X] (chance_mismatch)' "$tmp/err" ||
    fail "tiles: $(cat "$tmp/err")"
  tamper "$tmp/seed.json" 'r["chance"]["seed"] = str(int(r["chance"]["seed"]) ^ 1)'
  run seed 2 replay --verify "$tmp/seed.json"
  grep -q 'is not the SHA-256 of the revealed seed and nonce' "$tmp/err" || fail "seed: $(cat "$tmp/err")"
  tamper "$tmp/nonce.json" 'n = r["chance"]["nonce"]; r["chance"]["nonce"] = ("1" if n[0] == "0" else "0") + n[1:]'
  run nonce 2 replay --verify "$tmp/nonce.json"
  grep -q 'chance_mismatch' "$tmp/err" || fail "nonce: $(cat "$tmp/err")"
  tamper "$tmp/commit.json" 'c = r["chance"]["commitment"]; r["chance"]["commitment"] = ("1" if c[0] == "0" else "0") + c[1:]'
  run commitment 2 replay --verify "$tmp/commit.json"
  grep -q 'chance_mismatch' "$tmp/err" || fail "commitment: $(cat "$tmp/err")"
  # seed and commitment of another game: consistent, but not these tiles
  tamper "$tmp/both.json" 'r["chance"] = o["chance"]'
  run both 2 replay --verify "$tmp/both.json"
  grep -q 'turn 1: chance event 0' "$tmp/err" || fail "both: $(cat "$tmp/err")"
  tamper "$tmp/none.json" 'del r["chance"]'
  run none 2 replay --verify --json "$tmp/none.json"
  grep -q 'no "chance" block' "$tmp/err" || fail "none: $(cat "$tmp/err")"
  expect none 'j["valid"]' False
  tamper "$tmp/hidden.json" 'del r["chance"]["seed"]; del r["chance"]["nonce"]'
  run hidden 2 replay --verify "$tmp/hidden.json"
  grep -q 'not revealed' "$tmp/err" || fail "hidden: $(cat "$tmp/err")"
  run hidden-replay 0 replay "$tmp/hidden.json"
  ;;
sprt)
  run sprt 0 tournament round-robin --game reversi --sprt elo0=0,elo1=40 \
    --games-per-pair 400 --json --quiet mcts:sims=200 random
  expect sprt 'j["sprt"]["state"]' H1
  expect sprt 'j["status"]' finished
  expect sprt 'j["counts"]["done"] < 400 and j["counts"]["void"] > 0' True
  expect sprt 'j["counts"]["done"] + j["counts"]["void"]' 400
  grep -q 'SPRT .*H1 accepted' "$tmp/out" || fail "sprt: no SPRT line: $(cat "$tmp/out")"
  ;;
bad)
  bad() { # bad WANT_TEXT ARGS...
    local want=$1
    shift
    run "bad: $*" 2 "$@"
    grep -q -- "$want" "$tmp/err" || fail "bad: $*: stderr lacks '$want': $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "bad: $*: printed on stdout: $(cat "$tmp/out")"
  }
  bad "unknown tournament format 'league'" tournament league random heuristic
  bad "which format" tournament
  bad "at least 2 participants, got 1" tournament rr random
  bad "at least 2 participants, got 0" tournament rr
  bad "unknown bot 'nosuchbot'" tournament rr random nosuchbot
  bad "participant 2 (nosuchbot)" tournament rr random nosuchbot
  bad "games-per-pair needs an integer from 1" tournament rr --games-per-pair 0 random heuristic
  bad "cycles needs an integer from 1" tournament rr --cycles 0 random heuristic
  bad "concurrency needs an integer from 1" tournament rr --concurrency 0 random heuristic
  bad "unknown game 'chess'" tournament rr --game chess random heuristic
  bad "on-fault is forfeit or random" tournament rr --on-fault maybe random heuristic
  bad "sprt needs elo0 and elo1" tournament rr --sprt alpha=0.1 random heuristic
  bad "sprt: elo1 needs a number" tournament rr --sprt elo0=0,elo1=x random heuristic
  bad "registered with a server" tournament rr random remote:alice
  bad "participant 2" tournament rr random "cmd:/no/such/program"
  bad "unknown option '--frobnicate'" tournament rr --frobnicate random heuristic
  bad "needs a value" tournament rr random heuristic --games-per-pair
  bad "knockout" tournament knockout --players 3 random heuristic random:seed=2
  bad "SPRT" tournament rr --sprt elo0=0,elo1=5 random heuristic mcts
  bad "unique" tournament rr a=random a=heuristic
  bad "no \"chance\" block" replay --verify "$src/tests/protocol/cases/valid-with-discard/input.json"
  ;;
*)
  echo "tournament.sh: unknown case '$case_name'" >&2
  exit 2
  ;;
esac
[ "$fails" -eq 0 ] && echo "tournament.sh $case_name: all checks passed"
[ "$fails" -eq 0 ]
