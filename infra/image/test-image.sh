#!/usr/bin/env bash
# npm run test:image: builds knative/Dockerfile with podman and runs test/image against it.
# Installs podman, runc and debootstrap into the system when missing (root; see podman-env.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
started=$SECONDS
image=$(bash infra/image/build.sh)
echo "image: built $image in $((SECONDS - started)) s"
source infra/image/podman-env.sh
PLATFORM_API_IMAGE=$image npx vitest run --config test/image/vitest.config.ts "$@"
echo "image: test:image took $((SECONDS - started)) s in all"
