#!/usr/bin/env bash
# Makes a local stand-in for the Dockerfile's base image (node:20-bookworm-slim), since no image
# can be pulled here: a minimal Debian bookworm from Debian's mirror, with this machine's Node 20
# (binary, npm and headers) under /usr/local as in the official image, and the compiler and
# Python node-gyp needs (the official image installs them in the build stage instead).
set -euo pipefail

IMAGE="${1:-docker.io/library/node:20-bookworm-slim}"
if podman image exists "$IMAGE"; then
  echo "base image $IMAGE exists"
  exit 0
fi

MIRROR="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
ROOT="$WORK/rootfs"

echo "debootstrap bookworm from $MIRROR"
debootstrap --variant=minbase --include=python3,make,g++,ca-certificates bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || { tail -20 "$WORK/debootstrap.log"; exit 1; }

NODE="$(readlink -f "$(command -v node)")"
NODE_PREFIX="$(dirname "$(dirname "$NODE")")"
install -D -m 0755 "$NODE" "$ROOT/usr/local/bin/node"
mkdir -p "$ROOT/usr/local/lib/node_modules" "$ROOT/usr/local/include"
cp -a "$NODE_PREFIX/lib/node_modules/npm" "$ROOT/usr/local/lib/node_modules/npm"
cp -a "$NODE_PREFIX/include/node" "$ROOT/usr/local/include/node"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
# This machine reaches the npm registry through its own trust store: give the image the same one.
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$ROOT/usr/local/etc"
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$ROOT/usr/local/etc/npmrc"
rm -rf "$ROOT/var/cache/apt/archives"/*.deb "$ROOT/var/lib/apt/lists"/*

tar -C "$ROOT" -c . | podman import --change 'CMD ["node"]' - "$IMAGE" >/dev/null
echo "imported $IMAGE ($("$ROOT/usr/local/bin/node" --version 2>/dev/null || node --version))"
