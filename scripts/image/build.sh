#!/usr/bin/env bash
# Builds the repository's Dockerfile with buildah on a local base (scripts/image/base.sh), where
# no container registry is reachable:
#
#   scripts/image/build.sh [TAG]        (default tag: localhost/station-exporter:dev)
#
# The host's CA bundle is mounted read-only into the build and named to npm (NPM_CAFILE), for a
# registry behind a TLS-inspecting proxy; a mount is never part of a layer. --format docker keeps
# the HEALTHCHECK (the OCI format has none); --isolation chroot needs no container runtime.
# Prints the image's size, and the tag on its last line.
set -euo pipefail
cd "$(dirname "$0")/../.."

TAG="${1:-localhost/station-exporter:dev}"
NODE_VERSION="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9.]*\)-.*/\1/p' Dockerfile)"
base="$(scripts/image/base.sh "$NODE_VERSION" | tail -n 1)"
ca=/etc/ssl/certs/ca-certificates.crt

# podman's default rlimits need a capability these machines lack: ask for less.
args=(--format docker --isolation chroot --layers --ulimit nofile=20000:20000 --ulimit nproc=32768:32768
  --build-arg "NODE_IMAGE=$base" -t "$TAG")
if [ -r "$ca" ]; then
  args+=(--volume "$ca:/run/host-ca.crt:ro" --build-arg NPM_CAFILE=/run/host-ca.crt)
fi
buildah bud "${args[@]}" -f Dockerfile . >&2
size="$(podman image inspect --format '{{.Size}}' "$TAG")"
echo "image $TAG: $((size / 1000000)) MB" >&2
echo "$TAG"
