#!/bin/sh
# The Linux guest's first /init, in the initramfs (tools/linux/initramfs.py): loads the
# modules of the virtio disk and of ext2, mounts the disk's first partition and switches to
# it, so that the initramfs's memory is freed before anything is measured; the disk's
# /sbin/init2 (tools/linux/init-stage2.sh) does the rest. The commands to run come on the
# kernel's command line (cmd="...": the kernel hands it to us in the environment) or as
# /run.sh, appended to the initramfs by the run; either becomes the disk's /etc/run.sh.
# A failure powers off through QEMU's isa-debug-exit port with 0x11 (runqemu: exit 1).
PATH=/bin
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
fail() {
  echo "linux-init: $*"
  printf '\021' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
  poweroff -f
}
for m in $(cat /modules); do
  insmod /lib/modules/$m.ko || fail "cannot load the module $m"
done
i=0
while [ ! -b /dev/vda1 ]; do
  i=$((i + 1))
  [ $i -gt 200 ] && fail "no disk partition /dev/vda1 (a virtio disk made by tools/linux/linuxdisk.py?)"
  sleep 0.05
done
mount -t ext2 /dev/vda1 /newroot || fail "cannot mount /dev/vda1 as ext2"
[ -x /newroot/sbin/init2 ] || fail "the disk has no /sbin/init2: not a disk of tools/linux/linuxdisk.py"
rm -f /newroot/etc/run.sh
if [ -n "$cmd" ]; then
  printf '%s\n' "$cmd" > /newroot/etc/run.sh
elif [ -f /run.sh ]; then
  cp /run.sh /newroot/etc/run.sh
fi
mount --move /dev /newroot/dev
umount /sys /proc
exec switch_root /newroot /sbin/init2
