#!/usr/bin/env bash
# docker.sh TESSERA SOURCE_DIR — the container image of docker/ (docs/operations.md, "Docker"):
#   - the base image is made locally when missing (scripts/docker-base.sh: no registry needed);
#   - docker/Dockerfile builds (podman, docker format so the health check is kept);
#   - the container runs as a user that is not root, with the compose file's command (the
#     config of the image and a demo match), and its health check passes;
#   - from outside the container: /healthz and /readyz answer through the published port,
#     the demo match is listed, a match of two open seats is created and played to its end by
#     two `tessera bot` processes, and a match seating the server's bots is refused without the
#     admin token (the container is not loopback: [create] bots = auto means admin);
#   - the admin token is in the volume, the journal too: after a restart of the container the
#     finished match is still listed.
# Needs podman (scripts/deps.sh docker), and root for scripts/docker-base.sh when the base image
# is missing. TESSERA_SKIP_MISSING=1 turns a missing podman into a skip (exit 77).
# TESSERA_PODMAN overrides the podman command (default: podman --runtime runc).
set -u
tessera=$1
src=$2
read -r -a podman <<<"${TESSERA_PODMAN:-podman --runtime runc}"
limits=(--ulimit nofile=1024:1024 --ulimit nproc=1000:1000)
if ! command -v "${podman[0]}" >/dev/null; then
  if [ "${TESSERA_SKIP_MISSING:-}" = 1 ]; then echo "SKIPPED: podman is not installed"; exit 77; fi
  echo "MISSING: podman (scripts/deps.sh docker installs it; TESSERA_SKIP_MISSING=1 skips this test)" >&2
  exit 1
fi
tag=tessera-ctest-$$
image=localhost/tessera:ctest
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-docker.XXXXXX")
cleanup() {
  "${podman[@]}" rm -f -t 5 "$tag" >/dev/null 2>&1
  "${podman[@]}" volume rm -f "$tag" >/dev/null 2>&1
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
  "${podman[@]}" logs "$tag" 2>&1 | tail -n 20 >&2
  exit 1
}

TESSERA_PODMAN="${podman[*]}" bash "$src/scripts/docker-base.sh" || die "no base image (scripts/docker-base.sh)"
t0=$(date +%s)
if ! "${podman[@]}" build --format docker --network host "${limits[@]}" -f "$src/docker/Dockerfile" \
    -t "$image" "$src" >"$tmp/build.log" 2>&1; then
  tail -n 30 "$tmp/build.log" >&2
  die "the image did not build"
fi
echo "image built in $(($(date +%s) - t0)) s; $("${podman[@]}" image inspect --format '{{.Size}}' "$image") bytes"
hc=$("${podman[@]}" image inspect --format '{{json .Config.Healthcheck}}' "$image")
echo "$hc" | grep -q healthz || fail "the image has no health check asking /healthz: $hc"

"${podman[@]}" run -d --name "$tag" "${limits[@]}" -p 127.0.0.1::8080 -v "$tag:/var/lib/tessera" "$image" \
  serve --config /etc/tessera/tessera.conf --demo >/dev/null || die "the container did not start"
port=$("${podman[@]}" port "$tag" 8080/tcp | sed 's/.*://')
[ -n "$port" ] || die "no published port"
url=ws://127.0.0.1:$port/
# the health check, as podman runs it (`healthcheck run` needs no systemd timer; without
# systemd podman logs that it cannot schedule the checks itself, which is harmless here)
healthy=
for _ in $(seq 60); do
  if "${podman[@]}" healthcheck run "$tag" >/dev/null 2>&1; then healthy=1; break; fi
  sleep 1
done
[ -n "$healthy" ] || die "the health check did not pass within 60 s"
[ "$("${podman[@]}" exec "$tag" id -u)" != 0 ] || fail "the server runs as root"
[ "$(curl -sS -m 10 "http://127.0.0.1:$port/healthz")" = ok ] || fail "/healthz from outside"
[ "$(curl -sS -m 10 "http://127.0.0.1:$port/readyz")" = ready ] || fail "/readyz from outside"
curl -sS -m 10 "http://127.0.0.1:$port/" | grep -qi '<html' || fail "the web UI is not served"
curl -sS -m 10 "http://127.0.0.1:$port/metrics" | grep -q '^tessera_build_info{version=' || fail "/metrics"
# the demo match
"$tessera" matches --url "$url" --status live --json >"$tmp/live.json" || fail "tessera matches"
grep -q '"demo":true' "$tmp/live.json" || fail "no demo match is live: $(head -c 300 "$tmp/live.json")"

# a match played by two bots outside the container
"$tessera" create carcassonne --url "$url" --seat open --seat open --time 20000 --json >"$tmp/made.json" ||
  die "tessera create failed: $(cat "$tmp/made.json")"
match=$(grep -o '"match":"[^"]*"' "$tmp/made.json" | head -1 | cut -d'"' -f4)
mapfile -t toks < <(grep -o '"token":"[^"]*"' "$tmp/made.json" | cut -d'"' -f4)
[ -n "$match" ] && [ "${#toks[@]}" = 2 ] || die "match_created: $(cat "$tmp/made.json")"
"$tessera" bot --url "$url" --match "$match" --seat 0 --token "${toks[0]}" --bot random >"$tmp/b0" 2>&1 &
b0=$!
"$tessera" bot --url "$url" --match "$match" --seat 1 --token "${toks[1]}" --bot heuristic >"$tmp/b1" 2>&1 &
b1=$!
wait "$b0" || fail "the bot of seat 0 failed: $(tail -n 5 "$tmp/b0")"
wait "$b1" || fail "the bot of seat 1 failed: $(tail -n 5 "$tmp/b1")"
"$tessera" matches --url "$url" --status finished --json >"$tmp/fin.json" || fail "tessera matches (finished)"
grep -q "\"match\":\"$match\"" "$tmp/fin.json" || fail "the match did not finish: $(tail -n 3 "$tmp/b0")"
# the server's own bots need the admin token here
"$tessera" create carcassonne --url "$url" --seat random --seat open >"$tmp/bots.out" 2>&1
rc=$?
grep -q forbidden "$tmp/bots.out" || fail "the refusal is not forbidden: $(cat "$tmp/bots.out")"
# exit 1: the server refused it (forbidden), the arguments were right
[ $rc = 1 ] || fail "a match with the server's bots and no admin token: exit $rc, want 1"
grep -q 'admin token' "$tmp/bots.out" || fail "the refusal does not name the admin token: $(cat "$tmp/bots.out")"

# the volume: the token file and the journal survive a restart
"${podman[@]}" exec "$tag" sh -c 'test -s /var/lib/tessera/admin-token && test -s /var/lib/tessera/tessera.db' ||
  fail "no admin token or journal in the volume"
"${podman[@]}" logs "$tag" 2>&1 | grep -q 'admin token of this server' || fail "the admin token was not printed"
"${podman[@]}" restart -t 20 "$tag" >/dev/null || die "restart failed"
port=$("${podman[@]}" port "$tag" 8080/tcp | sed 's/.*://')
url=ws://127.0.0.1:$port/
for _ in $(seq 60); do
  "${podman[@]}" healthcheck run "$tag" >/dev/null 2>&1 && break
  sleep 1
done
"$tessera" matches --url "$url" --status finished --json >"$tmp/fin2.json" || fail "tessera matches after restart"
grep -q "\"match\":\"$match\"" "$tmp/fin2.json" || fail "the finished match was lost in the restart"
[ "$("${podman[@]}" logs "$tag" 2>&1 | grep -c 'admin token of this server')" = 1 ] ||
  fail "the admin token was printed again at the restart (it is shown once)"

[ $fails -eq 0 ] || exit 1
echo "docker: ok"
