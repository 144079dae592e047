#!/bin/bash
# suites.sh BUILD_DIR NODE — no registered suite passes having run nothing
# (issue 30, item 17: server_pg_faults and server_pg_memory_bounds were
# registered, exited 0 at once on PostgreSQL and were reported "Passed"):
#   - no server_pg_* suite CTest lists comes from a file that declares
#     itself SQLite-only (lib.js sqliteOnly): those are not registered there;
#   - sqliteOnly, should such a file run on PostgreSQL anyway, exits 77
#     (CTest: skipped, with SKIP_RETURN_CODE), never 0.
set -u
build=$1
node=$2
here=$(cd "$(dirname "$0")" && pwd)
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
listed=$(cd "$build" && ctest -N | sed -n 's/^ *Test *#[0-9]*: \(server_pg_[a-z0-9_]*\)$/\1/p')
[ -n "$listed" ] || fail "ctest lists no server_pg_* suite in $build"
for name in $listed; do
    f="$here/test_${name#server_pg_}.js"
    [ -f "$f" ] || continue # a suite named otherwise (server_pg_db_crash: test_durable.js)
    grep -q "sqliteOnly(" "$f" && fail "$name is registered, but $(basename "$f") is SQLite-only: it would run nothing"
done
(cd "$here" && TESSERA_TEST_STORAGE=pg "$node" -e "require('./lib').sqliteOnly('a test of the test')") >/dev/null
rc=$?
[ $rc -eq 77 ] || fail "sqliteOnly on PostgreSQL exits $rc, want 77 (a skip, not a pass)"
[ "$fails" -eq 0 ] && echo "suites.sh: every registered PostgreSQL suite runs its tests"
[ "$fails" -eq 0 ]
