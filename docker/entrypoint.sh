#!/bin/sh
# entrypoint.sh — the container's first process (docker/Dockerfile): makes
# the container fit to isolate untrusted programs, then runs tessera as the
# user `tessera` with no privilege left (docs/operations.md, "Docker" and
# "Security model").
#
# Started as root with CAP_SYS_ADMIN (`--cap-add SYS_ADMIN`, compose:
# cap_add), it
#   - takes away what the runtime mounted over /proc (its masks, the
#     read-only /proc/sys ...): the kernel lets an unprivileged sandbox
#     (bubblewrap in a user namespace) mount a fresh procfs only where
#     nothing of /proc is hidden; tessera's programs get their own;
#   - makes the container's cgroups writable (the runtime mounts them
#     read-only) and gives a cgroup of its own to the user tessera
#     (scripts/delegate-cgroup.sh), for each program's CPU, memory and task
#     limits and freezing;
#   - runs tessera there as tessera, with no capability (setpriv: the
#     bounding set emptied).
# Without CAP_SYS_ADMIN it says what it could not do and runs tessera as
# tessera all the same: tessera then refuses programs, naming what is
# missing (or runs them with less, if the config opts out).
# Started as another user (--user), it runs tessera as that user.
set -u
if [ "$(id -u)" != 0 ]; then
  exec tessera "$@"
fi
ok=1
# /proc: the mounts over it, deepest first
for m in $(awk '$5 ~ "^/proc/" {print $5}' /proc/self/mountinfo | sort -r); do
  umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || ok=0
done
# the cgroups: writable
for m in $(awk '$9 ~ /^cgroup2?$/ {print $5}' /proc/self/mountinfo); do
  mount -o remount,bind,rw "$m" 2>/dev/null || ok=0
done
if [ "$ok" = 1 ] && /usr/local/lib/tessera/delegate-cgroup.sh tessera -- true 2>/dev/null; then
  exec /usr/local/lib/tessera/delegate-cgroup.sh tessera -- tessera "$@"
fi
echo "entrypoint: the container cannot give tessera's programs their own /proc and cgroups" \
     "(start it with --cap-add SYS_ADMIN; docs/operations.md, \"Docker\"): tessera runs as" \
     "tessera without them, and refuses programs unless its config opts out" >&2
exec setpriv --reuid=tessera --regid=tessera --clear-groups --inh-caps=-all \
  --bounding-set=-all tessera "$@"
