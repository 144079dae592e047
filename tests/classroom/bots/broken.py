#!/usr/bin/env python3
"""broken.py -- a classroom test bot with a bug: it reads a field the
protocol does not send ("moves" instead of "legal") and dies with a KeyError
at its first turn, its traceback on stderr."""
import json
import sys

print("broken bot starting", file=sys.stderr, flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "your_turn":
        move = msg["moves"][0]
        print(json.dumps({"type": "move", "move": move}), flush=True)
