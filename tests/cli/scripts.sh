#!/usr/bin/env bash
# scripts.sh SOURCE_DIR CASE — the first-run path of scripts/run.sh and
# scripts/deps.sh on a machine that lacks packages, without touching the
# machine: fake dpkg-query / apt-get / sudo / pkg-config come first on PATH,
# and every build goes to a temporary folder (TESSERA_BUILD_DIR).
#   deps_fail               deps.sh names the packages apt-get could not install
#                           (and still installs the others), exit 1
#   configure_no_cmocka     -DBUILD_TESTING=OFF configures without cmocka
#   configure_needs_cmocka  with the tests on, a missing cmocka is named with
#                           its Debian package and the way around it
#   run_missing_package     run.sh stops at configure and shows what cmake said,
#                           naming the Debian package (libjansson-dev)
#   run_fresh               run.sh builds and serves with cmocka absent
# Prints what failed and exits 1.
set -u
src=$(cd "$1" && pwd)
case_name=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-scripts.XXXXXX")
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

# ---- the fake commands --------------------------------------------------------
fake=$tmp/bin
mkdir -p "$fake"
real_pkg_config=$(command -v pkg-config)

# pkg-config that knows nothing of the modules in $FAKE_PKG_HIDE
cat >"$fake/pkg-config" <<EOF
#!/bin/sh
for a in "\$@"; do
  for h in \${FAKE_PKG_HIDE:-}; do
    case "\$a" in
      "\$h"|"\$h "*|"\$h>"*|"\$h="*|"\$h<"*)
        echo "Package \$h was not found in the pkg-config search path." >&2
        exit 1 ;;
    esac
  done
done
exec "$real_pkg_config" "\$@"
EOF

# dpkg-query: a package is installed when it is a line of $FAKE_INSTALLED,
# or always when FAKE_INSTALLED is "all"
cat >"$fake/dpkg-query" <<'EOF'
#!/bin/sh
pkg=$(eval echo \${$#})
if [ "$FAKE_INSTALLED" = all ] || grep -qx "$pkg" "$FAKE_INSTALLED" 2>/dev/null; then
  printf 'install ok installed'
  exit 0
fi
echo "dpkg-query: no packages found matching $pkg" >&2
exit 1
EOF

# apt-get: knows the packages listed in $FAKE_AVAILABLE; like the real one,
# one unknown package fails the whole install and installs nothing
cat >"$fake/apt-get" <<'EOF'
#!/bin/sh
[ "$1" = update ] && exit 0
unknown=0
for p in "$@"; do
  case "$p" in -*|install) continue ;; esac
  if ! grep -qx "$p" "$FAKE_AVAILABLE"; then
    echo "E: Unable to locate package $p" >&2
    unknown=1
  fi
done
[ $unknown = 1 ] && exit 100
for p in "$@"; do
  case "$p" in -*|install) continue ;; esac
  echo "$p" >>"$FAKE_INSTALLED"
done
exit 0
EOF

cat >"$fake/sudo" <<'EOF'
#!/bin/sh
exec "$@"
EOF
chmod +x "$fake"/*
export PATH="$fake:$PATH"
export PKG_CONFIG="$fake/pkg-config" # what cmake's FindPkgConfig runs first

configure() { # configure BUILD_DIR ARGS...: cmake on the source tree, output in $tmp/out
  local dir=$1
  shift
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$tmp/out" 2>&1
}

# ---- the cases ------------------------------------------------------------------
case "$case_name" in
deps_fail)
  export FAKE_INSTALLED=$tmp/installed FAKE_AVAILABLE=$tmp/available
  # everything of the build group is installed but two; apt-get knows one of them
  printf '%s\n' gcc make cmake pkg-config libjansson-dev libwebsockets-evlib-uv \
    libsqlite3-dev libssl-dev libpq-dev libhiredis-dev libseccomp-dev bubblewrap libzip-dev >"$FAKE_INSTALLED"
  printf '%s\n' libuv1-dev >"$FAKE_AVAILABLE"
  "$src/scripts/deps.sh" build >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || fail "deps.sh: exit $rc, want 1"
  grep -qx 'deps.sh: could not install: libwebsockets-dev' "$tmp/err" ||
    fail "deps.sh does not name exactly the package it could not install: $(cat "$tmp/err")"
  grep -q 'Unable to locate package libwebsockets-dev' "$tmp/err" ||
    fail "deps.sh does not show apt-get's reason: $(cat "$tmp/err")"
  grep -qx libuv1-dev "$FAKE_INSTALLED" ||
    fail "deps.sh did not install the package it could install (libuv1-dev)"
  # and with everything there it does nothing and succeeds
  FAKE_INSTALLED=all "$src/scripts/deps.sh" build >"$tmp/out" 2>&1 ||
    fail "deps.sh with nothing missing: $(cat "$tmp/out")"
  ;;
configure_no_cmocka)
  export FAKE_PKG_HIDE=cmocka
  configure "$tmp/build" -DBUILD_TESTING=OFF ||
    fail "configure with BUILD_TESTING=OFF and no cmocka failed: $(tail -n 20 "$tmp/out")"
  grep -q '^BUILD_TESTING:BOOL=OFF' "$tmp/build/CMakeCache.txt" 2>/dev/null ||
    fail "the cache does not say BUILD_TESTING=OFF"
  grep -qi cmocka "$tmp/build/CMakeCache.txt" && fail "cmocka was looked up with the tests off"
  grep -q 'tests not built' "$tmp/out" || fail "configure does not say the tests are not built"
  ;;
configure_needs_cmocka)
  export FAKE_PKG_HIDE=cmocka
  configure "$tmp/build" -DBUILD_TESTING=ON && fail "configure with the tests on and no cmocka succeeded"
  tr -s ' \n' ' ' <"$tmp/out" >"$tmp/flat" # cmake wraps its messages
  grep -q "pkg-config found no 'cmocka': install the Debian package libcmocka-dev" "$tmp/flat" ||
    fail "the failure does not name libcmocka-dev: $(tail -n 20 "$tmp/out")"
  grep -q -- '-DBUILD_TESTING=OFF' "$tmp/flat" || fail "the failure does not say how to build without tests"
  ;;
run_missing_package)
  export FAKE_INSTALLED=all FAKE_PKG_HIDE=jansson TESSERA_BUILD_DIR=$tmp/build
  "$src/scripts/run.sh" --port 0 >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -ne 0 ] || fail "run.sh succeeded without jansson"
  tr -s ' \n' ' ' <"$tmp/err" >"$tmp/flat"
  grep -q 'run.sh: configure failed' "$tmp/flat" || fail "run.sh does not say which step failed: $(cat "$tmp/err")"
  grep -q 'libjansson-dev' "$tmp/flat" || fail "run.sh does not name libjansson-dev: $(cat "$tmp/err")"
  [ -e "$src/build/run-configure.log" ] && [ "$src/build/run-configure.log" -nt "$tmp/out" ] &&
    fail "run.sh wrote into the source tree's build/ despite TESSERA_BUILD_DIR"
  ;;
run_fresh)
  # a machine with the build packages and without cmocka: run.sh must build and serve
  export FAKE_INSTALLED=all FAKE_PKG_HIDE=cmocka TESSERA_BUILD_DIR=$tmp/build
  "$src/scripts/run.sh" --port 0 --port-file "$tmp/port" --db "$tmp/t.db" --no-web \
    >"$tmp/out" 2>"$tmp/err" &
  server_pid=$!
  for _ in $(seq 1 1800); do # the build itself: up to 15 minutes on a loaded machine
    [ -s "$tmp/port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
  done
  if [ -s "$tmp/port" ]; then
    grep -q 'tessera is serving on http://localhost:[0-9]*/' "$tmp/out" ||
      fail "no 'serving' line: $(cat "$tmp/out")"
    grep -q '^BUILD_TESTING:BOOL=OFF' "$tmp/build/CMakeCache.txt" || fail "the run build has the tests on"
    kill -TERM "$server_pid"
    wait "$server_pid"
    rc=$?
    server_pid=
    [ $rc -eq 0 ] || fail "the server exited $rc after SIGTERM"
  else
    fail "run.sh did not serve: $(tail -n 30 "$tmp/err")"
  fi
  ;;
*)
  echo "scripts.sh: unknown case '$case_name'" >&2
  exit 2
  ;;
esac
[ "$fails" -eq 0 ] && echo "scripts.sh $case_name: all checks passed"
[ "$fails" -eq 0 ]
