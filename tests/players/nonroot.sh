#!/bin/sh
# nonroot.sh SRC_DIR TEST ARGS... — run a sandbox suite as a user that is
# not root, with the isolation it must get there: as root, the suite runs
# as nobody in a cgroup given to it (scripts/delegate-cgroup.sh, as an
# operator would set it up); as another user, as it is (its cgroup must be
# delegated already, or the suite fails saying so). What cannot be done is
# a failure naming it, or a skip (77) with TESSERA_SKIP_MISSING=1.
src=$1
shift
missing() {
  if [ "${TESSERA_SKIP_MISSING:-}" = 1 ]; then echo "SKIPPED: $*"; exit 77; fi
  echo "MISSING: $* (TESSERA_SKIP_MISSING=1 skips this test)" >&2
  exit 1
}
if [ "$(id -u)" != 0 ]; then exec "$@"; fi
command -v setpriv >/dev/null || missing "setpriv (Debian: util-linux) runs the suite as nobody"
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$1" ||
  missing "nobody cannot run $1: the build folder and the folders above it must be readable by all"
HOME=/tmp exec "$src/scripts/delegate-cgroup.sh" 65534 -- "$@"
