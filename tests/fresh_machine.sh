#!/usr/bin/env bash
# `make test-fresh`: the README's promise checked on a fresh Debian 12 machine. A minimal
# Debian bookworm (debootstrap --variant=minbase) gets only what the README asks for (Python 3,
# a C compiler, make) and git to clone this tree's HEAD, then runs `make test` in it as root,
# with the host's /proc, /sys and /dev (loop devices, KVM where there is one) and network.
# Everything else the tests need must come from `make test` itself.
#
#   tests/fresh_machine.sh [DIR]   the chroot goes to DIR (default /var/tmp/bench-fresh);
#                                  an existing one is reused (KEEP=0 makes it anew)
# Needs root, debootstrap (installed with apt-get when missing) and the network to reach
# Debian's mirror and PyPI. The host's extra CA certificates (a TLS-intercepting egress proxy)
# and its pip.conf are copied in, as a machine on that network would have them.
#
# Sourced, it defines the functions that make and enter such a root, and runs nothing
# (tests/fresh_loadgen.sh, `make test-fresh-loadgen`, uses them too).
set -euo pipefail

# The host's extra CA certificates (FROM: /usr/local/share/ca-certificates, *.crt at any
# depth, as update-ca-certificates reads them) into the same folder of the root ROOT, which
# a minbase Debian does not have (the ca-certificates package makes it, later): the folder
# is made first. update-ca-certificates, once ca-certificates is installed in ROOT, adds
# them to its bundle. No certificates: nothing is done.
copy_host_ca_certificates() {
  local from=$1 root=$2 cert rel
  [ -d "$from" ] || return 0
  while IFS= read -r -d '' cert; do
    rel=${cert#"$from"/}
    mkdir -p "$root/usr/local/share/ca-certificates/$(dirname "$rel")"
    cp -L "$cert" "$root/usr/local/share/ca-certificates/$rel"
  done < <(find -L "$from" -type f -name '*.crt' -print0)
}

# A minimal Debian bookworm in ROOT from the mirror MIRROR, unless ROOT has one already
# (debootstrap's log in LOG); debootstrap installed first where it is missing.
debootstrap_root() {
  local root=$1 mirror=$2 log=$3
  [ -x "$root/usr/bin/apt-get" ] && return 0
  command -v debootstrap >/dev/null || {
    echo "installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
  }
  echo "== debootstrap bookworm (minbase) into $root"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$log"
}

# What a machine on the host's network has and debootstrap does not write: its resolver,
# localhost's names (as Debian's installer writes them), the host's extra CA certificates
# and its pip.conf.
configure_root() {
  local root=$1
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  [ -s "$root/etc/hosts" ] ||
    printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
  copy_host_ca_certificates /usr/local/share/ca-certificates "$root"
  if [ -f /etc/pip.conf ]; then cp /etc/pip.conf "$root/etc/pip.conf"; fi
}

# The host's /proc, /sys, /dev and /dev/pts inside ROOT (each once), and their undoing:
# unmount_root fails when anything is still mounted under ROOT.
mount_root() {
  local root=$1 m
  for m in proc sys dev dev/pts; do
    mountpoint -q "$root/$m" || mount --rbind "/$m" "$root/$m"
    mount --make-rslave "$root/$m"
  done
}
unmount_root() {
  local root=$1 m
  for m in dev/pts dev sys proc; do
    if mountpoint -q "$root/$m"; then umount -l "$root/$m" || true; fi
  done
  ! awk -v root="$(realpath -m "$root")/" 'index($2 "/", root) == 1 { found = 1 } END { exit !found }' \
    /proc/self/mounts
}

# COMMAND run by bash as root in ROOT, with a clean environment.
in_root() {
  chroot "$1" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "$2"
}

# Sourced (tests/site/test_fresh_machine.py, tests/fresh_loadgen.sh): the functions only.
# `return` succeeds only in a sourced file (or a function), whatever $0 is.
if (return 0 2>/dev/null); then return 0; fi

[ "$(id -u)" = 0 ] || { echo "tests/fresh_machine.sh needs root (debootstrap, chroot)" >&2; exit 77; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-/var/tmp/bench-fresh}
ROOT=$DIR/root
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

trap 'unmount_root "$ROOT" || echo "still mounted under $ROOT" >&2' EXIT

if [ "${KEEP:-1}" = 0 ]; then
  unmount_root "$ROOT" && rm -rf --one-file-system "$ROOT"
fi
debootstrap_root "$ROOT" "$MIRROR" "$DIR/debootstrap.log"
configure_root "$ROOT"
mount_root "$ROOT"

echo "== what the README asks for: python3, gcc, make (and git, ca-certificates to clone)"
in_root "$ROOT" 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends python3 gcc libc6-dev make git ca-certificates >/dev/null &&
  update-ca-certificates >/dev/null && python3 --version && gcc --version | head -1'
rm -rf "$ROOT/root/bench"
git clone -q "$SRC" "$ROOT/root/bench"
echo "== make test in the fresh root ($(git -C "$SRC" rev-parse --short HEAD))"
in_root "$ROOT" 'cd /root/bench && time make test'
