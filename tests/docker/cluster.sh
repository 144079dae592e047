#!/usr/bin/env bash
# cluster.sh TESSERA SOURCE_DIR — docker/compose.cluster.yaml run for real with podman-compose
# (docs/scaling.md, "In containers"): three tessera servers on PostgreSQL with Redis between
# them, behind haproxy, every image built from Debian's packages.
#   - the base image is made locally when missing (scripts/docker-base.sh), and the five images
#     build with podman-compose (tessera's, PostgreSQL's, Redis's, haproxy's);
#   - `up -d`; the proxy answers /healthz and /readyz on a free host port;
#   - then, through the proxy only (tests/docker/cluster.js, Node): the three servers answer,
#     each seeing three instances and Redis; a match of two remote seats is played and
#     spectated; a second one loses its owner (podman stop of its container) at turn 12 and
#     finishes on another server with every move intact (the journal, the replay); a third
#     the same with its owner killed (podman kill --signal KILL);
#   - `down -v` removes the containers, the network and the volumes.
# It prints what it measured: the build, the time from `up` to a ready proxy, the failover.
# Needs podman, podman-compose (scripts/deps.sh docker), node with the ws package of
# tests/server (npm ci there), and root for scripts/docker-base.sh when the base image is
# missing. TESSERA_SKIP_MISSING=1 turns a missing podman, podman-compose or node into a skip
# (exit 77). TESSERA_PODMAN overrides the podman command (default: podman --runtime runc).
set -u
tessera=$1
src=$2
read -r -a podman <<<"${TESSERA_PODMAN:-podman --runtime runc}"
limits=(--ulimit nofile=1024:1024 --ulimit nproc=1000:1000)
missing() {
  if [ "${TESSERA_SKIP_MISSING:-}" = 1 ]; then echo "SKIPPED: $1 is not installed"; exit 77; fi
  echo "MISSING: $1 ($2; TESSERA_SKIP_MISSING=1 skips this test)" >&2
  exit 1
}
command -v "${podman[0]}" >/dev/null || missing podman "scripts/deps.sh docker installs it"
command -v podman-compose >/dev/null || missing podman-compose "scripts/deps.sh docker installs it"
command -v node >/dev/null || missing node "scripts/deps.sh node installs it"
(cd "$src/tests/server" && node -e "require('ws')" 2>/dev/null) ||
  missing "the npm package ws" "(cd tests/server && npm ci) installs it"

proj=tessera-cluster-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-cluster.XXXXXX")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export TESSERA_IMAGE=localhost/tessera:cluster-ctest TESSERA_PORT=$port
compose=(podman-compose --podman-path "${podman[0]}" --podman-args "${podman[*]:1}" -p "$proj"
  -f "$src/docker/compose.cluster.yaml")
services=(db redis t1 t2 t3 proxy)
volumes=(tessera-pg tessera-t1 tessera-t2 tessera-t3)
logs() {
  for s in "${services[@]}"; do
    echo "--- ${proj}_${s}_1:" >&2
    "${podman[@]}" logs "${proj}_${s}_1" 2>&1 | tail -n 15 >&2
  done
}
cleanup() {
  "${compose[@]}" down -v >"$tmp/down.log" 2>&1
  # what down may leave when up stopped half-way
  for s in "${services[@]}"; do "${podman[@]}" rm -f -t 5 "${proj}_${s}_1" >/dev/null 2>&1; done
  for v in "${volumes[@]}"; do "${podman[@]}" volume rm -f "${proj}_$v" >/dev/null 2>&1; done
  "${podman[@]}" network rm -f "${proj}_default" >/dev/null 2>&1
  "${podman[@]}" rmi "$TESSERA_IMAGE" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}
die() {
  echo "FAIL: $*" >&2
  logs
  exit 1
}

TESSERA_PODMAN="${podman[*]}" bash "$src/scripts/docker-base.sh" || die "no base image (scripts/docker-base.sh)"
t0=$(date +%s)
if ! "${compose[@]}" --podman-build-args "--format docker --network host ${limits[*]}" build \
    >"$tmp/build.log" 2>&1; then
  tail -n 40 "$tmp/build.log" >&2
  die "podman-compose build failed"
fi
# podman-compose 1.0.3 exits 0 when a build fails: the images are what says it built
for img in "$TESSERA_IMAGE" localhost/tessera-postgres:latest localhost/tessera-redis:latest \
    localhost/tessera-haproxy:latest; do
  "${podman[@]}" image exists "$img" || { tail -n 40 "$tmp/build.log" >&2; die "the image $img was not built"; }
done
t1=$(date +%s)
echo "compose: the images built in $((t1 - t0)) s"
if ! "${compose[@]}" --podman-run-args "${limits[*]}" up -d >"$tmp/up.log" 2>&1; then
  tail -n 40 "$tmp/up.log" >&2
  die "podman-compose up -d failed"
fi
t2=$(date +%s)
ready=
for _ in $(seq 180); do
  if [ "$(curl -sS -m 5 "http://127.0.0.1:$port/readyz" 2>/dev/null)" = ready ]; then ready=1; break; fi
  sleep 1
done
[ -n "$ready" ] || die "the proxy did not answer /readyz with ready within 180 s of up"
t3=$(date +%s)
echo "compose: up -d took $((t2 - t0 - (t1 - t0))) s, the proxy was ready $((t3 - t2)) s later"
[ "$(curl -sS -m 10 "http://127.0.0.1:$port/healthz")" = ok ] || fail "/healthz through the proxy"
curl -sS -m 10 "http://127.0.0.1:$port/" | grep -qi '<html' || fail "the web UI is not served through the proxy"
# t1's demo match, played by its bots, is in every server's lobby
"$tessera" matches --url "ws://127.0.0.1:$port/" --status live --json >"$tmp/live.json" || fail "tessera matches"
grep -q '"demo":true' "$tmp/live.json" || fail "no demo match is live: $(head -c 300 "$tmp/live.json")"

t4=$(date +%s)
if ! TESSERA_PODMAN="${podman[*]}" node "$src/tests/docker/cluster.js" "$tessera" "ws://127.0.0.1:$port/" "$proj"; then
  fail "the cluster through the proxy (tests/docker/cluster.js, above)"
  logs
fi
echo "compose: the matches and the failover took $(($(date +%s) - t4)) s"
for s in db redis proxy; do
  [ "$("${podman[@]}" inspect --format '{{.State.Status}}' "${proj}_${s}_1" 2>&1)" = running ] ||
    fail "${proj}_${s}_1 is not running"
done

t5=$(date +%s)
"${compose[@]}" down -v >"$tmp/down.log" 2>&1 || fail "podman-compose down -v: $(tail -n 5 "$tmp/down.log")"
echo "compose: down -v took $(($(date +%s) - t5)) s"
for s in "${services[@]}"; do
  "${podman[@]}" container exists "${proj}_${s}_1" && fail "${proj}_${s}_1 is still there after down -v"
done
for v in "${volumes[@]}"; do
  "${podman[@]}" volume exists "${proj}_$v" && fail "the volume ${proj}_$v is still there after down -v"
done
# (podman-compose 1.0.3's down leaves the project's network: cleanup removes it)

[ $fails -eq 0 ] || exit 1
echo "docker cluster: ok"
