# Fills its private /tmp and /var/tmp with argv[1] MiB each (files in
# memory: they count against its cgroup's limit), then allocates argv[2]
# MiB more and touches it: past the limit the kernel kills it.
import os, sys
tmp_mb, heap_mb = int(sys.argv[1]), int(sys.argv[2])
for line in sys.stdin:
    if '"your_turn"' in line:
        for d in ("/tmp", "/var/tmp"):
            for i in range(tmp_mb):  # files of 1 MiB: under the file size limit
                with open(os.path.join(d, "hog%d" % i), "wb") as f:
                    f.write(b"h" * (1 << 20))
        print("filled %d MiB of tmpfs" % (2 * tmp_mb), file=sys.stderr, flush=True)
        heap = bytearray(heap_mb << 20)
        for i in range(0, len(heap), 4096):
            heap[i] = 1
        print("survived", file=sys.stderr, flush=True)
        sys.exit(0)
