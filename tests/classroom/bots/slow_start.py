#!/usr/bin/env python3
"""slow_start.py [SECONDS] -- a course test bot whose start-up takes longer
than a move: SECONDS of CPU (default 0.35, as importing numpy takes) before
it reads its first line, then the greedy player of greedy.py, which answers
in a few milliseconds. A bot the gates must not fail for its start-up
(issue 25: with 0.35 s at 200 ms a move it lost every game when the start-up
counted against its first move); tests/classroom/test_classroom.c plays it.
Writes its start-up's CPU time on stderr."""
import json
import sys
import time

STARTUP = float(sys.argv[1]) if len(sys.argv) > 1 else 0.35
t0 = time.process_time()
x = 0
while time.process_time() - t0 < STARTUP:  # the "imports"
    for i in range(10000):
        x += i
print("start-up: %.0f ms of CPU" % (1000 * (time.process_time() - t0)), file=sys.stderr,
      flush=True)

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
        best = max((e["move"] for e in msg["legal"]), key=weight)
        print(json.dumps({"type": "move", "turn": msg["turn"], "move": {"move": best}}), flush=True)
