#!/usr/bin/env python3
"""slow.py -- a course test bot that takes its time: the first legal move,
after 0.3 s. Its gates last about ten seconds, long enough for a test to see
several submissions in their gates at once (tests/classroom/test_course_remote.js)
even on a loaded machine, where python3's check of each upload takes seconds."""
import json
import sys
import time

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "your_turn":
        time.sleep(0.3)
        print(json.dumps({"type": "move", "turn": msg["turn"], "move": msg["legal"][0]}), flush=True)
