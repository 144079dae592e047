# Plays the first legal entry and appends every line it receives to the
# file argv[1], for the test to check what tessera wrote.
import json, sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    log.write(line)
    log.flush()
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
