# Prints a stray line when the game starts (outside its turn), then answers
# each turn with an illegal move first; only after tessera has sent an
# `error` for it does it answer legally, with a debug object and fields
# tessera does not know.
import json, sys
refused = False
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print("hello from the retry bot", flush=True)
    elif msg["type"] == "error":
        refused = msg["code"] == "illegal_move"
    elif msg["type"] == "your_turn":
        if refused:
            reply = {"type": "move", "move": msg["legal"][0], "turn": msg["turn"],
                     "debug": {"tried": 2}, "comment": "second try", "id": 7}
            refused = False
        else:
            reply = {"type": "move", "move": {"x": 0, "y": 0, "rot": 0}}
        print(json.dumps(reply), flush=True)
