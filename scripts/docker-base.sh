#!/usr/bin/env bash
# docker-base.sh — make the base image docker/Dockerfile starts FROM
# (docker.io/library/debian:bookworm) in the local podman store, without a
# container registry: debootstrap a minimal bookworm from the machine's own
# Debian mirror and import it. Does nothing when the image is already there.
#
# For machines that cannot pull from Docker Hub (docs/operations.md, "Docker");
# where a registry is reachable, `podman pull debian:bookworm` (or docker's
# own pull on build) does the same. Needs root (debootstrap), and the docker
# group of scripts/deps.sh (podman, runc, debootstrap).
#   TESSERA_PODMAN   the podman command (default: podman --runtime runc)
#   TESSERA_MIRROR   the Debian mirror (default: the first URI of the
#                    machine's apt sources, else http://deb.debian.org/debian)
set -euo pipefail
read -r -a podman <<<"${TESSERA_PODMAN:-podman --runtime runc}"
image=docker.io/library/debian:bookworm
if "${podman[@]}" image exists "$image" 2>/dev/null; then
  exit 0
fi
command -v debootstrap >/dev/null || { echo "docker-base.sh: debootstrap is missing (scripts/deps.sh docker)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "docker-base.sh: debootstrap needs root" >&2; exit 1; }
mirror=${TESSERA_MIRROR:-}
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
    [ -f "$f" ] || continue
    mirror=$(grep -m1 -oE '(URIs:[[:space:]]*|^deb[[:space:]]+)https?://[^[:space:]]+' "$f" | grep -oE 'https?://[^[:space:]]+' || true)
    [ -n "$mirror" ] && break
  done
fi
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d "${TMPDIR:-/tmp}/tessera-rootfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
echo "docker-base.sh: debootstrap bookworm from $mirror (a few minutes)" >&2
log=$root.log
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  rm -f "$log"
  echo "docker-base.sh: debootstrap failed" >&2
  exit 1
fi
rm -f "$log"
# the image's apt sources: the same mirror, as in the official image
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | "${podman[@]}" import - "$image" >/dev/null
echo "docker-base.sh: made $image" >&2
