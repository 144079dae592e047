#!/usr/bin/env python3
"""first.py -- the laziest classroom test bot: always the first legal move
of the list. Plays about as well as random play (Reversi lists moves in
square order, so it favours the top rows), well below anything with a
thought in it."""
import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "your_turn":
        print(json.dumps({"type": "move", "turn": msg["turn"], "move": msg["legal"][0]}),
              flush=True)
