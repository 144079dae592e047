#!/usr/bin/env bash
# install.sh BUILD_DIR SOURCE_DIR — `cmake --install` makes a tree an
# operator can run from, with nothing of the source or build tree:
#   - PREFIX/bin/tessera, PREFIX/share/tessera/web (the web UI, the same
#     files as web/), PREFIX/share/doc/tessera (README, LICENSE, docs/ with
#     operations.md and the example config);
#   - the tree moved elsewhere as a whole still finds its web UI
#     (`tessera --version` names it) and serves it: GET / is web/index.html,
#     a WebSocket-free check of the HTTP side, and /healthz answers;
#   - `tessera --version` prints the project's version.
# Prints what failed and exits 1.
set -u
build=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-install.XXXXXX")
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

if ! cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log" >&2
  echo "FAIL: cmake --install failed" >&2
  exit 1
fi
p=$tmp/prefix
[ -x "$p/bin/tessera" ] || fail "no executable $p/bin/tessera"
for f in index.html; do
  cmp -s "$src/web/$f" "$p/share/tessera/web/$f" || fail "share/tessera/web/$f differs from web/$f or is missing"
done
n_src=$(cd "$src/web" && find . -type f | wc -l)
n_inst=$(cd "$p/share/tessera/web" 2>/dev/null && find . -type f | wc -l)
[ "$n_src" = "$n_inst" ] || fail "web UI: $n_inst files installed, web/ has $n_src"
for f in README.md LICENSE docs/operations.md docs/protocol.md docs/examples/tessera.conf; do
  [ -s "$p/share/doc/tessera/$f" ] || fail "share/doc/tessera/$f is missing"
done

# the installed tree, moved as a whole: nothing points back at the build
mv "$p" "$tmp/moved"
p=$tmp/moved
version=$(sed -n 's/^project(tessera VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
out=$("$p/bin/tessera" --version 2>&1)
echo "$out" | head -n 1 | grep -qx "tessera $version" || fail "--version: want 'tessera $version', got: $out"
echo "$out" | grep -qF "web UI: $p/share/tessera/web" || fail "--version does not name the moved web UI: $out"

"$p/bin/tessera" serve --port 0 --port-file "$tmp/port" --db "$tmp/t.db" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 300); do
  [ -s "$tmp/port" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
port=$(cat "$tmp/port" 2>/dev/null)
if [ -z "$port" ]; then
  fail "the installed server did not start: $(tail -n 5 "$tmp/err")"
else
  curl -sS -m 10 "http://127.0.0.1:$port/" -o "$tmp/index.html" || fail "GET / failed"
  cmp -s "$src/web/index.html" "$tmp/index.html" || fail "GET / is not web/index.html"
  grep -qF "\"web\":\"$p/share/tessera/web\"" "$tmp/err" || fail "the server does not serve the installed web UI: $(grep listening "$tmp/err")"
  [ "$(curl -sS -m 10 "http://127.0.0.1:$port/healthz")" = ok ] || fail "/healthz did not answer ok"
fi

[ $fails -eq 0 ] || exit 1
echo "install: ok"
