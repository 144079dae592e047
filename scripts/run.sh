#!/usr/bin/env bash
# run.sh — set everything up and run the main job: build tessera, then start
# the match server on the embedded SQLite journal (tessera.db) with a live
# bot-vs-bot Carcassonne match, and print the address to open.
# Extra arguments go to `tessera serve` (e.g. --port 9000, --demo=mcts:ms=500,rave).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target tessera >/dev/null
exec build/cli/tessera serve --demo "$@"
