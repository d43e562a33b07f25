# Sourced by the unpack-*.sh scripts: apt-get working only inside <tools>/apt (package lists and
# downloads of its own for each unpacking, no apt lock taken, nothing installed), and the folders one
# unpacking needs. Package lists and downloads serve that run only; the log stays for whoever reads a
# failure.
# Usage: debian_apt <tools> <name> <staging folder> <what fails without it>. Sets `apt` (the apt-get
# command, extra options appended by the caller), `log` and `downloads`, and defines `fail`.
debian_apt() {
  local tools=$1 name=$2
  staging=$3
  debian_apt_consequence=$4
  debian_apt_name=$name
  local apt_dir="$tools/apt"
  log="$apt_dir/unpack-$name.log"
  downloads="$apt_dir/$name-downloads"
  debian_apt_lists="$apt_dir/$name-lists"
  debian_apt_cache="$apt_dir/$name-cache"
  command -v apt-get >/dev/null && command -v dpkg >/dev/null ||
    fail "apt-get and dpkg are not available ($name is taken from Debian's packages)"
  trap 'rm -rf "$debian_apt_lists" "$debian_apt_cache" "$downloads" "$staging"' EXIT
  rm -rf "$downloads" "$staging"
  mkdir -p "$debian_apt_lists/partial" "$debian_apt_cache/archives/partial" "$downloads" "$staging"
  : >"$log"
  apt=(apt-get -q -o Dir::State::Lists="$debian_apt_lists" -o Dir::Cache="$debian_apt_cache" -o Debug::NoLocking=1)
  # As root apt downloads as the user _apt, who cannot write into the checkout.
  [ "$(id -u)" = 0 ] && apt+=(-o APT::Sandbox::User=root)
  return 0
}

fail() {
  echo "unpack-$debian_apt_name: $*; $debian_apt_consequence" >&2
  exit 1
}
