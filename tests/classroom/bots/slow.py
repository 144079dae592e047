#!/usr/bin/env python3
"""slow.py -- a course test bot that takes its time: the first legal move,
after 0.1 s. Its gates last a few seconds, long enough for a test to see
several submissions in their gates at once (tests/classroom/test_course_remote.js)."""
import json
import sys
import time

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "your_turn":
        time.sleep(0.1)
        print(json.dumps({"type": "move", "turn": msg["turn"], "move": msg["legal"][0]}), flush=True)
