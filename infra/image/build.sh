#!/usr/bin/env bash
# Builds knative/Dockerfile with podman as `localhost/platform-api:test` (or the name given as
# $1) on a machine without a container registry: the base is the stand-in that node-base.sh
# makes, passed as NODE_IMAGE. The build reaches the npm registry with the host's CA bundle
# mounted into its RUN steps, and keeps npm's cache in .tools/image/npm-cache between builds (its
# own folder: never the host's cache, which a RUN step could change). Mounts are not in the image.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/infra/image/podman-env.sh"
name=${1:-localhost/platform-api:test}
base=$(bash "$root/infra/image/node-base.sh")

ca_bundle=/etc/ssl/certs/ca-certificates.crt
mkdir -p "$image_tools/npm-cache"
mounts=(-v "$image_tools/npm-cache:/root/.npm")
if [ -f "$ca_bundle" ]; then
  printf 'cafile=%s\n' "$ca_bundle" > "$image_tools/npmrc"
  mounts+=(-v "$ca_bundle:$ca_bundle:ro" -v "$image_tools/npmrc:/usr/local/etc/npmrc:ro")
fi

podman build --pull=never --layers --quiet "${mounts[@]}" \
  --build-arg "NODE_IMAGE=$base" -f "$root/knative/Dockerfile" -t "$name" "$root" >/dev/null
echo "$name"
