# Sourced by the image scripts: makes podman usable on this kind of machine and exports
# CONTAINERS_CONF. Installs podman, runc and debootstrap from Debian's packages into the system
# when they are missing (root and apt-get needed; a no-op once they are there).
#   - runtime runc: crun refuses a mixed cgroup v1/v2 layout such as this VM's;
#   - default ulimits set explicitly: root cannot raise the limits podman asks for by default
#     (here even the current hard process limit is refused; 32768 processes is plenty).
image_tools="$root/.tools/image"
mkdir -p "$image_tools"

if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v debootstrap >/dev/null; then
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || {
    echo "image: podman, runc and debootstrap are missing and cannot be installed (needs root and apt-get)" >&2
    exit 1
  }
  echo "image: installing podman, runc and debootstrap (Debian packages)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 podman runc debootstrap >/dev/null
fi

hard_limit() { local limit; limit=$(ulimit "$1"); [ "$limit" = unlimited ] && limit=1048576; echo "$limit"; }
nofile=$(hard_limit -Hn)
nproc=$(hard_limit -Hu)
[ "$nproc" -gt 32768 ] && nproc=32768
cat > "$image_tools/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$image_tools/containers.conf"
