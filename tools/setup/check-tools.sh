#!/usr/bin/env bash
# Makes sure the host has what the build and `make qemu` need, and installs what is missing.
#
# Each piece is checked by trying it, not by looking for a command: a minimal Debian has `cc`
# from gcc without the C library headers (no <dirent.h>), so "is there a compiler" is the wrong
# question; "does a small host program with <dirent.h> compile and run" is the right one. Each
# failed trial names the Debian packages that provide the piece. As root with apt-get they are
# installed non-interactively and every trial runs again; otherwise the exact command is
# printed. One line per problem. pytest and pytest-xdist are checked the same way by
# tools/setup/pydeps.py, which makes the tests' Python environment (build/py).
set -u
HOSTCC=${HOSTCC:-cc}
CROSS=${CROSS:-i686-linux-gnu-}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }

# Each trial prints "PACKAGES: what failed" when it fails.
trials() {
  # The host compiler with the C library headers (mkfs, fsck, host tests).
  printf '#include <dirent.h>\n#include <stdio.h>\n#include <sys/stat.h>\n#include <sys/mman.h>\n%s\n' \
    'int main(void) { DIR *d = opendir("."); return d ? 0 : 1; }' > "$t/host.c"
  "$HOSTCC" -o "$t/host" "$t/host.c" >"$t/log" 2>&1 && "$t/host" ||
    echo "gcc libc6-dev: the host C compiler ($HOSTCC) cannot build a program with <dirent.h>"

  # The cross compiler and linker: freestanding code for the kernel and user programs.
  printf '#include <stdint.h>\n#include <stdarg.h>\n%s\n%s\n' \
    'uint32_t f(int n, ...) { va_list a; va_start(a, n); uint32_t x = va_arg(a, uint32_t); va_end(a); return x; }' \
    'void _start(void) { for (;;) f(1, 2); }' > "$t/k.c"
  { "${CROSS}gcc" -m32 -ffreestanding -nostdinc -isystem "$("${CROSS}gcc" -print-file-name=include 2>/dev/null)" \
      -c "$t/k.c" -o "$t/k.o" && "${CROSS}ld" -m elf_i386 -o "$t/k" "$t/k.o"; } >"$t/log" 2>&1 ||
    echo "gcc-i686-linux-gnu binutils-i686-linux-gnu: ${CROSS}gcc and ${CROSS}ld cannot build freestanding 32-bit code"

  # The kernel's file-system code runs on the host as a static 32-bit program (tests/host/test_kfs.py).
  printf '#include <stdio.h>\n#include <dirent.h>\nint main(void) { puts("ok"); return 0; }\n' > "$t/s.c"
  "${CROSS}gcc" -static -o "$t/s" "$t/s.c" >"$t/log" 2>&1 ||
    echo "libc6-dev-i386-cross: ${CROSS}gcc cannot link a static program with the C library"

  qemu-system-i386 --version >"$t/qv" 2>&1 ||
    echo "qemu-system-x86: qemu-system-i386 does not run"

  # The ISO: grub-mkrescue needs the i386-pc modules, xorriso and mtools; one real run proves it.
  local grub=""
  have grub-mkrescue || grub+=" grub-common"
  [ -d /usr/lib/grub/i386-pc ] || grub+=" grub-pc-bin"
  have xorriso || grub+=" xorriso"
  have mformat || grub+=" mtools"
  if [ -n "$grub" ]; then
    echo "${grub# }: grub-mkrescue cannot make an ISO"
  else
    mkdir -p "$t/iso/boot/grub"
    grub-mkrescue -o "$t/t.iso" "$t/iso" >"$t/log" 2>&1 ||
      echo "grub-common grub-pc-bin xorriso mtools: grub-mkrescue fails ($(tail -n1 "$t/log"))"
  fi

  # make gdb's commands are written in gdb's Python API (tools/gdb); gdb-minimal has none.
  [ "$(gdb -q -nx -batch -ex 'python print(6 * 7)' 2>/dev/null)" = 42 ] ||
    echo "gdb: gdb with Python does not run (make gdb, tests/qemu/test_gdb*.py)"
  # The Linux guest of make bench-linux (tools/linux/): its disk is made by mke2fs -d (e2fsprogs
  # 1.43 or later), its packages unpacked by dpkg-deb -x and their archive's signature checked by gpgv.
  mkdir -p "$t/e2/d" && echo x > "$t/e2/d/f"
  { PATH="$PATH:/sbin:/usr/sbin" mke2fs -q -F -t ext2 -d "$t/e2/d" "$t/e2/img" 1024; } >"$t/log" 2>&1 ||
    echo "e2fsprogs: mke2fs cannot make an ext2 image from a folder (-d)"
  have dpkg-deb || echo "dpkg: dpkg-deb is missing (the Linux guest's packages are unpacked with it)"
  have gpgv || echo "gpgv: gpgv is missing (the Debian archive's signature is checked with it)"
  python3 -c 'import sys, termios, select; sys.exit(sys.version_info < (3, 7))' >/dev/null 2>&1 ||
    echo "python3: python3 (3.7 or later) does not run"
}

missing=$(trials)
if [ -n "$missing" ]; then
  pkgs=$(printf '%s\n' "$missing" | sed 's/:.*//' | tr ' ' '\n' | sort -u | tr '\n' ' ')
  cmd="apt-get install -y --no-install-recommends ${pkgs% }"
  if [ "$(id -u)" = 0 ] && have apt-get; then
    printf '%s\n' "$missing" | sed 's/^[^:]*: /tools: /'
    echo "tools: installing ${pkgs% }"
    export DEBIAN_FRONTEND=noninteractive
    log=$(mktemp /tmp/apt-install.XXXXXX)
    # shellcheck disable=SC2086
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends $pkgs; } >"$log" 2>&1 || {
      tail -n 20 "$log"
      echo "tools: apt-get failed (log: $log); install by hand: sudo $cmd" >&2; exit 1; }
    rm -f "$log"
    missing=$(trials)
    if [ -n "$missing" ]; then
      printf '%s\n' "$missing" | sed 's/^[^:]*: /tools: still failing after the install: /' >&2
      exit 1
    fi
  else
    printf '%s\n' "$missing" | sed 's/^[^:]*: /tools: /' >&2
    echo "tools: install what is missing with: sudo $cmd" >&2
    exit 1
  fi
fi

# Versions: QEMU 4 or later (virtio legacy PCI, isa-debug-exit), GCC 8 or later.
qv=$(qemu-system-i386 --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -n1)
[ -n "$qv" ] && [ "$qv" -ge 4 ] || { echo "tools: qemu-system-i386 ${qv:-?} is too old; need 4.0 or later" >&2; exit 1; }
gv=$("${CROSS}gcc" -dumpversion | cut -d. -f1)
[ "$gv" -ge 8 ] || { echo "tools: ${CROSS}gcc $gv is too old; need 8 or later" >&2; exit 1; }
exit 0
