# Plays one game, then stops reading at game_over and waits to be killed,
# as if a process served one game only (new_game: time_limit).
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
    elif msg["type"] == "game_over":
        break
time.sleep(3600)
