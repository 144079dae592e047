# A stdio bot whose move line carries its thinking line (docs/stdio.md,
# "Thinking lines"): on its 1st, 3rd, ... turn {"type":"move","move":...,
# "info":{...}}, on the others an info line and then the move line right
# behind it (which tessera bridge may send as one move); Reversi, the last
# legal move.
import json, sys
def say(obj):
    print(json.dumps(obj), flush=True)
asked = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "your_turn":
        continue
    legal, turn = msg["legal"], msg["turn"]
    asked += 1
    body = {"winprob": 0.75, "iterations": turn,
            "candidates": [{"move": legal[-1], "visits": 30}, {"move": legal[0], "visits": 10}]}
    if asked % 2:
        say({"type": "move", "move": legal[-1], "info": dict(body, text="inline")})
    else:
        say(dict({"type": "info", "turn": turn, "text": "before"}, **body))
        say({"type": "move", "move": legal[-1]})
