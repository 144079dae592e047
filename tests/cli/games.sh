#!/bin/bash
# games.sh TESSERA WSCTL — `tessera games`, which no test ran (issue 30,
# item 21), and `tessera games --json` (item 12):
#   - the list names every game of the registry with its players and rule
#     options, each option's default as `--rule K=V`;
#   - --json is the server's own reply to list_games, field for field (a
#     real `tessera serve` is asked);
#   - it carries Carcassonne's whole tile model: 24 tiles, 72 tiles in all,
#     10 with a pennant, 6 cloisters, each tile's port map of 13 letters, and
#     which cities each field touches, checked here against docs/rules.md's
#     table (tiles I and H: the field touches both cities; J: only one field
#     touches the city; U, X: no city);
#   - a stray argument is exit 2, named.
# Prints what failed and exits 1.
set -u
tessera=$1 wsctl=$2
. "$(dirname "$0")/lib.sh"

"$tessera" games >"$tmp/list" 2>"$tmp/err" || fail "tessera games exited $? ($(cat "$tmp/err"))"
for g in carcassonne reversi dodgem pentago-twist; do
    grep -q "^$g " "$tmp/list" || fail "the list lacks $g: $(cat "$tmp/list")"
done
grep -q '^carcassonne *Carcassonne, 2-5 players (default 2), with chance$' "$tmp/list" ||
    fail "carcassonne's line: $(grep carcassonne "$tmp/list")"
grep -q '^  --rule farms=true ' "$tmp/list" || fail "the farms option: $(cat "$tmp/list")"
grep -q '^  --rule tiny_city=4 ' "$tmp/list" || fail "the tiny_city option: $(cat "$tmp/list")"

"$tessera" games extra >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "games extra: exit $rc, want 2"
grep -q "extra" "$tmp/err" || fail "games extra: stderr does not name it: $(cat "$tmp/err")"

"$tessera" games --json >"$tmp/games.json" 2>"$tmp/err" || fail "games --json exited $? ($(cat "$tmp/err"))"

# the server's list_games, from a real server
start_server --log-level warn
"$wsctl" "$url" '{"type":"list_games"}' >"$tmp/server.json" ||
    fail "list_games: $(cat "$tmp/server.json")"

python3 - "$tmp/games.json" "$tmp/server.json" <<'EOF' || fail "the JSON checks above"
import json, sys
cli = json.load(open(sys.argv[1]))
server = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
server = [m for m in server if m.get("type") == "games"]
bad = []
if len(server) != 1:
    bad.append(f"no games reply from the server: {server}")
else:
    srv = server[0]
    srv.pop("id", None)
    if cli != srv:
        bad.append("tessera games --json differs from the server's list_games reply")
games = {g["name"]: g for g in cli.get("games", [])}
if cli.get("type") != "games" or set(games) != {"carcassonne", "reversi", "dodgem", "pentago-twist"}:
    bad.append(f"type/games: {cli.get('type')} {sorted(games)}")
carc = games.get("carcassonne", {})
tiles = carc.get("tiles", {})
order = carc.get("port_order", "").split()
if order != "NW N NE EN E ES SE S SW WS W WN C".split():
    bad.append(f"port_order {order}")
if sorted(tiles) != [chr(c) for c in range(ord("A"), ord("X") + 1)]:
    bad.append(f"tile letters {sorted(tiles)}")
if sum(t["count"] for t in tiles.values()) != 72:
    bad.append("not 72 tiles in all")
if sum(t["count"] for t in tiles.values() if t["pennant"]) != 10:
    bad.append("not 10 tiles with a pennant")
if sum(t["count"] for t in tiles.values() if t["ports"][12] == "k") != 6:
    bad.append("not 6 cloisters")
def port(t, name):
    return tiles[t]["ports"][order.index(name)]
for letter, t in tiles.items():
    if len(t["ports"]) != 13:
        bad.append(f"{letter}: ports {t['ports']}")
    fields = {c for c in t["ports"] if c in "fghi"}
    if set(t.get("field_cities", {})) != fields:
        bad.append(f"{letter}: field_cities {t.get('field_cities')} for fields {fields}")
# docs/rules.md: H's and I's field touches both cities; J: {EN W SW} touches
# the city, {ES SE} does not; U and X have no city
for letter in "HI":
    f = port(letter, "E")
    cities = {port(letter, "N"), port(letter, "S" if letter == "H" else "W")}
    if set(tiles[letter]["field_cities"][f]) != cities or len(cities) != 2:
        bad.append(f"{letter}: field {f} touches {tiles[letter]['field_cities'][f]}, want {cities}")
j = tiles["J"]["field_cities"]
if j[port("J", "W")] != port("J", "N") or j[port("J", "SE")] != "":
    bad.append(f"J: {j}")
for letter in "UX":
    if any(tiles[letter]["field_cities"].values()):
        bad.append(f"{letter}: {tiles[letter]['field_cities']}")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

finish games.sh
