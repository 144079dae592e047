#!/usr/bin/env bash
# deps.sh — install the Debian packages tessera needs, only those missing.
# Unattended: apt-get update first, then a non-interactive install; uses sudo
# only when not root. Usage: scripts/deps.sh [build|test|fuzz|node]...
# node: Node.js and npm for the server integration tests (tests/server); they
# count as present when `node`/`npm` are on the PATH, whatever installed them
# (a Node.js from another source bundles npm, which the Debian package would
# conflict with).
set -euo pipefail

# libwebsockets-evlib-uv: lws loads its libuv glue at run time (DESIGN.md)
build_pkgs=(gcc make cmake pkg-config libjansson-dev libuv1-dev libwebsockets-dev
            libwebsockets-evlib-uv libsqlite3-dev)
test_pkgs=(libcmocka-dev valgrind chromium sqlite3)   # chromium: the web UI tests (tests/web); sqlite3: reading journals in tests
fuzz_pkgs=(clang libclang-rt-14-dev)
node_pkgs=(nodejs npm)

want=()
for group in "${@:-build}"; do
  case "$group" in
    build) want+=("${build_pkgs[@]}") ;;
    test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}" "${node_pkgs[@]}") ;;
    fuzz) want+=("${fuzz_pkgs[@]}") ;;
    node) want+=("${node_pkgs[@]}") ;;
    *) echo "deps.sh: unknown group '$group' (build, test, fuzz, node)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
  esac
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# de-duplicate
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "deps.sh: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
