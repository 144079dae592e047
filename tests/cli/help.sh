#!/bin/bash
# help.sh TESSERA — what the help texts promise is what the commands do
# (issue 30, items 9 and 10):
#   - `tessera serve --help` names the address it binds by default, and a
#     server started without --host listens there and only there (it said
#     "default: all" while binding 127.0.0.1);
#   - `tessera match --help` says a player may be a program (cmd:) and names
#     the per-turn limit --move-ms, which match takes.
# Prints what failed and exits 1.
set -u
tessera=$1
. "$(dirname "$0")/lib.sh"

# ---- serve: the default address, as said and as bound ----
"$tessera" serve --help >"$tmp/serve.help"
said=$(sed -n 's/^ *--host ADDR .*(default \([^:)]*\).*/\1/p' "$tmp/serve.help")
[ "$said" = 127.0.0.1 ] || fail "serve --help gives the --host default as '$said': $(grep -A1 -- '--host' "$tmp/serve.help")"
start_server --log-level warn
port=$(printf '%04X' "$port")
# listening sockets on the port (state 0A) and their local addresses
bound=$(awk -v p=":$port" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u | tr '\n' ' ')
[ "$bound" = "0100007F:$port " ] ||
    fail "a server without --host listens on '$bound' (hex), not only on 127.0.0.1 as its help says"

# ---- match: programs and the per-turn limit ----
"$tessera" match --help >"$tmp/match.help"
grep -q "cmd:PROGRAM" "$tmp/match.help" || fail "match --help does not say a player may be a program (cmd:)"
grep -q -- "--move-ms MS" "$tmp/match.help" || fail "match --help does not name --move-ms"
"$tessera" match reversi random random --games 2 --move-ms 500 >"$tmp/match.out" 2>"$tmp/match.err" ||
    fail "match --move-ms 500: exit $? ($(cat "$tmp/match.err"))"

finish help.sh
