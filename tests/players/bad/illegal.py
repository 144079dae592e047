# Answers with a well-formed Carcassonne move on the start tile's cell,
# which is taken (illegal_move).
import json, sys
for line in sys.stdin:
    if '"your_turn"' in line:
        print(json.dumps({"type": "move", "move": {"x": 0, "y": 0, "rot": 0}}), flush=True)
