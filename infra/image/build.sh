#!/usr/bin/env bash
# Builds infra/image/Dockerfile with podman as `localhost/platform-api:test` (or the name given as
# $1) on a machine without a container registry: the base is the stand-in that node-base.sh
# makes, passed as NODE_IMAGE. The build reaches the npm registry with the host's CA bundle
# mounted into its RUN steps, and keeps npm's cache in .tools/image/npm-cache between builds: its
# own folder, never the host's cache, which a RUN step could change. The first build seeds it
# from the host's cache by hard links to the content files (immutable, named by their hash) and
# a copy of the index, so `npm ci` there downloads only what the host has not. Mounts are not in
# the image.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/infra/image/podman-env.sh"
name=${1:-localhost/platform-api:test}
base=$(bash "$root/infra/image/node-base.sh")

ca_bundle=/etc/ssl/certs/ca-certificates.crt
build_cache="$image_tools/npm-cache"
host_cache="$(npm config get cache 2>/dev/null)/_cacache"
if [ ! -d "$build_cache/_cacache" ] && [ -d "$host_cache/content-v2" ] && [ -d "$host_cache/index-v5" ]; then
  mkdir -p "$build_cache/_cacache.seed"
  if cp -al "$host_cache/content-v2" "$build_cache/_cacache.seed/" 2>/dev/null && cp -a "$host_cache/index-v5" "$build_cache/_cacache.seed/"; then
    mv "$build_cache/_cacache.seed" "$build_cache/_cacache"
  fi
  rm -rf "$build_cache/_cacache.seed"
fi
mkdir -p "$build_cache"
mounts=(-v "$build_cache:/root/.npm")
if [ -f "$ca_bundle" ]; then
  printf 'cafile=%s\n' "$ca_bundle" > "$image_tools/npmrc"
  mounts+=(-v "$ca_bundle:$ca_bundle:ro" -v "$image_tools/npmrc:/root/.npmrc:ro")
fi

podman build --pull=never --layers ${IMAGE_BUILD_VERBOSE:+--log-level=info} --quiet "${mounts[@]}" \
  --build-arg "NODE_IMAGE=$base" -f "$root/knative/Dockerfile" -t "$name" "$root" >/dev/null
echo "$name"
