# Tries to reach a TCP port on 127.0.0.1 (argv[1]) and a public address,
# says on stderr what happened, then plays a legal move all the same.
import json, socket, sys
port = int(sys.argv[1])
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "your_turn":
        continue
    for host in ("127.0.0.1", "1.1.1.1"):
        try:
            s = socket.create_connection((host, port if host == "127.0.0.1" else 53), timeout=1)
            s.sendall(b"escaped\n")
            print(f"net: connected to {host}", file=sys.stderr, flush=True)
        except OSError as e:
            print(f"net: {host}: {e.strerror}", file=sys.stderr, flush=True)
    print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
