# Checks every message against the fields it knows, as if no field could
# ever be added (unknown_fields: crashed with an AssertionError).
import json, sys
KNOWN = {"type", "protocol", "game", "rules", "seat", "match", "history", "state", "limits",
         "time_control", "turn", "legal", "time_left_ms", "deadline", "record", "by", "reason",
         "scores", "next", "ranking", "result", "code", "message"}
for line in sys.stdin:
    msg = json.loads(line)
    unknown = set(msg) - KNOWN
    assert not unknown, "unexpected fields %s" % sorted(unknown)
    if msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
