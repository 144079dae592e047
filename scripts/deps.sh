#!/usr/bin/env bash
# deps.sh — install the Debian packages tessera needs, only those missing.
# Unattended: apt-get update first, then a non-interactive install; uses sudo
# only when not root. Usage: scripts/deps.sh [--list] [build|test|fuzz|node|cluster|docker]...
# --list prints the groups' packages, one a line, and installs nothing (the drift check of
# tests/deps reads what the test command asks for this way).
# cluster: PostgreSQL, Redis and haproxy for the local cluster (scripts/cluster.sh).
# docker: podman (with runc), podman-compose, debootstrap and the containers' DNS plugin, to
# build and run the image of docker/ and its compose files without a registry (tests/docker;
# docs/operations.md, "Docker").
# node: Node.js and npm for the server integration tests (tests/server); they
# count as present when `node`/`npm` are on the PATH, whatever installed them
# (a Node.js from another source bundles npm, which the Debian package would
# conflict with).
set -euo pipefail

# libwebsockets-evlib-uv: lws loads its libuv glue at run time (docs/ARCHITECTURE.md)
# libpq-dev, libhiredis-dev: PostgreSQL storage and Redis events for several servers
# (docs/scaling.md); the program links them whether or not it is run that way
# libseccomp-dev, bubblewrap: the untrusted programs' sandbox (players/sandbox.h): the
# program links libseccomp, and starts bwrap for every cmd: program and course upload
# libzip-dev: a student's zip read safely (classroom/unzip.c)
build_pkgs=(gcc make cmake pkg-config libjansson-dev libuv1-dev libwebsockets-dev
            libwebsockets-evlib-uv libsqlite3-dev libssl-dev libpq-dev libhiredis-dev
            libseccomp-dev bubblewrap libzip-dev)
# chromium: the web UI tests (tests/web); sqlite3: reading journals in tests; python3: the
# example bot of docs/examples/ played through `tessera bridge`, `tessera doctor`, as an
# external program and as a tournament participant (tests/players, tests/cli); openssl: the
# self-signed certificate of the TLS test (tests/server/test_tls.js)
# postgresql, redis-server: the throwaway cluster of scripts/services.sh that the
# storage and cluster suites run against; haproxy: one address in front of the cluster
# suites' three servers (tests/cluster); curl: the installed tree's HTTP checks
# (tests/cli/install.sh); python3-websockets: the Python kit's WebSocket loop, and
# python3-pip: its offline install (tests/kit); g++ and default-jdk-headless: the languages a
# course builds on the server (classroom/build.c: C++ and Java, tests/classroom). Every program a default suite starts
# must come from these lists (or a package they pull in): the test deps_programs checks
# it (tests/deps).
test_pkgs=(libcmocka-dev valgrind chromium sqlite3 python3 openssl postgresql redis-server
           haproxy curl python3-websockets python3-pip g++ default-jdk-headless)
fuzz_pkgs=(clang libclang-rt-14-dev)
node_pkgs=(nodejs npm)
# podman runs the container tests; runc because crun refuses some kernels'
# cgroup modes; debootstrap makes the debian:bookworm base image locally; the dnsname CNI
# plugin is the compose network's DNS on bookworm's podman (its CNI backend): without it a
# container cannot look the others up by service name (docker/compose.cluster.yaml's
# servers reach db and redis so, haproxy the servers)
cluster_pkgs=(postgresql redis-server haproxy python3)
docker_pkgs=(podman podman-compose runc debootstrap uidmap slirp4netns fuse-overlayfs
             golang-github-containernetworking-plugin-dnsname)

list_only=0
if [ "${1:-}" = --list ]; then
  list_only=1
  shift
fi
want=()
for group in "${@:-build}"; do
  case "$group" in
    build) want+=("${build_pkgs[@]}") ;;
    test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}" "${node_pkgs[@]}") ;;
    fuzz) want+=("${fuzz_pkgs[@]}") ;;
    node) want+=("${node_pkgs[@]}") ;;
    cluster) want+=("${build_pkgs[@]}" "${cluster_pkgs[@]}") ;;
    docker) want+=("${docker_pkgs[@]}") ;;
    *) echo "deps.sh: unknown group '$group' (build, test, fuzz, node, cluster, docker)" >&2; exit 2 ;;
  esac
done

if [ "$list_only" = 1 ]; then
  printf '%s\n' "${want[@]}" | sort -u
  exit 0
fi

# installed NAME: is the package (or, for nodejs/npm, the command) there?
installed() {
  case "$1" in
    nodejs) command -v node >/dev/null && return 0 ;;
    npm) command -v npm >/dev/null && return 0 ;;
  esac
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for p in "${want[@]}"; do
  installed "$p" || missing+=("$p")
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
log=$(mktemp)
said=$(mktemp)
trap 'rm -f "$log" "$said"' EXIT
$sudo apt-get update -qq >"$log" 2>&1 ||
  { echo "deps.sh: apt-get update failed (installing from the current lists):" >&2; tail -n 5 "$log" >&2; }
install() {
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >"$log" 2>&1
}
# all at once; if that fails (one unknown package fails them all), one by one,
# so that everything installable is installed and each failure is named
if ! install "${missing[@]}"; then
  for p in "${missing[@]}"; do
    installed "$p" && continue
    install "$p" || grep -E '^(E|W):' "$log" | sed "s/^/  $p: /" >>"$said" || true
  done
fi
failed=()
for p in "${missing[@]}"; do
  installed "$p" || failed+=("$p")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "deps.sh: could not install: ${failed[*]}" >&2
  [ -s "$said" ] && { echo "deps.sh: apt-get said:" >&2; cat "$said" >&2; }
  echo "deps.sh: install them (apt-get install ${failed[*]}) and run this again" >&2
  exit 1
fi
