# Follows the board from the updates, reading the placement of every
# turn's record; a discarded tile's record has none (dead_tile: crashed
# with a KeyError).
import json, sys
board = {}
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "update" and msg["record"].get("tile"):
        rec = msg["record"]
        board[(rec["x"], rec["y"])] = rec["tile"]
    elif msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
