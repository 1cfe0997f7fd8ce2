#!/usr/bin/env bash
# Makes sure the host has what the build and `make qemu` need; installs what is missing with
# apt-get when run as root on Debian, otherwise prints the exact command. One line per problem.
set -u
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have i686-linux-gnu-gcc   || need+=(gcc-i686-linux-gnu)
have i686-linux-gnu-ld    || need+=(binutils-i686-linux-gnu)
[ -f /usr/i686-linux-gnu/lib/libc.a ] || need+=(libc6-dev-i386-cross)   # host-run kernel fs tests
have qemu-system-i386     || need+=(qemu-system-x86)
have grub-mkrescue        || need+=(grub-common)
[ -d /usr/lib/grub/i386-pc ] || need+=(grub-pc-bin)
have xorriso              || need+=(xorriso)
have mformat              || need+=(mtools)
have gdb                  || need+=(gdb)
have cc                   || need+=(gcc)
have python3              || need+=(python3)

if [ ${#need[@]} -gt 0 ]; then
  cmd="apt-get install -y --no-install-recommends ${need[*]}"
  if [ "$(id -u)" = 0 ] && have apt-get; then
    echo "tools: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"; } >/tmp/apt-install.$$.log 2>&1 || {
      tail -n 20 /tmp/apt-install.$$.log
      echo "tools: apt-get failed; install by hand: sudo $cmd" >&2; exit 1; }
  else
    echo "tools: missing ${need[*]}; install them with: sudo $cmd" >&2
    exit 1
  fi
fi

# Versions: QEMU 7 or later (virtio legacy PCI, isa-debug-exit), GCC 8 or later.
qv=$(qemu-system-i386 --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -n1)
[ -n "$qv" ] && [ "$qv" -ge 4 ] || { echo "tools: qemu-system-i386 ${qv:-?} is too old; need 4.0 or later" >&2; exit 1; }
gv=$(i686-linux-gnu-gcc -dumpversion | cut -d. -f1)
[ "$gv" -ge 8 ] || { echo "tools: i686-linux-gnu-gcc $gv is too old; need 8 or later" >&2; exit 1; }
grub-mkrescue --version >/dev/null 2>&1 || { echo "tools: grub-mkrescue does not run" >&2; exit 1; }
exit 0
