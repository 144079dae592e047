# Answers with one line of 100 KB (bad_output: longer than the line limit).
import sys
for line in sys.stdin:
    if '"your_turn"' in line:
        print('{"type":"move","debug":"' + "x" * 100000 + '"}', flush=True)
