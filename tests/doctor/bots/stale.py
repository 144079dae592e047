# Counts turns itself from the updates and names its turn, but never starts
# counting again when a new game starts (new_game: bad_output, the move is
# for another turn). It reads the turn of `start` once, at its first game.
import json, sys
turns = None
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start" and turns is None:
        turns = len(msg["history"])
    elif msg["type"] == "update":
        turns += 1
    elif msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "turn": turns + 1, "move": msg["legal"][0]}),
              flush=True)
