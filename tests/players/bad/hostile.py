# A hostile student's bot: it plays legal moves, and meanwhile does what
# the security review of issue 29 did to the other programs of a
# tournament and to the server. Every suite that starts programs (a local
# cmd: participant, a server cmd: seat, a course upload, the container)
# runs it; the test then reads what it found on its stderr log and checks
# the machine from outside.
#
# Its settings come from hostile.json beside it, read at its first turn (a
# course upload cannot pass arguments; a test may write the spy's targets
# once the victim runs), argv[1] and argv[2] overriding mode and marker:
#   mode      spy | victim | burner
#   marker    a word unique to this program (its files, its argv)
#   read      paths to try to read (the journal, its -wal, the token file,
#             another program's folder and files ...)
#   write     folders to try to create a file in
#   pids      host pids to trace, read (process_vm_readv, /proc/PID/mem)
#             and signal (the other program's, the server's)
#   port      a TCP port listening on the machine's 127.0.0.1
#   abstract  a Unix socket name in the machine's abstract namespace
#   children  burner: busy children it starts
#   delay_ms  wait this long at the first turn (the test writes the spy's
#             targets meanwhile)
#   hold      burner: never answer (true: busy itself; "sleep": asleep, its
#             children busy) or answer each turn at once
#
# spy: on its first turn it prints one line "FINDINGS {json}" on stderr.
# victim: keeps a secret in its memory and in its files and checks them
#   every turn ("VICTIM intact" or "VICTIM TAMPERED ..." on stderr).
# burner: starts busy children at its first turn, prints "BURNER pids";
#   each child prints "CHILD pid cpu_ms" (its own CPU time) every 100 ms.
import ctypes, errno, json, os, socket, sys, time

here = os.path.dirname(os.path.abspath(__file__))
cfg = {}
mode = marker = None


def load():
    """hostile.json is read at the first turn: a test may write the spy's
    targets once the victim runs."""
    global cfg, mode, marker
    try:
        with open(os.path.join(here, "hostile.json")) as f:
            cfg = json.load(f)
    except OSError:
        cfg = {}
    if len(sys.argv) > 1:
        cfg["mode"] = sys.argv[1]
    if len(sys.argv) > 2:
        cfg["marker"] = sys.argv[2]
    mode = cfg.get("mode", "spy")
    marker = cfg.get("marker", "hostile")


libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def err_name(e):
    return errno.errorcode.get(e, str(e))


def call(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return "ok" if r >= 0 else err_name(ctypes.get_errno())


def try_read(p):
    try:
        if os.path.isdir(p):
            return "listed %d" % len(os.listdir(p))
        with open(p, "rb") as f:
            return "read %d" % len(f.read())
    except OSError as e:
        return err_name(e.errno)


def try_write(d):
    p = os.path.join(d, "hostile-" + marker)
    try:
        with open(p, "w") as f:
            f.write("written by " + marker)
        return "written"
    except OSError as e:
        return err_name(e.errno)


class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def vm_read(pid):
    buf = ctypes.create_string_buffer(64)
    local = iovec(ctypes.cast(buf, ctypes.c_void_p), 64)
    remote = iovec(0x400000, 64)
    r = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    return "ok" if r >= 0 else err_name(ctypes.get_errno())


def spy():
    found = {"self": os.getpid(), "uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd(),
             "argv": sys.argv,
             "env": sorted(os.environ), "fds": sorted(os.listdir("/proc/self/fd"))}
    procs = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    procs[d] = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError as e:
                procs[d] = err_name(e.errno)
    found["procs"] = procs
    # every pid it can name (kill 0: alive, or alive and not allowed): the
    # first 65536 (a PID namespace numbers from 1; its pid_max may say 4M)
    # and the machine's pids it was given
    alive = []
    for pid in list(range(1, 65537)) + [int(p) for p in cfg.get("pids", [])]:
        try:
            os.kill(pid, 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
        except PermissionError:
            alive.append(pid)
    found["signalable"] = alive
    found["read"] = {p: try_read(p) for p in cfg.get("read", [])}
    found["write"] = {d: try_write(d) for d in
                      cfg.get("write", []) + ["/", "/usr", "/etc", "/bot", "/proc/1"]}
    # its own private folders: fill them (the test checks nothing is left)
    found["tmp"] = {}
    for d in ("/tmp", "/var/tmp", "/dev/shm", os.environ.get("HOME", "/")):
        try:
            with open(os.path.join(d, "hostile-" + marker), "wb") as f:
                f.write(b"x" * (1 << 20))
            found["tmp"][d] = "written"
        except OSError as e:
            found["tmp"][d] = err_name(e.errno)
    targets = [int(p) for p in cfg.get("pids", [])] + [int(p) for p in procs if p != str(os.getpid())]
    found["ptrace"] = {str(p): call(101, 16, p, 0, 0) for p in targets}  # PTRACE_ATTACH
    found["vm_read"] = {str(p): vm_read(p) for p in targets}
    found["mem"] = {}
    for p in targets:
        try:
            with open("/proc/%d/mem" % p, "rb") as f:
                f.seek(0x400000)
                f.read(16)
            found["mem"][str(p)] = "read"
        except OSError as e:
            found["mem"][str(p)] = err_name(e.errno)
    found["kill"] = {}
    for p in cfg.get("pids", []):
        try:
            os.kill(int(p), 0)
            found["kill"][str(p)] = "ok"
        except OSError as e:
            found["kill"][str(p)] = err_name(e.errno)
    found["net"] = {}
    if cfg.get("port"):
        try:
            s = socket.create_connection(("127.0.0.1", int(cfg["port"])), timeout=1)
            s.sendall(b"escaped " + marker.encode() + b"\n")
            found["net"]["tcp"] = "connected"
        except OSError as e:
            found["net"]["tcp"] = err_name(e.errno)
    if cfg.get("abstract"):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\0" + cfg["abstract"])
            s.sendall(b"escaped " + marker.encode() + b"\n")
            found["net"]["abstract"] = "connected"
        except OSError as e:
            found["net"]["abstract"] = err_name(e.errno)
    found["syscalls"] = {
        "keyctl": call(250, 0, 0, 0, 0),          # KEYCTL_GET_KEYRING_ID
        "io_uring_setup": call(425, 1, 0),
        "unshare_user": call(272, 0x10000000),   # CLONE_NEWUSER
        "bpf": call(321, 0, 0, 0),
        "perf_event_open": call(298, 0, 0, -1, -1, 0),
    }
    print("FINDINGS " + json.dumps(found), file=sys.stderr, flush=True)


secret = None
children = []


def victim_setup():
    global secret
    secret = ("SECRET-" + marker + "-").encode() * 4
    for d in (os.environ.get("HOME", "/tmp"), "/tmp"):
        with open(os.path.join(d, "secret-" + marker), "wb") as f:
            f.write(secret)
    print("VICTIM uid %d" % os.getuid(), file=sys.stderr, flush=True)


def victim_check(turn):
    bad = []
    if secret != ("SECRET-" + marker + "-").encode() * 4:
        bad.append("memory")
    for d in (os.environ.get("HOME", "/tmp"), "/tmp"):
        try:
            with open(os.path.join(d, "secret-" + marker), "rb") as f:
                if f.read() != secret:
                    bad.append(d)
        except OSError:
            bad.append(d + " gone")
    print("VICTIM %s turn %d" % ("TAMPERED " + ",".join(bad) if bad else "intact", turn),
          file=sys.stderr, flush=True)


def burn():
    for _ in range(int(cfg.get("children", 4))):
        pid = os.fork()
        if pid == 0:
            # busy; every 100 ms of the clock it says how much CPU it used
            next_say = time.monotonic() + 0.1
            while True:
                if time.monotonic() >= next_say:
                    print("CHILD %d %.0f" % (os.getpid(), time.process_time() * 1000),
                          file=sys.stderr, flush=True)
                    next_say += 0.1
        children.append(pid)
    print("BURNER %s" % " ".join(map(str, children)), file=sys.stderr, flush=True)


turn = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "your_turn":
        continue
    turn += 1
    if turn == 1:
        load()
        time.sleep(int(cfg.get("delay_ms", 0)) / 1000)
        if mode == "spy":
            spy()
        elif mode == "victim":
            victim_setup()
        elif mode == "burner":
            burn()
    if mode == "victim":
        victim_check(turn)
    if mode == "burner" and cfg.get("hold") == "sleep":
        time.sleep(3600)  # its children think
    elif mode == "burner" and cfg.get("hold"):
        while True:
            pass
    print(json.dumps({"type": "move", "turn": msg["turn"], "move": msg["legal"][0]}), flush=True)
