# Plays the first legal entry, and exits with status 3 at its first turn
# numbered argv[1] or later (the bridge's crash test: a program that crashes
# mid-game). Which turns are this seat's depends on the tiles drawn (a
# Carcassonne tile that fits nowhere is drawn again and shifts the count),
# so it does not wait for one exact number. Started again with a history
# that already reaches that turn, it plays on.
import json, sys
crash_turn = int(sys.argv[1])
played_before = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        played_before = len(msg.get("history") or [])
    elif msg["type"] == "your_turn":
        if msg["turn"] >= crash_turn and played_before < crash_turn:
            print("crashing on purpose at turn", msg["turn"], file=sys.stderr, flush=True)
            sys.exit(3)
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
