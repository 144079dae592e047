# On its turn, starts children that try to outlive it — one in a new
# session (setsid), one double-forked daemon, one plain — prints their pids
# on stderr, and exits without answering (no_answer). argv[1] is a marker
# the test finds in /proc to check that every one of them is dead.
import os, sys, time
marker = sys.argv[1]
for line in sys.stdin:
    if '"your_turn"' in line:
        for kind in ("setsid", "daemon", "plain"):
            pid = os.fork()
            if pid == 0:
                if kind == "setsid":
                    os.setsid()
                if kind == "daemon":
                    os.setsid()
                    if os.fork() > 0:
                        os._exit(0)
                os.execv(sys.executable, [sys.executable, "-c",
                         "import time; time.sleep(600)", marker, kind])
            print(f"child {kind} {pid}", file=sys.stderr, flush=True)
        time.sleep(0.2)
        sys.exit(0)
