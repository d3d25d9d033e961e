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
# Sourced (tests/site/test_fresh_machine.py): the functions only. `return` succeeds only
# in a sourced file (or a function), whatever $0 is.
if (return 0 2>/dev/null); then return 0; fi

[ "$(id -u)" = 0 ] || { echo "tests/fresh_machine.sh needs root (debootstrap, chroot)" >&2; exit 77; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-/var/tmp/bench-fresh}
ROOT=$DIR/root
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

cleanup() {
  for m in dev/pts dev sys proc; do
    mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m" || true
  done
}
trap cleanup EXIT

command -v debootstrap >/dev/null || {
  echo "installing debootstrap"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
}
if [ "${KEEP:-1}" = 0 ]; then rm -rf "$ROOT"; fi
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  echo "== debootstrap bookworm (minbase) into $ROOT"
  mkdir -p "$DIR"
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$DIR/debootstrap.log"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# What Debian's installer writes and debootstrap does not: localhost's names.
[ -s "$ROOT/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
copy_host_ca_certificates /usr/local/share/ca-certificates "$ROOT"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$ROOT/etc/pip.conf"
for m in proc sys dev dev/pts; do
  mountpoint -q "$ROOT/$m" || mount --rbind "/$m" "$ROOT/$m"
  mount --make-rslave "$ROOT/$m"
done

in_root() {
  chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "$1"
}
echo "== what the README asks for: python3, gcc, make (and git, ca-certificates to clone)"
in_root 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends python3 gcc libc6-dev make git ca-certificates >/dev/null &&
  update-ca-certificates >/dev/null && python3 --version && gcc --version | head -1'
rm -rf "$ROOT/root/bench"
git clone -q "$SRC" "$ROOT/root/bench"
echo "== make test in the fresh root ($(git -C "$SRC" rev-parse --short HEAD))"
in_root 'cd /root/bench && time make test'
