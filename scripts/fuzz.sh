#!/bin/sh
# fuzz.sh [SECONDS [TARGET...]] — build the fuzz targets (libFuzzer, clang,
# ASan+UBSan; default every one: record messages delta info) once and run each for
# SECONDS (default 60) on one job, with its seed corpus. Exits non-zero if
# any target crashed (or its run failed). E.g. `scripts/fuzz.sh 600 record`.
#
# Targets are tests/fuzz/fuzz_<name>.c, seeds tests/fuzz/corpus/<name>/,
# an optional dictionary tests/fuzz/<name>.dict. The seed corpora are read
# but never written: new inputs go to BUILD/corpus-<name>/, crashes to
# BUILD/crashes/<name>-*. Turn a crash into a regression case once it is
# fixed (records: tests/protocol/cases/fuzz-*, messages:
# tests/protocol/msg_cases/fuzz-*).
#
#   TESSERA_FUZZ_BUILD  build directory (default build-fuzz)
#   JOBS                parallel compile jobs (default 2); fuzzing uses one
set -eu

secs=${1:-60}
case $secs in
'' | *[!0-9]*) echo "usage: $0 [SECONDS [TARGET...]]" >&2; exit 2 ;;
esac
[ $# -gt 0 ] && shift

root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_FUZZ_BUILD:-$root/build-fuzz}
jobs=${JOBS:-2}
targets=${*:-record messages delta info}
for t in $targets; do
    if [ ! -f "$root/tests/fuzz/fuzz_$t.c" ]; then
        echo "fuzz.sh: no fuzz target '$t' (there are: record messages delta info)" >&2
        exit 2
    fi
done

CC=${CC:-clang} cmake -S "$root" -B "$build" -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
for t in $targets; do
    cmake --build "$build" --target "fuzz_$t" -j "$jobs"
done

mkdir -p "$build/crashes"
failed=""
for t in $targets; do
    # -max_len: a finished Carcassonne record is ~4-6 KB; a client message
    # worth reading is far smaller (the size limit itself is a unit test).
    case $t in
    record) max_len=16384 ;;
    *) max_len=8192 ;;
    esac
    dict=""
    [ -f "$root/tests/fuzz/$t.dict" ] && dict="-dict=$root/tests/fuzz/$t.dict"
    mkdir -p "$build/corpus-$t"
    echo "== fuzz_$t for ${secs}s"
    # shellcheck disable=SC2086 # $dict is one word or none
    if ! (cd "$build" && "./tests/fuzz/fuzz_$t" "$build/corpus-$t" "$root/tests/fuzz/corpus/$t" \
        $dict -max_len="$max_len" -max_total_time="$secs" \
        -artifact_prefix="$build/crashes/$t-" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=2048); then
        failed="$failed $t"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz.sh: failed:$failed (inputs in $build/crashes/)" >&2
    exit 1
fi
echo "fuzz.sh: no crash in ${secs}s per target"
