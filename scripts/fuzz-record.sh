#!/bin/sh
# fuzz-record.sh [SECONDS] — build the game-record fuzzer (libFuzzer, clang,
# ASan+UBSan) in build-fuzz/ and run it for SECONDS (default 600) on one job.
#
# The seed corpus tests/fuzz/corpus/record/ is read but never written: new
# inputs go to build-fuzz/corpus-record/, crashes to build-fuzz/crashes/.
# A crash makes the script exit non-zero; turn the crashing input into a
# regression case under tests/protocol/cases/fuzz-<name>/ once it is fixed.
set -eu

secs=${1:-600}
case $secs in
'' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
jobs=${JOBS:-2}

CC=${CC:-clang} cmake -S "$root" -B "$build" -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzz_record -j "$jobs"

mkdir -p "$build/corpus-record" "$build/crashes"
cd "$build"
# -max_len: a finished Carcassonne record is ~4-6 KB; leave room to grow.
exec ./tests/fuzz/fuzz_record "$build/corpus-record" "$root/tests/fuzz/corpus/record" \
    -dict="$root/tests/fuzz/record.dict" -max_len=16384 -max_total_time="$secs" \
    -artifact_prefix="$build/crashes/" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048
