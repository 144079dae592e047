#!/usr/bin/env bash
# context.sh SOURCE_DIR — the build stage of docker/Dockerfile gets what it needs: every path its
# COPY lines name is copied, as the image's build would, into an empty folder, and the program is
# configured there as the Dockerfile configures it (cmake, tests off). A folder or file the build
# reads but the Dockerfile does not copy (a new top-level folder, a data file that cli/ embeds)
# fails here in seconds, in the default run, instead of in the image build of the slow docker
# suites (which needs podman and minutes). Configure only: the compile is theirs.
set -euo pipefail
src=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-docker-context.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ctx=$tmp/src
mkdir -p "$ctx"
stage=0
copies=0
while read -r word rest; do
  case "$word" in
    FROM) if [[ "$rest" == *" AS build"* ]]; then stage=1; else stage=0; fi ;;
    COPY)
      [ "$stage" = 1 ] || continue
      [[ "$rest" == --from* ]] && continue
      read -r -a args <<<"$rest"
      dest=${args[-1]}
      unset 'args[-1]'
      for s in "${args[@]}"; do
        [ -e "$src/$s" ] || { echo "FAIL: docker/Dockerfile copies $s, which is not in the tree" >&2; exit 1; }
        if [[ "$dest" == */ || "$dest" == "./" || ${#args[@]} -gt 1 ]]; then
          mkdir -p "$ctx/$dest"
          cp -r "$src/$s" "$ctx/$dest"
        else
          mkdir -p "$(dirname "$ctx/$dest")"
          cp -r "$src/$s" "$ctx/$dest"
        fi
        copies=$((copies + 1))
      done ;;
  esac
done <"$src/docker/Dockerfile"
[ "$copies" -gt 5 ] || { echo "FAIL: found only $copies COPY sources in the build stage" >&2; exit 1; }
if ! cmake -S "$ctx" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >"$tmp/log" 2>&1; then
  grep -E "CMake Error|not an existing|No such file" -A2 "$tmp/log" | head -n 20 >&2
  echo "FAIL: the program does not configure from what docker/Dockerfile copies ($copies paths)" >&2
  exit 1
fi
echo "ok: the program configures from the $copies paths docker/Dockerfile's build stage copies"
