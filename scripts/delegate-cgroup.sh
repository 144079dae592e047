#!/usr/bin/env bash
# delegate-cgroup.sh USER -- COMMAND [ARGS...] — run COMMAND as USER in a
# cgroup of its own that USER may write: what tessera needs to isolate its
# programs when it does not run as root (docs/operations.md, "Security
# model"). Run it as root. It makes the cgroup below its own (cgroup v1: one
# in each of the cpu, cpuacct, memory, pids and freezer hierarchies; v2: one,
# with the cpu, memory and pids controllers handed down), gives it to USER,
# runs COMMAND there as USER (setpriv: no supplementary groups, no
# capability, an empty bounding set), and when
# COMMAND ends kills what is left in it and removes it. Exits with COMMAND's
# status.
#
# With systemd, a unit's `Delegate=yes` (or `systemd-run -p Delegate=yes
# --uid USER COMMAND`) does the same for cgroup v2; this script is for
# cgroup v1 machines, containers and tests (tests/players: test_sandbox's
# nonroot run, tests/sandbox).
set -euo pipefail
[ $# -ge 3 ] && [ "$2" = "--" ] || { echo "usage: $0 USER -- COMMAND [ARGS...]" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "delegate-cgroup.sh: run it as root" >&2; exit 2; }
user=$1
shift 2
uid=$(id -u "$user" 2>/dev/null || echo "$user")
gid=$(id -g "$user" 2>/dev/null || echo "$uid")
name="tessera-delegate-$$"
dirs=()

# our own cgroup in each hierarchy, from /proc/self/cgroup and the mounts
own() { # own CONTROLLER (v1) or "" (v2): prints the folder, or nothing
  local ctrl=$1 line path mnt root
  while IFS=: read -r _ ctrls path; do
    if [ -z "$ctrl" ] && [ -z "$ctrls" ]; then break; fi
    if [ -n "$ctrl" ] && [[ ",$ctrls," == *",$ctrl,"* ]]; then break; fi
    path=""
  done </proc/self/cgroup
  [ -n "$path" ] || return 0
  while read -r _ _ _ root mnt rest; do
    local fstype=${rest#* - }
    fstype=${fstype%% *}
    local opts=${rest##* }
    if [ -z "$ctrl" ] && [ "$fstype" = cgroup2 ]; then break; fi
    if [ -n "$ctrl" ] && [ "$fstype" = cgroup ] && [[ ",$opts," == *",$ctrl,"* ]]; then break; fi
    mnt=""
  done </proc/self/mountinfo
  [ -n "$mnt" ] || return 0
  [ "$root" != / ] && path=${path#"$root"}
  echo "$mnt${path%/}"
}

v1=0
for c in cpu cpuacct memory pids freezer; do
  base=$(own "$c")
  [ -n "$base" ] || continue
  v1=1
  d="$base/$name"
  [ -d "$d" ] || mkdir "$d"
  chown -R "$uid:$gid" "$d"
  dirs+=("$d")
done
if [ "$v1" = 0 ]; then
  base=$(own "")
  [ -n "$base" ] || { echo "delegate-cgroup.sh: no cgroup hierarchy is mounted" >&2; exit 1; }
  if ! echo "+cpu +memory +pids" >"$base/cgroup.subtree_control" 2>/dev/null; then
    # a cgroup that holds processes hands nothing down (v2's rule): this
    # shell moves into a leaf of its own first (a container's entrypoint)
    mkdir -p "$base/tessera-init"
    echo $$ >"$base/tessera-init/cgroup.procs"
    if ! echo "+cpu +memory +pids" >"$base/cgroup.subtree_control" 2>/dev/null; then
      echo "delegate-cgroup.sh: $base cannot hand the cpu, memory and pids controllers down:" \
           "use systemd-run -p Delegate=yes --uid $user ... instead" >&2
      exit 1
    fi
  fi
  d="$base/$name"
  mkdir "$d"
  chown -R "$uid:$gid" "$d"
  dirs+=("$d")
fi

cleanup() {
  for d in "${dirs[@]}"; do
    [ -f "$d/freezer.state" ] && echo THAWED >"$d/freezer.state" 2>/dev/null || true
    [ -f "$d/cgroup.freeze" ] && echo 0 >"$d/cgroup.freeze" 2>/dev/null || true
  done
  for d in "${dirs[@]}"; do
    # the tasks left, and the cgroups tessera made below (deepest first)
    find "$d" -mindepth 1 -depth -type d 2>/dev/null | while read -r sub; do
      xargs -r kill -9 <"$sub/cgroup.procs" 2>/dev/null || true
      rmdir "$sub" 2>/dev/null || true
    done
  done
  for d in "${dirs[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
  done
}
trap cleanup EXIT
# the command runs in a child shell that moves itself in first; SIGTERM and
# SIGINT are passed on to it
UID_=$uid GID_=$gid bash -c 'for d in "${@:2:$1}"; do echo $$ >"$d/cgroup.procs"; done
  shift $(($1 + 1))
  exec setpriv --reuid="$UID_" --regid="$GID_" --clear-groups --inh-caps=-all \
    --bounding-set=-all "$@"' \
  _ "${#dirs[@]}" "${dirs[@]}" "$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -INT "$child" 2>/dev/null' INT
status=0
while :; do
  wait "$child" && status=0 || status=$?
  kill -0 "$child" 2>/dev/null || break # a trap interrupted the wait: wait again
done
exit "$status"
