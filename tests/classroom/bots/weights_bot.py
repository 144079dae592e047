#!/usr/bin/env python3
"""weights_bot.py -- a classroom test bot that carries its own weights: it
reads weights.bin beside it (shipped in the same submission, larger than one
protocol message), whose last 32 bytes are the SHA-256 of the rest, and
exits with status 3 when the file is missing or not intact. Then it plays
Reversi by the weight of each square: 64 bytes of the file."""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    with open(os.path.join(HERE, "weights.bin"), "rb") as f:
        blob = f.read()
except OSError as e:
    print("no weights: %s" % e, file=sys.stderr)
    sys.exit(3)
body, digest = blob[:-32], blob[-32:]
if len(body) < 64 or hashlib.sha256(body).digest() != digest:
    print("weights.bin is not intact (%d bytes)" % len(blob), file=sys.stderr)
    sys.exit(3)
print("weights: %d bytes, intact" % len(blob), file=sys.stderr)
W = body[:64]


def weight(move):
    if move == "pass":
        return -1
    return W[(int(move[1]) - 1) * 8 + "abcdefgh".index(move[0])]


for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "your_turn":
        best = max((e["move"] for e in msg["legal"]), key=weight)
        print(json.dumps({"type": "move", "turn": msg["turn"], "move": {"move": best}}), flush=True)
