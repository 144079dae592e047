#!/usr/bin/env bash
# test.sh — the test command: install what is missing, build with warnings as
# errors, run the test suites under CTest (slow suites excluded), then build
# again with AddressSanitizer + UndefinedBehaviorSanitizer and run them again,
# then give each fuzz target a short run.
#   TESSERA_TEST_SLOW=1   also run the suites labelled `slow`
#   TESSERA_NO_SANITIZE=1 skip the sanitizer pass
#   TESSERA_FUZZ_SECONDS  seconds per fuzz target (default 30, 0 skips)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test fuzz

# the server integration tests (tests/server) run on Node.js with the npm
# package ws, pinned by tests/server/package-lock.json; the web UI tests
# (tests/web) drive Debian's chromium with the npm package playwright-core (it
# downloads no browser), pinned by tests/web/package-lock.json. `npm ci` runs
# again whenever a lock file changed since the folder's last install (a stale
# node_modules would test other versions than the ones pinned).
for dir in tests/server tests/web; do
  command -v npm >/dev/null || break
  sum=$(sha256sum <"$dir/package-lock.json")
  if [ "$(cat "$dir/node_modules/.tessera-lock" 2>/dev/null)" != "$sum" ]; then
    echo "== npm ci ($dir)"
    (cd "$dir" && npm ci --no-audit --no-fund)
    echo "$sum" >"$dir/node_modules/.tessera-lock"
  fi
done

jobs=$(nproc)
label_args=(-LE slow)
[ "${TESSERA_TEST_SLOW:-0}" = 1 ] && label_args=()

echo "== build (warnings as errors) and test"
cmake -S . -B build-ci -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"
(cd build-ci && ctest --output-on-failure -j"$jobs" "${label_args[@]}")

if [ "${TESSERA_NO_SANITIZE:-0}" != 1 ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTESSERA_WERROR=ON -DTESSERA_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  # the server suites' second run, on PostgreSQL (label pg), stays in the first
  # pass: the sanitizers see the PostgreSQL code through the storage and
  # cluster suites, and the pass stays within CI's time; so do the suites
  # labelled `once`, whose subject is not the build (the scripts, the
  # packages, the Docker context: run_fresh alone builds the program again,
  # three minutes of a loaded machine)
  asan_labels=(-LE "slow|pg|once")
  [ "${TESSERA_TEST_SLOW:-0}" = 1 ] && asan_labels=(-LE "pg|once")
  (cd build-asan && TESSERA_SANITIZED=1 ctest --output-on-failure -j"$jobs" "${asan_labels[@]}")
fi

secs=${TESSERA_FUZZ_SECONDS:-30}
if [ "$secs" != 0 ] && [ -x scripts/fuzz.sh ]; then
  echo "== fuzz (${secs}s per target)"
  scripts/fuzz.sh "$secs"
fi
echo "== all tests passed"
