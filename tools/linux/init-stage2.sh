#!/bin/sh
# The Linux guest's /sbin/init2, on its disk (tools/linux/linuxdisk.py): what the system
# does once the initramfs is gone. Turns the swap partition on, says what memory is free
# after boot (/proc/meminfo between two marks), runs /etc/run.sh (the commands of the
# kernel's command line or of the run's script), a script of the disk (script=PATH on the
# kernel's command line), or else a shell on the console; then syncs and powers off through
# QEMU's isa-debug-exit port: 0x10 when the commands succeeded (runqemu: exit 0), 0x11 when
# they failed (exit 1). The programs built from user/ are in /usr/bin; busybox's shell runs
# its own applet of a name before searching PATH (sort, wc, cksum), so each of ours is made a
# function of the shell that runs the commands, which comes first.
export PATH=/usr/bin:/bin HOME=/
[ -e /bin/mount ] || /bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
off() {
  sync
  swapoff -a 2>/dev/null
  mount -o remount,ro / 2>/dev/null
  if [ "$1" = 0 ]; then code='\020'; else code='\021'; fi
  printf "$code" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
  poweroff -f
}
swapon /dev/vda2 || { echo "linux-init: no swap on /dev/vda2"; off 1; }
echo "linux-init: Linux $(uname -r) up at $(cut -d' ' -f1 /proc/uptime) s"
# What the benchmarks record of the kernel's settings beside its figures (linuxboot.boot_facts):
# its command line and the multi-gen LRU's state (absent from a kernel built without it).
echo "linux-init: cmdline $(cat /proc/cmdline)"
echo "linux-init: lru_gen $(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo absent)"
echo "--- /proc/meminfo after boot"
cat /proc/meminfo
echo "--- end of /proc/meminfo"
cd /
for p in /usr/bin/*; do
  eval "${p##*/}() { $p \"\$@\"; }"
done
if [ -f /etc/run.sh ]; then
  (. /etc/run.sh)
  st=$?
elif [ -n "$script" ]; then
  (. "$script")
  st=$?
else
  setsid cttyhack sh
  st=0
fi
echo "linux-init: the commands ended with status $st"
off $st
