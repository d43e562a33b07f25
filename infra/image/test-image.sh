#!/usr/bin/env bash
# npm run test:image: builds infra/image/Dockerfile with podman and runs test/image against it.
# Installs podman, runc and debootstrap into the system when missing (root; see podman-env.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
started=$SECONDS
image=$(bash infra/image/build.sh)
echo "image: $image built in $((SECONDS - started)) s"
source infra/image/podman-env.sh
PLATFORM_API_IMAGE=$image PLATFORM_API_NODE_IMAGE=$(bash infra/image/node-base.sh) \
  npx vitest run --config test/image/vitest.config.ts "$@"
echo "image: npm run test:image took $((SECONDS - started)) s in all"
