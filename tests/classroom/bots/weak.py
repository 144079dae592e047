#!/usr/bin/env python3
"""weak.py -- a weak classroom test bot: greedy.py with its table upside down
(it seeks the squares next to the corners and avoids the corners). Loses to
random play more often than not."""
import json
import sys

W = [[100, -20, 10, 5, 5, 10, -20, 100],
     [-20, -50, -2, -2, -2, -2, -50, -20],
     [10, -2, -1, -1, -1, -1, -2, 10],
     [5, -2, -1, -1, -1, -1, -2, 5],
     [5, -2, -1, -1, -1, -1, -2, 5],
     [10, -2, -1, -1, -1, -1, -2, 10],
     [-20, -50, -2, -2, -2, -2, -50, -20],
     [100, -20, 10, 5, 5, 10, -20, 100]]


def weight(move):
    if move == "pass":
        return 0
    return W[int(move[1]) - 1]["abcdefgh".index(move[0])]


for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "your_turn":
        best = max((e["move"] for e in msg["legal"]), key=lambda m: -weight(m))
        print(json.dumps({"type": "move", "turn": msg["turn"], "move": {"move": best}}), flush=True)
