#!/usr/bin/env bash
# sandbox.sh TESSERA SOURCE_DIR — hostile programs against the container image of docker/,
# run as docker/compose.yaml runs it (--cap-add SYS_ADMIN): tests/sandbox/test_sandbox_server.js
# in its container mode (a spy and a victim in cmd: seats of one match and in one course final,
# a program whose children think for it; the journal, the admin token and the data folder out of
# reach), then the same image without the capability, failing closed (programs refused, the
# reason given, every client told) and, opted out, running them.
# Needs podman (scripts/deps.sh docker), node, and root for scripts/docker-base.sh when the base
# image is missing. TESSERA_SKIP_MISSING=1 turns a missing podman into a skip (exit 77).
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
image=localhost/tessera:ctest-sandbox
log=$(mktemp "${TMPDIR:-/tmp}/tessera-docker-sandbox.XXXXXX")
trap 'rm -f "$log"' EXIT
TESSERA_PODMAN="${podman[*]}" bash "$src/scripts/docker-base.sh" || { echo "FAIL: no base image" >&2; exit 1; }
t0=$(date +%s)
if ! "${podman[@]}" build --format docker --network host "${limits[@]}" -f "$src/docker/Dockerfile" \
    -t "$image" "$src" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "FAIL: the image did not build" >&2
  exit 1
fi
echo "image built in $(($(date +%s) - t0)) s"
(cd "$src/tests/server" && [ -d node_modules/ws ]) || (cd "$src/tests/server" && npm ci --silent) ||
  { echo "FAIL: npm ci in tests/server" >&2; exit 1; }
TESSERA_IMAGE=$image TESSERA_PODMAN="${podman[*]}" \
  node "$src/tests/sandbox/test_sandbox_server.js" "$tessera" container
