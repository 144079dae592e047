# Floods on its turn, without end: argv[1] is "out" (blank lines on stdout),
# "err" (stderr) or "both" (output_flood).
import sys
what = sys.argv[1] if len(sys.argv) > 1 else "both"
for line in sys.stdin:
    if '"your_turn"' in line:
        chunk_out, chunk_err = "\n" * 65536, "x" * 65535 + "\n"
        while True:
            if what in ("err", "both"):
                sys.stderr.write(chunk_err)
            if what in ("out", "both"):
                sys.stdout.write(chunk_out)
