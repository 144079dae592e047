# lib.sh — what the CLI's shell tests share (sourced, after `set -u`):
#   tmp               a fresh temporary folder (mode 755: the sandbox runs
#                     programs as nobody under root), removed at the end with
#                     every server started here
#   fail MSG          count a failure and say it on stderr
#   start_server [ARGS...]  `tessera serve` on a free port with a database in
#                     $tmp (--admin-token-file $tmp/admin, programs' folders in
#                     $tmp/progs); sets server_pid, port, url, admin (the token
#                     file); exits when it does not start
#   finish NAME       the last line: exit 0 when nothing failed, else 1
# The caller sets `tessera` (the binary) before start_server.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-clitest.XXXXXX")
chmod 755 "$tmp"
fails=0
server_pids=()
lib_cleanup() {
    for p in "${server_pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap lib_cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
start_server() {
    mkdir -p -m 1777 "$tmp/progs"
    rm -f "$tmp/port"
    TMPDIR="$tmp/progs" "$tessera" serve --port 0 --port-file "$tmp/port" --db "$tmp/db" --no-web \
        --log-level info --admin-token-file "$tmp/admin" "$@" >/dev/null 2>>"$tmp/server.log" &
    server_pid=$!
    server_pids+=("$server_pid")
    for _ in $(seq 200); do [ -s "$tmp/port" ] && [ -s "$tmp/admin" ] && break; sleep 0.05; done
    [ -s "$tmp/port" ] || { fail "the server did not start: $(tail -n 5 "$tmp/server.log")"; exit 1; }
    port=$(cat "$tmp/port")
    url="ws://127.0.0.1:$port/"
    admin="$tmp/admin"
}
finish() {
    [ "$fails" -eq 0 ] && echo "$1: all checks passed"
    [ "$fails" -eq 0 ]
}
