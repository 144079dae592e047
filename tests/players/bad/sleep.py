# Answers nothing: sleeps past any deadline once its turn comes (time_limit).
import sys, time
for line in sys.stdin:
    if '"your_turn"' in line:
        time.sleep(3600)
