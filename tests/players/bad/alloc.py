# Allocates without limit on its turn, touching every byte (memory_limit):
# under RLIMIT_AS CPython raises MemoryError and exits with status 1.
import sys
hoard = []
for line in sys.stdin:
    if '"your_turn"' in line:
        while True:
            hoard.append(bytearray(8 << 20))
