#!/usr/bin/env python3
"""The Linux guest's disk: one raw image with an ext2 file system and a swap partition.

Our kernel keeps its files and its backing store on one virtio disk, so Linux gets one too,
through the same QEMU options (tools/runqemu.py --disk, with the same throttle): file reads
and writes and swap traffic then share one disk arm's budget on both.

  sector 0          an MS-DOS partition table (written here: no sfdisk needed)
  partition 1       ext2, 4 KB blocks (the block size of our file system), made by mke2fs -d
                    from a folder: busybox in /bin, the programs built for Linux from user/
                    (build/linux/bin, make linux-programs) in /usr/bin, the second init
                    (tools/linux/init-stage2.sh) as /sbin/init2, empty /tmp /etc /proc /sys
                    /dev /mnt, and the files given (FILES: copied to the root)
  partition 2       swap: the header of a swap area written here (mkswap's version 1)

Linux's swap partition has no file system under it, while our kernel's backing store is
files; both live on the same throttled disk as the files, which is what the benchmark needs.

    linuxdisk.py OUT.img [--fs-mb 96] [--swap-mb 64] [FILES...]
"""
import argparse, os, shutil, struct, subprocess, sys, tempfile, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch_linux  # noqa: E402

ROOT = fetch_linux.ROOT
SECTOR = 512
PAGE = 4096
START = 2048                 # the first partition at 1 MB, as fdisk puts it
PROGRAMS = os.path.join(ROOT, "build", "linux", "bin")


class DiskError(Exception):
    pass


def mbr(parts):
    """Sector 0: boot code left empty, four partition entries, the 0x55AA mark. parts:
    [(type, first sector, sectors)]; CHS fields hold the usual "use LBA" values."""
    out = bytearray(SECTOR)
    for i, (ptype, first, count) in enumerate(parts):
        out[446 + 16 * i:446 + 16 * (i + 1)] = struct.pack("<B3sB3sII", 0, b"\xfe\xff\xff", ptype,
                                                            b"\xfe\xff\xff", first, count)
    out[510:512] = b"\x55\xaa"
    return bytes(out)


def parse_mbr(sector):
    """[(type, first, sectors)] of the used entries of a partition table (for the tests)."""
    if sector[510:512] != b"\x55\xaa":
        raise DiskError("no partition table")
    out = []
    for i in range(4):
        _, _, ptype, _, first, count = struct.unpack_from("<B3sB3sII", sector, 446 + 16 * i)
        if ptype:
            out.append((ptype, first, count))
    return out


def swap_header(size, label=b"linuxswap"):
    """The first page of a swap area of size bytes, as mkswap writes it (version 1): after
    1 KB of boot bits, version, last page, bad pages (none), a UUID and a label; the page
    ends with SWAPSPACE2."""
    pages = size // PAGE
    if pages < 10:
        raise DiskError("a swap area of %d bytes is too small" % size)
    page = bytearray(PAGE)
    struct.pack_into("<III16s16s", page, 1024, 1, pages - 1, 0, uuid.uuid4().bytes, label[:16])
    page[PAGE - 10:] = b"SWAPSPACE2"
    return bytes(page)


def copy_sparse(src, dst_f, offset, chunk=1 << 16):
    """Copies file src into the open file dst_f at offset, skipping runs of zeros (the image
    stays sparse)."""
    with open(src, "rb") as f:
        pos = offset
        while True:
            b = f.read(chunk)
            if not b:
                break
            if b.count(0) != len(b):
                dst_f.seek(pos)
                dst_f.write(b)
            pos += len(b)


BUSYBOX = os.path.join(ROOT, "build", "linux", "root", "bin", "busybox")
# Programs of user/ built for Linux only for the host's tests of the library
# (tests/host/test_linux_programs.py) and never put on the disk: init2 makes every program of
# /usr/bin a function of the script's shell, so ours would stand in for busybox's applet of the
# same name (a script's `sh -c` ran our shell, which knows no $$).
HOST_ONLY = ("sh", "ls", "ps", "fault", "cat")


def stage(d, programs, files, busybox=BUSYBOX):
    """The folder mke2fs makes partition 1 from."""
    if not os.path.exists(busybox):
        raise DiskError("no %s: run tools/linux/fetch_linux.py" % os.path.relpath(busybox))
    for sub in ("bin", "sbin", "usr/bin", "etc", "tmp", "proc", "sys", "dev", "mnt"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    shutil.copy(busybox, os.path.join(d, "bin", "busybox"))
    os.symlink("busybox", os.path.join(d, "bin", "sh"))
    shutil.copy(os.path.join(HERE, "init-stage2.sh"), os.path.join(d, "sbin", "init2"))
    os.chmod(os.path.join(d, "sbin", "init2"), 0o755)
    os.chmod(os.path.join(d, "tmp"), 0o1777)
    names = sorted(n for n in os.listdir(programs) if n not in HOST_ONLY) if os.path.isdir(programs) else []
    if not names:
        raise DiskError("no programs in %s: run make linux-programs" % os.path.relpath(programs))
    for n in names:
        shutil.copy(os.path.join(programs, n), os.path.join(d, "usr", "bin", n))
    for f in files:
        dst = os.path.join(d, os.path.basename(f.rstrip("/")))
        (shutil.copytree if os.path.isdir(f) else shutil.copy)(f, dst)
    return names


def build(out, fs_mb=96, swap_mb=64, files=(), programs=PROGRAMS, busybox=BUSYBOX):
    """Writes the image; returns (the programs on it, partition 1's and 2's (first, sectors))."""
    if not shutil.which("mke2fs") and not os.path.exists("/sbin/mke2fs"):
        raise DiskError("mke2fs not found: apt-get install e2fsprogs")
    mke2fs = shutil.which("mke2fs") or "/sbin/mke2fs"
    fs_sectors = fs_mb * (1 << 20) // SECTOR
    swap_sectors = swap_mb * (1 << 20) // SECTOR
    p1 = (START, fs_sectors)
    p2 = (START + fs_sectors, swap_sectors)
    with tempfile.TemporaryDirectory() as t:
        root = os.path.join(t, "root")
        names = stage(root, programs, files, busybox)
        part = os.path.join(t, "part1.img")
        p = subprocess.run([mke2fs, "-q", "-F", "-t", "ext2", "-b", "4096", "-m", "0", "-L", "linuxbench",
                            "-d", root, part, "%dk" % (fs_mb * 1024)], capture_output=True)
        if p.returncode != 0:
            raise DiskError("mke2fs failed: %s" % p.stderr.decode(errors="replace").strip())
        with open(out + ".tmp", "wb") as f:
            f.truncate((p2[0] + p2[1]) * SECTOR)
            f.write(mbr([(0x83, p1[0], p1[1]), (0x82, p2[0], p2[1])]))
            copy_sparse(part, f, p1[0] * SECTOR)
            f.seek(p2[0] * SECTOR)
            f.write(swap_header(p2[1] * SECTOR))
    os.replace(out + ".tmp", out)
    return names, p1, p2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--fs-mb", type=int, default=96)
    ap.add_argument("--swap-mb", type=int, default=64)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    try:
        names, _, _ = build(a.out, a.fs_mb, a.swap_mb, a.files)
    except DiskError as e:
        sys.exit("linuxdisk: %s" % e)
    print("linuxdisk: %s: ext2 of %d MB (%s) and %d MB of swap" % (a.out, a.fs_mb, " ".join(names), a.swap_mb))


if __name__ == "__main__":
    main()
