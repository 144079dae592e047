# Answers one turn and exits: run as a long-running program (cmd:), it is
# started again for every turn and must get `start` with the history so far.
import json, sys
started = None
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        started = msg
    elif msg["type"] == "your_turn":
        ok = started is not None and len(started["history"]) == msg["turn"] - 1
        print(json.dumps({"type": "move", "move": msg["legal"][-1],
                          "debug": "history ok" if ok else "history missing"}), flush=True)
        sys.exit(0)
