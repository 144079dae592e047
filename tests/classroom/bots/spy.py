#!/usr/bin/env python3
"""spy.py -- a classroom test bot that tries to read other students'
submissions from disk before it plays the first legal move: it lists the
folders above its own and reads the server's database, and writes what it
found on stderr (the access test checks that it finds nothing)."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
for up in (os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
    try:
        print("LISTED %s: %s" % (up, sorted(os.listdir(up))), file=sys.stderr)
    except OSError as e:
        print("REFUSED %s: %s" % (up, type(e).__name__), file=sys.stderr)
# the server's database: DB.files/course-C/student-S/vN-R/ is four levels below its folder
top = here
for _ in range(4):
    top = os.path.dirname(top)
for name in sorted(os.listdir(top)) if os.access(top, os.R_OK) else ["tessera.db"]:
    if name.endswith(".db") or name.endswith(".db-wal"):
        try:
            with open(os.path.join(top, name), "rb") as f:
                print("READ %s: %d bytes" % (name, len(f.read())), file=sys.stderr)
        except OSError as e:
            print("REFUSED %s: %s" % (name, type(e).__name__), file=sys.stderr)
sys.stderr.flush()

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "your_turn":
        print(json.dumps({"type": "move", "turn": msg["turn"], "move": msg["legal"][0]}),
              flush=True)
