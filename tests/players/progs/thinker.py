# Prints thinking lines before each move (docs/stdio.md, Thinking lines):
# a good one, three bad ones (an illegal candidate, winprob 1.5, another
# turn's), a burst of ten good ones within a few milliseconds (the pace
# passes the first and holds the latest), then after 150 ms a last one
# naming the move it plays, and the move (Reversi).
import json, sys, time
def say(obj):
    print(json.dumps(obj), flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "your_turn":
        continue
    legal, turn = msg["legal"], msg["turn"]
    say({"type": "info", "turn": turn, "text": "first",
         "candidates": [{"move": legal[0], "visits": 10}]})
    say({"type": "info", "candidates": [{"move": {"move": "a1"}, "visits": 1}]})
    say({"type": "info", "winprob": 1.5})
    say({"type": "info", "turn": turn + 1})
    for i in range(10):
        say({"type": "info", "iterations": i, "text": "burst"})
    time.sleep(0.15)
    say({"type": "info", "text": "final", "winprob": 0.75,
         "candidates": [{"move": legal[-1], "visits": 30, "winprob": 0.75},
                        {"move": legal[0], "visits": 10}]})
    say({"type": "move", "move": legal[-1]})
