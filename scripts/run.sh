#!/usr/bin/env bash
# run.sh — set everything up and run the main job: build tessera, then start
# the match server on the embedded SQLite journal (tessera.db) with a live
# bot-vs-bot Carcassonne match, and print the address to open.
# Extra arguments go to `tessera serve` (e.g. --port 9000, --demo=mcts:ms=500,rave).
#
# It works on a machine that has never seen the project: scripts/deps.sh
# installs the build packages, and a new build folder is configured without
# the tests (-DBUILD_TESTING=OFF: they need cmocka and more; scripts/test.sh
# builds them). An existing build folder keeps its own settings. When a step
# fails, its output is shown: cmake names the Debian package that is missing.
#   TESSERA_BUILD_DIR  the build folder (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TESSERA_BUILD_DIR:-build}

scripts/deps.sh build # names what it could not install, and fails

# the tools the build needs, with the Debian package of each
for tool in cmake:cmake cc:gcc make:make pkg-config:pkg-config; do
  if ! command -v "${tool%%:*}" >/dev/null; then
    echo "run.sh: '${tool%%:*}' is not installed (Debian package ${tool#*:}; scripts/deps.sh build installs it)" >&2
    exit 1
  fi
done

configure=()
[ -f "$build/CMakeCache.txt" ] || configure=(-DBUILD_TESTING=OFF)
mkdir -p "$build"
# step NAME COMMAND...: run quietly; on failure show what the command said
step() {
  local name=$1 log=$build/run-$1.log
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "run.sh: $name failed; its output ($log):" >&2
    if [ "$name" = configure ]; then
      cat "$log" >&2
    else
      tail -n 60 "$log" >&2
    fi
    exit 1
  fi
}
step configure cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${configure[@]}"
step build cmake --build "$build" -j"$(nproc)" --target tessera
exec "$build/cli/tessera" serve --demo "$@"
