# Answers its turn in words, not JSON (bad_output).
import sys
for line in sys.stdin:
    if '"your_turn"' in line:
        print("I think I will play the top left corner", flush=True)
