# Thinks 400 ms every move whatever time_left_ms says: fine at 2 s a move,
# too slow when the clock is close to zero (low_clock: time_limit).
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        time.sleep(0.4)
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
