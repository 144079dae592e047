#!/usr/bin/env bash
# run.sh — set everything up and run the main job: build tessera, then play a
# demo Carcassonne game between random players and print the board and scores.
# Extra arguments are passed to `tessera play` (e.g. --players 4 --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target tessera >/dev/null
exec build/cli/tessera play carcassonne --render "$@"
