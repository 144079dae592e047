# Says which Python runs it (sys.prefix, sys.executable) and whether a
# module only its virtual environment has can be imported, then plays.
import json, sys
print("prefix=%s executable=%s" % (sys.prefix, sys.executable), file=sys.stderr, flush=True)
try:
    import venvmark
    print("venvmark imported from %s" % venvmark.__file__, file=sys.stderr, flush=True)
except ImportError as e:
    print("venvmark missing: %s" % e, file=sys.stderr, flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
