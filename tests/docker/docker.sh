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
#   - the finished match is analysed (`analyze`, tests/docker/analyze.js): the fenced process
#     works inside the container, and the report is then served from the journal;
#   - the admin token is in the volume, the journal too: after a restart of the container the
#     finished match is still listed;
#   - docker/compose.yaml with podman-compose: it builds (from the layers just built), starts the
#     server with its demo match, its own health check passes (and fails while nothing answers
#     /healthz), the demo match is live, a match is played against it from outside, and it stops.
# Needs podman and podman-compose (scripts/deps.sh docker), node with tests/server's ws, and
# root for scripts/docker-base.sh
# when the base image is missing. TESSERA_SKIP_MISSING=1 turns a missing podman into a skip
# (exit 77), and a missing podman-compose into a skipped compose step.
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
cproj=tessera-compose-$$
cleanup() {
  "${podman[@]}" rm -f -t 5 "$tag" "${cproj}_tessera_1" >/dev/null 2>&1
  "${podman[@]}" volume rm -f "$tag" "${cproj}_tessera-data" >/dev/null 2>&1
  "${podman[@]}" network rm -f "${cproj}_default" >/dev/null 2>&1
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

(cd "$src/tests/server" && [ -d node_modules/ws ]) || (cd "$src/tests/server" && npm ci --silent) ||
  { echo "FAIL: npm ci in tests/server" >&2; exit 1; }
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

"${podman[@]}" run -d --name "$tag" "${limits[@]}" --cap-add SYS_ADMIN -p 127.0.0.1::8080 -v "$tag:/var/lib/tessera" "$image" \
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
# the server runs as tessera (the entrypoint alone starts as root, to set the programs' sandbox up)
server_uid=$("${podman[@]}" exec "$tag" sh -c 'for p in /proc/[0-9]*; do
  [ "$(cat "$p/comm" 2>/dev/null)" = tessera ] && awk "/^Uid:/ {print \$2}" "$p/status"; done' | head -n 1)
[ -n "$server_uid" ] && [ "$server_uid" != 0 ] || fail "the server runs as root (uid '$server_uid')"
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
# the match analysed by the server in the container (its fenced process: a seccomp
# filter and rlimits, inside the container's own seccomp profile, as the user tessera)
node "$src/tests/docker/analyze.js" "$url" "$match" || fail "the analysis of the match in the container"
# the server's own bots need the admin token here
"$tessera" create carcassonne --url "$url" --seat random --seat open >"$tmp/bots.out" 2>&1
rc=$?
grep -q forbidden "$tmp/bots.out" || fail "the refusal is not forbidden: $(cat "$tmp/bots.out")"
# exit 2: the server refused what was asked (forbidden), as `tessera create`'s usage says
# ("2 bad arguments, also when the server refuses them"; cli/remote.c)
[ $rc = 2 ] || fail "a match with the server's bots and no admin token: exit $rc, want 2"
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


# docker/compose.yaml (docs/operations.md, "Docker"), with podman-compose
"${podman[@]}" rm -f -t 20 "$tag" >/dev/null 2>&1
if ! command -v podman-compose >/dev/null; then
  if [ "${TESSERA_SKIP_MISSING:-}" = 1 ]; then
    echo "SKIPPED (compose step): podman-compose is not installed"
  else
    fail "podman-compose is not installed (scripts/deps.sh docker installs it)"
  fi
else
  cport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export TESSERA_IMAGE=localhost/tessera:compose-ctest TESSERA_PORT=$cport
  compose=(podman-compose --podman-path "${podman[0]}" --podman-args "${podman[*]:1}" -p "$cproj"
    -f "$src/docker/compose.yaml")
  cnt=${cproj}_tessera_1
  t0=$(date +%s)
  if ! "${compose[@]}" --podman-build-args "--format docker --network host ${limits[*]}" build \
      >"$tmp/compose-build.log" 2>&1; then
    tail -n 30 "$tmp/compose-build.log" >&2
    fail "podman-compose build failed"
  elif ! "${compose[@]}" --podman-run-args "${limits[*]}" up -d >"$tmp/compose-up.log" 2>&1; then
    tail -n 30 "$tmp/compose-up.log" >&2
    fail "podman-compose up failed"
  else
    echo "compose: built and started in $(($(date +%s) - t0)) s"
    healthy=
    for _ in $(seq 60); do
      if "${podman[@]}" healthcheck run "$cnt" >/dev/null 2>&1; then healthy=1; break; fi
      sleep 1
    done
    [ -n "$healthy" ] || fail "compose: the health check did not pass within 60 s"
    [ "$(curl -sS -m 10 "http://127.0.0.1:$cport/healthz")" = ok ] || fail "compose: /healthz"
    curl="ws://127.0.0.1:$cport/"
    "$tessera" matches --url "$curl" --status live --json >"$tmp/clive.json" || fail "compose: tessera matches"
    grep -q '"demo":true' "$tmp/clive.json" || fail "compose: no demo match is live: $(head -c 300 "$tmp/clive.json")"
    "$tessera" create carcassonne --url "$curl" --seat open --seat open --time 20000 --json >"$tmp/cmade.json" ||
      fail "compose: tessera create failed: $(cat "$tmp/cmade.json")"
    cmatch=$(grep -o '"match":"[^"]*"' "$tmp/cmade.json" | head -1 | cut -d'"' -f4)
    mapfile -t ctoks < <(grep -o '"token":"[^"]*"' "$tmp/cmade.json" | cut -d'"' -f4)
    if [ -n "$cmatch" ] && [ "${#ctoks[@]}" = 2 ]; then
      "$tessera" bot --url "$curl" --match "$cmatch" --seat 0 --token "${ctoks[0]}" --bot random >"$tmp/c0" 2>&1 &
      c0=$!
      "$tessera" bot --url "$curl" --match "$cmatch" --seat 1 --token "${ctoks[1]}" --bot random >"$tmp/c1" 2>&1 ||
        fail "compose: the bot of seat 1 failed: $(tail -n 5 "$tmp/c1")"
      wait "$c0" || fail "compose: the bot of seat 0 failed: $(tail -n 5 "$tmp/c0")"
    fi
    # the health check fails when /healthz does not answer (a check that passes
    # whatever happens checks nothing): the server stopped from the host (inside,
    # the namespace's pid 1 ignores SIGSTOP), the container kept
    spid=$("${podman[@]}" inspect --format '{{.State.Pid}}' "$cnt")
    # the container's first process is tessera only without CAP_SYS_ADMIN;
    # with it (as the compose file starts it) it is scripts/delegate-cgroup.sh,
    # tessera its child: stop tessera itself, not the script waiting for it
    for _ in 1 2 3; do
      [ -n "$spid" ] && [ "$spid" != 0 ] || break
      [ "$(cat "/proc/$spid/comm" 2>/dev/null)" = tessera ] && break
      spid=$(ps -o pid= --ppid "$spid" | head -n 1 | tr -d ' ')
    done
    if [ -n "$spid" ] && [ "$spid" != 0 ] && [ "$(cat "/proc/$spid/comm" 2>/dev/null)" = tessera ] &&
      kill -STOP "$spid" 2>/dev/null; then
      # (podman 4.3's `healthcheck run` does not enforce the check's timeout)
      timeout 20 "${podman[@]}" healthcheck run "$cnt" >/dev/null 2>&1 &&
        fail "compose: the health check passes with the server stopped"
      kill -CONT "$spid"
    else
      echo "compose: the server could not be stopped from here (not root?): the failing health check is not tried"
    fi
    "${compose[@]}" down >"$tmp/compose-down.log" 2>&1 || fail "podman-compose down: $(tail -n 5 "$tmp/compose-down.log")"
    "${podman[@]}" container exists "$cnt" && fail "compose: the container is still there after down"
  fi
  "${podman[@]}" rmi "$TESSERA_IMAGE" >/dev/null 2>&1
fi

[ $fails -eq 0 ] || exit 1
echo "docker: ok"
