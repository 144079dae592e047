# Rates its meeples by dividing by the meeples it has left (no_meeples:
# crashed with a ZeroDivisionError). Other games: the first legal entry.
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        state = msg["state"]
        if "meeples_left" in state:
            value = 10.0 / state["meeples_left"][msg["seat"]]
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
