# Plays the first legal entry, and exits with status 3 when asked for turn
# argv[1] (the bridge's crash test: a program that crashes mid-game).
import json, sys
crash_turn = int(sys.argv[1])
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        if msg["turn"] == crash_turn:
            print("crashing on purpose at turn", crash_turn, file=sys.stderr, flush=True)
            sys.exit(3)
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
