#!/usr/bin/env python3
"""stdio_bot.py -- a tessera bot in Python 3 (standard library only), for the
stdio protocol of docs/stdio.md: one JSON object per line on stdin, one per
line on stdout.

It plays any game: on `your_turn` it answers with an entry of `legal`. Its one
piece of judgement is for Carcassonne, whose legal entries list the ports a
meeple may go on: while it has more than two meeples left, it puts one on a
random allowed port half of the time.

Run it as a participant:  tessera match "cmd:python3 docs/examples/stdio_bot.py" heuristic
It works long-running (cmd:) and stateless (cmd-stateless:) alike: it reads
until stdin closes. Whatever it prints to stderr is kept with the game.
"""
import json
import random
import sys

seat = None
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "start":
        seat = msg["seat"]
        print(f"seat {seat} of a {msg['game']} game", file=sys.stderr)
    elif kind == "your_turn":
        seat = msg["seat"]
        move = dict(random.choice(msg["legal"]))
        ports = move.pop("meeples", None)  # Carcassonne: where a meeple may go
        if ports:
            left = msg["state"]["meeples_left"][seat]
            if left > 2 and random.random() < 0.5:
                move["meeple"] = random.choice(ports)
        reply = {"type": "move", "turn": msg["turn"], "move": move,
                 "debug": f"{len(msg['legal'])} legal moves"}
        print(json.dumps(reply), flush=True)  # flush: the move must leave now
    elif kind == "error":
        print(f"tessera refused my move: {msg['message']}", file=sys.stderr)
    elif kind == "game_over":
        print(f"game over: {msg['result']['reason']}, scores {msg['scores']}",
              file=sys.stderr)
    # "update" needs nothing from a bot that keeps no state
