#!/usr/bin/env python3
"""minimax.py -- the strongest classroom test bot: Reversi by alpha-beta to
depth 3 over a positional table plus mobility (rules in reversi_rules.py, a
second file of the same submission). Deterministic: no randomness."""
import json
import sys

import reversi_rules as R

W = [[100, -20, 10, 5, 5, 10, -20, 100],
     [-20, -50, -2, -2, -2, -2, -50, -20],
     [10, -2, -1, -1, -1, -1, -2, 10],
     [5, -2, -1, -1, -1, -1, -2, 5],
     [5, -2, -1, -1, -1, -1, -2, 5],
     [10, -2, -1, -1, -1, -1, -2, 10],
     [-20, -50, -2, -2, -2, -2, -50, -20],
     [100, -20, 10, 5, 5, 10, -20, 100]]


def value(cells, me):
    them = "O" if me == "X" else "X"
    v = 0
    for (x, y), c in cells.items():
        v += W[y][x] if c == me else -W[y][x]
    return v + 5 * (len(R.moves(cells, me)) - len(R.moves(cells, them)))


def search(cells, me, mover, depth, alpha, beta):
    them = "O" if mover == "X" else "X"
    ms = R.moves(cells, mover)
    if depth == 0 or (not ms and not R.moves(cells, them)):
        return value(cells, me)
    if not ms:
        return search(cells, me, them, depth - 1, alpha, beta)
    if mover == me:
        best = -10 ** 9
        for m in ms:
            best = max(best, search(R.play(cells, m, mover), me, them, depth - 1, alpha, beta))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best
    best = 10 ** 9
    for m in ms:
        best = min(best, search(R.play(cells, m, mover), me, them, depth - 1, alpha, beta))
        beta = min(beta, best)
        if alpha >= beta:
            break
    return best


for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "your_turn":
        continue
    me = "X" if msg["seat"] == 0 else "O"
    them = "O" if me == "X" else "X"
    cells = R.parse(msg["state"]["board"])
    legal = [e["move"] for e in msg["legal"]]
    if legal == ["pass"]:
        choice, score = "pass", 0
    else:
        scored = [(search(R.play(cells, R.square(m), me), me, them, 2, -10 ** 9, 10 ** 9), m)
                  for m in legal]
        score, choice = max(scored)
    print(f"turn {msg['turn']}: {choice} scores {score}", file=sys.stderr)
    print(json.dumps({"type": "move", "turn": msg["turn"], "move": {"move": choice},
                      "debug": f"value {score}"}), flush=True)
