# Prints its debugging on stdout after each update instead of stderr
# (first_move: bad_output: stdout is for moves only).
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "update":
        print("saw turn", msg["turn"], flush=True)
    elif msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
