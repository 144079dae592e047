# Burns CPU on its turn without end (time_limit by the CPU limit when the
# deadline is far).
import sys
for line in sys.stdin:
    if '"your_turn"' in line:
        while True:
            pass
