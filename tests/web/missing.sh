#!/bin/bash
# missing.sh NODE — every web suite fails, naming what is missing, when
# chromium or the npm packages are not there, and skips (exit 77) only with
# TESSERA_SKIP_MISSING=1 (issue 30, item 15: the page suites skipped
# whatever it said, so a machine without chromium passed them unseen).
# Chromium is made missing with TESSERA_CHROMIUM=/nonexistent, the npm
# packages by running a copy of the suites from a folder without them.
set -u
node=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-web-missing.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
cp "$here"/*.js "$tmp/"
suites=$(cd "$here" && ls *.test.js)
# check LABEL WANT_EXIT WANT_TEXT DIR ENV... -- each suite
check() {
    local label=$1 want=$2 text=$3 dir=$4
    shift 4
    for s in $suites; do
        (cd "$dir" && env "$@" timeout 60 "$node" "$s" --bin /nonexistent/tessera --web /nonexistent \
            --out "$tmp/out") >"$tmp/o" 2>&1
        local rc=$?
        [ $rc -eq "$want" ] || fail "$s, $label: exit $rc, want $want: $(head -c 300 "$tmp/o")"
        grep -q "$text" "$tmp/o" || fail "$s, $label: the output does not say '$text': $(head -c 300 "$tmp/o")"
    done
}
check "no chromium" 1 "MISSING: no chromium at /nonexistent" "$here" TESSERA_CHROMIUM=/nonexistent TESSERA_SKIP_MISSING=
check "no chromium, skips allowed" 77 "SKIPPED: no chromium" "$here" TESSERA_CHROMIUM=/nonexistent TESSERA_SKIP_MISSING=1
check "no npm packages" 1 "MISSING: the npm packages" "$tmp" TESSERA_SKIP_MISSING=
check "no npm packages, skips allowed" 77 "SKIPPED: the npm packages" "$tmp" TESSERA_SKIP_MISSING=1
[ "$fails" -eq 0 ] && echo "missing.sh: every web suite fails without its tools, skips only when told"
[ "$fails" -eq 0 ]
