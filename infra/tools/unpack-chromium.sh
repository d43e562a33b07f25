#!/usr/bin/env bash
# Unpacks Debian's chromium into <tools>/chromium with `apt-get download` and `dpkg -x`, together
# with the packages it needs that this machine lacks (exactly those apt would install, without
# Recommends), and writes the launcher <tools>/bin/chromium. Nothing outside <tools> changes: apt's
# package lists and downloads live in <tools>/apt, nothing is installed and no apt lock is taken.
# A Chromium installed on the machine is not used, so the browser test runs the same everywhere.
# Usage: unpack-chromium.sh <tools>. Exits 0 at once, without the network, when already unpacked.
set -euo pipefail
tools=$(mkdir -p "$1" && cd "$1" && pwd)
dest="$tools/chromium"
launcher="$tools/bin/chromium"
[ -x "$launcher" ] && [ -x "$dest/usr/lib/chromium/chromium" ] && exit 0

source "$(dirname "$0")/debian-apt.sh"
debian_apt "$tools" chromium "$dest.partial" \
  "Chromium is not in $dest, so test/browser/foundation/reference-page.test.ts will fail"
mkdir -p "$tools/bin"
apt+=(-o APT::Install-Recommends=false)

"${apt[@]}" update >>"$log" 2>&1 || fail "apt-get update failed (see $log)"
# What `apt-get install chromium` would install or upgrade here, read from a simulation.
simulation=$("${apt[@]}" --simulate install chromium 2>>"$log") ||
  fail "apt cannot resolve chromium from this machine's sources (see $log)"
mapfile -t needed < <(awk '$1 == "Inst" { print $2 }' <<<"$simulation")
if printf '%s\n' "${needed[@]}" | grep -qx libc6; then
  fail "Debian's chromium needs a newer C library (libc6) than this machine has"
fi

mapfile -t packages < <(printf '%s\n' chromium chromium-common "${needed[@]}" | sort -u)
(cd "$downloads" && "${apt[@]}" download "${packages[@]}" >>"$log" 2>&1) ||
  fail "apt-get download of ${#packages[@]} packages failed; is Debian's mirror reachable? (see $log)"
for deb in "$downloads"/*.deb; do dpkg -x "$deb" "$staging" || fail "dpkg -x $deb failed"; done
rm -rf "$dest"
# Every folder holding unpacked shared libraries, some of them private ones (libpulse needs
# pulseaudio/libpulsecommon-*.so), for the launcher's LD_LIBRARY_PATH; the browser's own folder is
# found by the browser itself.
(cd "$staging" && find . -path ./usr/lib/chromium -prune -o \( -name '*.so' -o -name '*.so.[0-9]*' \) -printf '%h\n' | sort -u) \
  >"$staging/library-dirs"

# The machine's fontconfig settings when it has them, plus the fonts unpacked beside the browser.
# Absolute paths: fontconfig resolves a relative cache folder against the browser's working folder.
cat >"$staging/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <cachedir>$dest/fontconfig-cache</cachedir>
  <dir>$dest/usr/share/fonts</dir>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
</fontconfig>
EOF
mv "$staging" "$dest"

# Written last: its presence means the unpacking finished.
cat >"$launcher.partial" <<'EOF'
#!/bin/sh
# Runs the Chromium unpacked by infra/tools/unpack-chromium.sh with the libraries unpacked beside it.
root=$(cd "$(dirname "$0")/../chromium" && pwd)
while read -r dir; do
  LD_LIBRARY_PATH="$root/$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done <"$root/library-dirs"
export LD_LIBRARY_PATH FONTCONFIG_FILE="$root/fonts.conf"
exec "$root/usr/lib/chromium/chromium" "$@"
EOF
chmod 0755 "$launcher.partial"
mv "$launcher.partial" "$launcher"
echo "unpack-chromium: Debian's chromium unpacked into $dest, with ${#needed[@]} more packages it needs that this machine lacks"
