#!/usr/bin/env bash
# Proves that the README's two commands work on a fresh Debian 12 from a clean clone.
#
# A minimal Debian (debootstrap --variant=minbase bookworm, plus only make, git and
# ca-certificates, what a newcomer has before reading the README) is made in a chroot; this
# repository's committed HEAD is cloned into it; then, inside, as root:
#     printf 'poweroff\n' | make qemu
#     make test
# Both must succeed: every other host tool has to be installed by the build itself
# (tools/setup/check-tools.sh, tools/setup/pydeps.py). Not part of `make test`: it downloads a few
# hundred MB and takes several minutes.
#
# Usage (as root): tools/setup/fresh-debian.sh [--keep] [--qemu-only]
#   --keep       leave the chroot in place (its path is printed)
#   --qemu-only  skip `make test`
# MIRROR (default http://deb.debian.org/debian) and TMPDIR (default /var/tmp) pick where from
# and where to. /proc, /sys and /dev are mounted into the chroot and always unmounted on exit,
# before anything is removed. Exit status 0 when both commands succeeded.
set -eu
keep=0 qemu_only=0
for a in "$@"; do
  case $a in
    --keep) keep=1 ;;
    --qemu-only) qemu_only=1 ;;
    *) echo "usage: $0 [--keep] [--qemu-only]" >&2; exit 2 ;;
  esac
done
MIRROR=${MIRROR:-http://deb.debian.org/debian}
repo=$(cd "$(dirname "$0")/../.." && pwd)

if [ "$(id -u)" != 0 ]; then
  echo "fresh-debian: needs root (debootstrap, chroot, mount); run: sudo $0 $*" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  echo "fresh-debian: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } || {
    echo "fresh-debian: could not install debootstrap; run: apt-get install debootstrap" >&2; exit 1; }
fi

root=$(mktemp -d "${TMPDIR:-/var/tmp}/fresh-debian.XXXXXX")
mounts=()
cleanup() {
  local rc=$? m i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    m=${mounts[i]}
    umount -R "$m" 2>/dev/null || umount -R -l "$m" 2>/dev/null || true
  done
  # Never remove anything while a host file system is still mounted inside.
  if findmnt -rn -o TARGET | grep -q "^$root/"; then
    echo "fresh-debian: mounts remain under $root; not removing it" >&2
  elif [ $keep = 1 ]; then
    echo "fresh-debian: chroot kept in $root"
  else
    rm -rf --one-file-system "$root"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { echo "fresh-debian: $* ($(date +%T))"; }

step "debootstrap --variant=minbase --include=make,git,ca-certificates bookworm into $root"
debootstrap --variant=minbase --include=make,git,ca-certificates bookworm "$root" "$MIRROR" \
  > "$root.debootstrap.log" 2>&1 || { tail -n 20 "$root.debootstrap.log"; echo "fresh-debian: debootstrap failed" >&2; exit 1; }
rm -f "$root.debootstrap.log"

mount -t proc proc "$root/proc"; mounts+=("$root/proc")
mount -t sysfs sysfs "$root/sys"; mounts+=("$root/sys")
mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"; mounts+=("$root/dev")
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"   # no daemons start inside
chmod +x "$root/usr/sbin/policy-rc.d"

step "cloning $(git -C "$repo" rev-parse --short HEAD) ($(git -C "$repo" rev-parse --abbrev-ref HEAD))"
git clone -q --no-local "$repo" "$root/root/src"

inside() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/src && $1"
}

step "inside: printf 'poweroff\\n' | make qemu"
if ! inside "printf 'poweroff\n' | make qemu" > "$root.qemu.log" 2>&1; then
  tail -n 30 "$root.qemu.log"
  echo "fresh-debian: FAILED: make qemu (whole log: $root.qemu.log)" >&2
  exit 1
fi
grep -q "console: ready" "$root.qemu.log" || { echo "fresh-debian: FAILED: the kernel never came up" >&2; exit 1; }
tail -n 3 "$root.qemu.log"
rm -f "$root.qemu.log"
step "make qemu: ok"

if [ $qemu_only = 0 ]; then
  step "inside: make test"
  if ! inside "make test" > "$root.test.log" 2>&1; then
    tail -n 40 "$root.test.log"
    echo "fresh-debian: FAILED: make test (whole log: $root.test.log)" >&2
    exit 1
  fi
  tail -n 2 "$root.test.log"
  rm -f "$root.test.log"
  step "make test: ok"
fi
echo "fresh-debian: both README commands work on a fresh Debian 12"
