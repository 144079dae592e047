# A fork bomb on its turn: forks until it cannot, reports how many it made
# on stderr, then answers (the children sleep; all must die at the end).
# argv[1] is a marker the test finds in /proc.
import json, os, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "your_turn":
        continue
    made = 0
    while made < 100000:
        try:
            pid = os.fork()
        except OSError as e:
            print(f"bomb: fork failed after {made}: {e.strerror}", file=sys.stderr, flush=True)
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        made += 1
    print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
