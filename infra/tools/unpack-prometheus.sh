#!/usr/bin/env bash
# Unpacks Debian's prometheus package into <tools>/prometheus with `apt-get download` and `dpkg -x`,
# for the test that scrapes the functions with a real Prometheus (test/observability/). Only the
# server binary is used (a static Go program needing nothing but the C library), so the web UI's
# JavaScript packages it depends on are not fetched. As unpack-chromium.sh: apt's lists live in
# <tools>/apt, nothing is installed, no apt lock is taken.
# Usage: unpack-prometheus.sh <tools>. Exits 0 at once, without the network, when already unpacked.
set -euo pipefail
tools=$(mkdir -p "$1" && cd "$1" && pwd)
dest="$tools/prometheus"
binary="$dest/usr/bin/prometheus"
[ -x "$binary" ] && exit 0

source "$(dirname "$0")/debian-apt.sh"
debian_apt "$tools" prometheus "$dest.partial" \
  "Prometheus is not in $dest, so test/system/observability/prometheus-scrape.test.ts will fail"

"${apt[@]}" update >>"$log" 2>&1 || fail "apt-get update failed (see $log)"
(cd "$downloads" && "${apt[@]}" download prometheus >>"$log" 2>&1) ||
  fail "apt-get download prometheus failed; is Debian's mirror reachable? (see $log)"
dpkg -x "$downloads"/prometheus_*.deb "$staging" || fail "dpkg -x of the prometheus package failed"
"$staging/usr/bin/prometheus" --version >>"$log" 2>&1 || fail "the unpacked prometheus does not run (see $log)"
rm -rf "$dest"
mv "$staging" "$dest"
