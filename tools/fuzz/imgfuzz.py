#!/usr/bin/env python3
"""make imgfuzz: boots the kernel on randomly damaged disk images and checks each boot.

The good image is made by build/mkfs: /bin, /tmp, /swap, plus hello.txt, big.dat (200 KB, so
it needs an indirect block) and a nested directory d/ (d/g.txt, d/e/f.txt). A seed and a kind
of damage make one image: the damage is drawn from the seed alone, so (seed, kind) names an
image for good. Kinds:

  super     a superblock field (sizes, counts, magic, offsets, clean flag); resealed with a
            fresh checksum most of the time, so the checks behind the checksum are reached
  bitmap    the free bitmap: used blocks marked free, free ones marked used, metadata bits
            cleared, the whole map zeroed or filled
  desc      a descriptor: type, link count, size, block count, block pointers out of range
            or naming metadata or another file's block
  dir       a directory entry: descriptor out of range or free, no terminator, '/' or empty
            name, duplicates, '.' and '..' wrong or missing
  swap      the root's `swap` entry or /swap's descriptor: out of range, free, a file, the
            root itself, damaged
  loop      directory cycles: an entry naming an ancestor, a second name for a directory,
            '..' naming a child
  indirect  slots of an indirect block out of range, naming metadata, itself, another
            file's block, or the whole block garbage
  truncate  the image cut short of the file system's size
  oversize  the image longer than the file system (sometimes the superblock's block count
            lowered, resealed, so that files reach past it)
  flip      1 to 16 random bytes of metadata (superblock, bitmap, descriptors, directories,
            indirect blocks) changed

Besides kind and seed, half the images (not super or truncate) have the clean flag taken off
(resealed), so that the repairing mount (fs/repair.c) meets the damage instead of the live
code. Every image ends with TAIL_BLOCKS blocks of a pattern beyond the file system.

Each image is checked by build/fsck first (its verdict: ok, damaged, or crash when fsck
itself dies), then booted (tools/runqemu.py) with COMMANDS: ls, cat, cksum, a write, a
mkdir, sync, the shell's help builtin and poweroff. The boot's outcome:

  shell     powered off cleanly after the shell ran `help` (errors for damaged files are fine)
  refused   powered off reporting failure, with a message and no panic
  panic     the kernel panicked
  hang      the timeout expired
  crash     QEMU stopped without the kernel powering off (a triple fault)
  oob       the kernel wrote outside the file system: a byte outside blocks 1 .. nblocks-1
            of a mountable superblock changed (block 0, the tail, the image's length), or
            anything at all changed on an image whose superblock the kernel must refuse
  noshell   powered off cleanly without the shell having run (never expected)

The agreement with fsck, checked on every image:
  - panic, hang, crash, oob and noshell are failures whatever fsck says;
  - fsck ok => the boot reaches the shell, and fsck is still ok after it (the kernel may not
    refuse a sound file system, nor damage one), unless /bin/init or /bin/sh is not there
    (an entry's name changed: the file system is sound, but nothing can run);
  - refused => fsck said damaged (the contrapositive of the first: an image the kernel
    refuses is one fsck complains about);
  - fsck crash is a failure (fsck must report, not die).
An image fsck calls damaged may boot to a shell: the kernel gives errors for damaged files
only. Exit status 1 when any image fails; build/imgfuzz/imgfuzz.csv holds one row per image
and build/imgfuzz/failed/ keeps each failing image with the command that reproduces it.

    imgfuzz.py -n 300 --seed 1          300 images, kinds in turn
    imgfuzz.py --one 17 desc --keep x.img   one image, kept, its console shown
"""
import argparse, csv, os, random, re, shutil, struct, subprocess, sys, tempfile, threading, time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
OUT = BUILD / "imgfuzz"
# The one launcher of QEMU (tools/runqemu.py), as the tests and the benchmarks boot through.
sys.path.insert(0, str(ROOT / "tools"))
import runqemu  # noqa: E402


# --- the on-disk format (fs/layout.h) ----------------------------------------------------------
def _layout_defines():
    """The numeric #defines of fs/layout.h, so that this reader follows the C one."""
    text = (ROOT / "fs" / "layout.h").read_text()
    vals = {}
    for name, expr in re.findall(r"^#define\s+(FS_\w+)\s+(.+?)\s*(?:/\*.*)?$", text, re.M):
        expr = re.sub(r"(?<=[0-9a-fA-F])u\b", "", expr).replace("/", "//")
        try:
            vals[name] = int(eval(expr, {}, dict(vals)))
        except Exception:
            pass
    return vals


L = _layout_defines()
BSIZE, MAGIC, VERSION = L["FS_BSIZE"], L["FS_MAGIC"], L["FS_VERSION"]
NDIRECT, NINDIRECT = L["FS_NDIRECT"], L["FS_NINDIRECT"]
DESC_SIZE, DIRENT_SIZE, NAME_MAX = L["FS_DESC_SIZE"], L["FS_DIRENT_SIZE"], L["FS_NAME_MAX"]
BITS_PER_BLOCK, DESCS_PER_BLOCK = L["FS_BITS_PER_BLOCK"], L["FS_DESCS_PER_BLOCK"]
MIN_BLOCKS, MAX_BLOCKS, MAX_DESCS = L["FS_MIN_BLOCKS"], L["FS_MAX_BLOCKS"], L["FS_MAX_DESCS"]
T_FREE, T_FILE, T_DIR = L["FS_T_FREE"], L["FS_T_FILE"], L["FS_T_DIR"]
SUPER_BLOCK, ROOT_DESC = L["FS_SUPER_BLOCK"], L["FS_ROOT_DESC"]

# struct fs_super: sixteen 32-bit words in this order.
SUPER_FIELDS = ["magic", "version", "block_size", "nblocks", "bitmap_start", "bitmap_blocks",
                "desc_start", "desc_blocks", "ndesc", "data_start", "root", "clean", "free_blocks",
                "free_descs", "mounts", "checksum"]
SUPER_OFF = SUPER_BLOCK * BSIZE
# struct fs_desc: type u16, nlink u16, size, blocks, mtime, direct[10], indirect, dindirect.
DESC_FMT = "<HHIII%dIII" % NDIRECT

TAIL_BLOCKS = 16
TAIL_PATTERN = b"imgfuzz tail: the kernel must never write here\n"

IMAGE_MB = 16
COMMANDS = ["ls /", "ls /d", "ls /d/e", "ls /bin", "cat /hello.txt", "cat /d/g.txt",
            "cat /d/e/f.txt", "cksum /big.dat", "echo written > /tmp/new.txt", "cat /tmp/new.txt",
            "echo more > /d/more.txt", "mkdir /d/e/sub", "echo appended >> /hello.txt",
            "echo appended >> /big.dat", "echo appended >> /d/e/f.txt", "sync", "ls /swap", "help", "poweroff"]
KINDS = ["super", "bitmap", "desc", "dir", "swap", "loop", "indirect", "truncate", "oversize", "flip"]
BAD = ("panic", "hang", "crash", "oob", "noshell")


def u32(img, off):
    return struct.unpack_from("<I", img, off)[0]


def put32(img, off, v):
    struct.pack_into("<I", img, off, v & 0xFFFFFFFF)


def read_super(img):
    if len(img) < SUPER_OFF + 64:
        return None
    return dict(zip(SUPER_FIELDS, struct.unpack_from("<16I", img, SUPER_OFF)))


def checksum(img):
    """fs_super_checksum: FNV-1a over the superblock's bytes before its checksum."""
    h = 2166136261
    for b in img[SUPER_OFF:SUPER_OFF + 60]:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def reseal(img):
    put32(img, SUPER_OFF + 60, checksum(img))


def set_super(img, field, v):
    put32(img, SUPER_OFF + 4 * SUPER_FIELDS.index(field), v)


def div_up(a, b):
    return (a + b - 1) // b


def super_ok(img, disk_blocks):
    """fs_super_check (fs/layout.c): None when sound, else why not."""
    s = read_super(img)
    if s is None:
        return "too short"
    if s["magic"] != MAGIC or s["version"] != VERSION or s["checksum"] != checksum(img):
        return "magic, version or checksum"
    n = s["nblocks"]
    checks = [
        s["block_size"] == BSIZE, MIN_BLOCKS <= n <= MAX_BLOCKS, n <= disk_blocks,
        s["bitmap_start"] == SUPER_BLOCK + 1, s["bitmap_blocks"] == div_up(n, BITS_PER_BLOCK),
        s["desc_start"] == s["bitmap_start"] + s["bitmap_blocks"],
        0 < s["desc_blocks"] <= MAX_DESCS // DESCS_PER_BLOCK,
        s["ndesc"] == s["desc_blocks"] * DESCS_PER_BLOCK,
        s["data_start"] == s["desc_start"] + s["desc_blocks"], s["data_start"] < n,
        s["root"] == ROOT_DESC, s["clean"] <= 1, s["free_blocks"] <= n - s["data_start"],
        s["free_descs"] <= s["ndesc"] - 2]
    return None if all(checks) else "field %d" % checks.index(False)


def disk_bytes(length):
    """The disk's size as QEMU shows a raw image to the guest: whole sectors, a partial last
    one rounded up (it reads as zeros past the file's end, and a write there lengthens the
    file to the sector's end)."""
    return div_up(length, 512) * 512


def disk_blocks_of(length):
    """The disk's size in blocks as the kernel counts it (virtio-blk's sectors, whole blocks)."""
    return disk_bytes(length) // BSIZE


class Fs:
    """A read-only view of a good image: descriptors, paths, the blocks each file uses."""
    def __init__(self, img):
        self.img = img
        self.sb = read_super(img)
        self.paths = {}             # inum -> path (first found)
        self.dirs = []              # inums of directories
        self.parent = {ROOT_DESC: ROOT_DESC}
        self.walk(ROOT_DESC, "/")

    def doff(self, inum):
        return self.sb["desc_start"] * BSIZE + inum * DESC_SIZE

    def desc(self, inum):
        v = struct.unpack_from(DESC_FMT, self.img, self.doff(inum))
        return dict(type=v[0], nlink=v[1], size=v[2], blocks=v[3], direct=list(v[5:5 + NDIRECT]),
                    indirect=v[5 + NDIRECT], dindirect=v[6 + NDIRECT])

    def block_list(self, inum):
        """The file's data blocks in order (0 for a hole)."""
        d = self.desc(inum)
        out = list(d["direct"])
        if d["indirect"]:
            out += struct.unpack_from("<%dI" % NINDIRECT, self.img, d["indirect"] * BSIZE)
        if d["dindirect"]:
            for ind in struct.unpack_from("<%dI" % NINDIRECT, self.img, d["dindirect"] * BSIZE):
                out += struct.unpack_from("<%dI" % NINDIRECT, self.img, ind * BSIZE) if ind else [0] * NINDIRECT
        return out[:div_up(d["size"], BSIZE)]

    def entries(self, inum):
        """(byte offset in the image, ino, name) of each slot of a directory, empty ones too."""
        d = self.desc(inum)
        out = []
        for k, b in enumerate(self.block_list(inum)):
            for i in range(BSIZE // DIRENT_SIZE):
                if k * BSIZE + i * DIRENT_SIZE >= d["size"] or not b:
                    break
                off = b * BSIZE + i * DIRENT_SIZE
                ino = u32(self.img, off)
                name = bytes(self.img[off + 4:off + 4 + NAME_MAX + 1]).split(b"\0")[0].decode("latin-1")
                out.append((off, ino, name))
        return out

    def walk(self, inum, path):
        self.paths[inum] = path
        self.dirs.append(inum)
        for _, ino, name in self.entries(inum):
            if not ino or name in (".", "..") or ino in self.paths:
                continue
            p = path.rstrip("/") + "/" + name
            if self.desc(ino)["type"] == T_DIR:
                self.parent[ino] = inum
                self.walk(ino, p)
            else:
                self.paths[ino] = p

    def inum(self, path):
        return next(i for i, p in self.paths.items() if p == path)

    def entry(self, dirpath, name):
        return next(e for e in self.entries(self.inum(dirpath)) if e[2] == name)

    def free_desc(self):
        return next(i for i in range(2, self.sb["ndesc"]) if self.desc(i)["type"] == T_FREE)

    def used_blocks(self):
        """Every data and indirect block some file uses."""
        out = set()
        for inum in self.paths:
            d = self.desc(inum)
            out.update(b for b in self.block_list(inum) if b)
            out.update(b for b in (d["indirect"], d["dindirect"]) if b)
        return out

    def indirect_blocks(self):
        return [(i, self.desc(i)["indirect"]) for i in sorted(self.paths) if self.desc(i)["indirect"]]


# --- the good image --------------------------------------------------------------------------
def make_base(workdir):
    """The undamaged image (without its tail), made by build/mkfs from files written here."""
    src = Path(workdir) / "src"
    if src.exists():
        shutil.rmtree(src)
    (src / "d" / "e").mkdir(parents=True)
    (src / "hello.txt").write_text("hello from imgfuzz\n")
    (src / "big.dat").write_bytes(b"".join(b"big.dat line %06d of a file that needs an indirect block\n" % i
                                           for i in range(3500)))
    (src / "d" / "g.txt").write_text("g in d\n")
    (src / "d" / "e" / "f.txt").write_text("f in d/e\n")
    img = Path(workdir) / "base.img"
    subprocess.run([str(BUILD / "mkfs"), "-o", str(img), "-s", str(IMAGE_MB), "-b", str(BUILD / "user" / "bin"),
                    str(src / "hello.txt"), str(src / "big.dat"), str(src / "d")],
                   check=True, stdout=subprocess.DEVNULL)
    return bytes(img.read_bytes())


def tail_bytes(n):
    return (TAIL_PATTERN * (n // len(TAIL_PATTERN) + 1))[:n]


# --- damage ----------------------------------------------------------------------------------
def pick_value(r, v, interesting):
    """A value near v, or an interesting one, or any 32-bit word."""
    c = r.random()
    if c < 0.45:
        return r.choice(interesting)
    if c < 0.8:
        return (v + r.choice([-2, -1, 1, 2, 31, 32, 33, 4096])) & 0xFFFFFFFF
    return r.getrandbits(32)


def free_below(img, sb, n):
    """Data blocks below n the bitmap calls free."""
    base = sb["bitmap_start"] * BSIZE
    return sum(1 for b in range(sb["data_start"], n) if not img[base + b // 8] >> (b % 8) & 1)


def bad_block_values(fs, r):
    """Block numbers a pointer must never use: beyond the file system (the tail), metadata,
    another file's; the tail ones twice as often, since a write there is what the check of
    the tail catches."""
    sb = fs.sb
    used = sorted(fs.used_blocks())
    tail = [sb["nblocks"], sb["nblocks"] + 1, sb["nblocks"] + TAIL_BLOCKS // 2, sb["nblocks"] + TAIL_BLOCKS - 1]
    return tail * 2 + [0, 1, sb["bitmap_start"], sb["desc_start"], sb["data_start"] - 1, sb["data_start"],
            sb["nblocks"] - 1, sb["nblocks"], sb["nblocks"] + 1, sb["nblocks"] + TAIL_BLOCKS // 2,
            0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, r.choice(used), r.choice(used)]


def bad_ino_values(fs, r):
    n = fs.sb["ndesc"]
    return [0, 1, n - 1, n, n + 1, n + 1000, 0x7FFFFFFF, 0xFFFFFFFF, fs.free_desc(),
            r.choice(list(fs.paths)), r.choice(fs.dirs)]


# Descriptors most damage goes to: the test files and directories, /swap, the root.
TARGETS = ["/", "/hello.txt", "/big.dat", "/d", "/d/e", "/d/g.txt", "/d/e/f.txt", "/swap", "/tmp", "/bin"]
# The programs COMMANDS runs, and the two every boot needs.
PROGRAMS = ["/bin/" + p for p in ("init", "sh", "ls", "cat", "cksum", "echo", "mkdir", "sync", "poweroff")]


def target_inum(fs, r):
    c = r.random()
    if c < 0.75:
        return fs.inum(r.choice(TARGETS))
    if c < 0.95:
        return fs.inum(r.choice(PROGRAMS))
    return r.choice(list(fs.paths))


def dmg_super(img, fs, r):
    field = r.choice(SUPER_FIELDS[:14] + ["nblocks", "free_blocks", "data_start", "desc_blocks", "ndesc"])
    old = fs.sb[field]
    sb = fs.sb
    new = pick_value(r, old, [0, 1, 2, sb["nblocks"], sb["nblocks"] - 1, sb["nblocks"] + 1, sb["data_start"],
                              sb["ndesc"], MAX_BLOCKS, MAX_BLOCKS + 1, 0x7FFFFFFF, 0xFFFFFFFF])
    set_super(img, field, new)
    sealed = r.random() < 0.85
    if sealed:
        reseal(img)
    return "superblock %s %d -> %d%s" % (field, old, new, ", resealed" if sealed else "")


def dmg_bitmap(img, fs, r):
    sb = fs.sb
    base = sb["bitmap_start"] * BSIZE
    nbits = sb["nblocks"]

    def setbit(b, v):
        byte = base + b // 8
        img[byte] = (img[byte] | (1 << b % 8)) if v else (img[byte] & ~(1 << b % 8))
    op = r.choice(["free-used", "free-used", "use-free", "free-meta", "zero", "fill", "free-past-end"])
    used = sorted(fs.used_blocks())
    if op == "free-used":
        n = r.choice([1, 3, 50])
        for b in r.sample(used, n):
            setbit(b, 0)
    elif op == "use-free":
        n = r.choice([1, 10, 500])
        free = [b for b in range(sb["data_start"], nbits) if b not in set(used)]
        for b in r.sample(free, n):
            setbit(b, 1)
    elif op == "free-meta":
        for b in r.sample(range(0, sb["data_start"]), r.choice([1, 3])):
            setbit(b, 0)
    elif op == "zero":
        img[base:base + sb["bitmap_blocks"] * BSIZE] = bytes(sb["bitmap_blocks"] * BSIZE)
    elif op == "fill":
        img[base:base + sb["bitmap_blocks"] * BSIZE] = b"\xff" * (sb["bitmap_blocks"] * BSIZE)
    else:
        for b in range(nbits, nbits + r.choice([1, 8, 100])):
            setbit(b, 0)
    return "bitmap " + op


def dmg_desc(img, fs, r):
    inum = target_inum(fs, r)
    off = fs.doff(inum)
    d = fs.desc(inum)
    field = r.choice(["type", "nlink", "size", "size", "blocks", "direct", "direct", "direct",
                      "indirect", "dindirect", "zero"])
    if field == "type":
        v = r.choice([T_FREE, T_FILE, T_DIR, 3, 0xFFFF])
        struct.pack_into("<H", img, off, v)
    elif field == "nlink":
        v = r.choice([0, 1, 2, 3, 0xFFFF, d["nlink"] + 1])
        struct.pack_into("<H", img, off + 2, v)
    elif field == "size":
        v = pick_value(r, d["size"], [0, 1, 31, 33, 4095, 4096, NDIRECT * BSIZE, NDIRECT * BSIZE + 1,
                                      0x7FFFFFFF, 0x80000000, 0xFFFFFFFF])
        put32(img, off + 4, v)
    elif field == "blocks":
        v = pick_value(r, d["blocks"], [0, 1, fs.sb["nblocks"], 0xFFFFFFFF])
        put32(img, off + 8, v)
    elif field == "zero":
        img[off:off + DESC_SIZE] = bytes(DESC_SIZE)
        v = 0
    else:
        mapped = [i for i in range(NDIRECT) if d["direct"][i]]
        slot = (r.choice(mapped) if mapped and r.random() < 0.7 else r.randrange(NDIRECT)) if field == "direct" else 0
        where = off + 16 + 4 * slot if field == "direct" else off + 16 + 4 * NDIRECT + (0 if field == "indirect" else 4)
        v = r.choice(bad_block_values(fs, r))
        put32(img, where, v)
        if field == "direct":
            field = "direct[%d]" % slot
    return "descriptor %d (%s) %s = %d" % (inum, fs.paths[inum], field, v)


def bad_name(r):
    op = r.choice(["unterminated", "slash", "empty", "dot", "dotdot", "high"])
    if op == "unterminated":
        return op, bytes(r.choice(b"abcxyz") for _ in range(NAME_MAX + 1))
    if op == "slash":
        return op, b"a/b".ljust(NAME_MAX + 1, b"\0")
    if op == "empty":
        return op, bytes(NAME_MAX + 1)
    if op == "dot":
        return op, b".".ljust(NAME_MAX + 1, b"\0")
    if op == "dotdot":
        return op, b"..".ljust(NAME_MAX + 1, b"\0")
    return op, bytes(r.randrange(128, 256) for _ in range(5)).ljust(NAME_MAX + 1, b"\0")


def dmg_dir(img, fs, r):
    dinum = r.choice([fs.inum(p) for p in ("/", "/d", "/d/e", "/bin", "/tmp")] + fs.dirs)
    ents = fs.entries(dinum)
    off, ino, name = r.choice([e for e in ents if e[1]])
    where = "%s entry '%s'" % (fs.paths[dinum], name)
    op = r.choice(["ino", "ino", "name", "duplicate", "erase", "size"])
    if op == "ino":
        v = r.choice(bad_ino_values(fs, r))
        put32(img, off, v)
        return "%s names descriptor %d" % (where, v)
    if op == "name":
        how, raw = bad_name(r)
        img[off + 4:off + 4 + NAME_MAX + 1] = raw
        return "%s name %s" % (where, how)
    if op == "duplicate":
        other = r.choice([e for e in ents if e[1]])
        img[off + 4:off + DIRENT_SIZE] = img[other[0] + 4:other[0] + DIRENT_SIZE]
        return "%s renamed '%s' (a duplicate)" % (where, other[2])
    if op == "erase":
        img[off:off + DIRENT_SIZE] = bytes(DIRENT_SIZE)
        return "%s erased" % where
    doff = fs.doff(dinum)
    v = r.choice([0, 32, 33, len(ents) * DIRENT_SIZE + DIRENT_SIZE, 2 * BSIZE, 0x7FFFFFE0, 0xFFFFFFE0])
    put32(img, doff + 4, v)
    return "%s size = %d" % (fs.paths[dinum], v)


def dmg_swap(img, fs, r):
    off, ino, _ = fs.entry("/", "swap")
    sd = fs.doff(ino)
    n = fs.sb["ndesc"]
    op = r.choice(["out-of-range", "out-of-range", "free", "file", "root", "type", "size", "direct", "name"])
    if op == "out-of-range":
        v = r.choice([n, n + 1, n + 12345, 0x7FFFFFFF, 0xFFFFFFFF])
        put32(img, off, v)
        return "root's swap entry names descriptor %d (of %d)" % (v, n)
    if op == "free":
        v = fs.free_desc()
        put32(img, off, v)
        return "root's swap entry names free descriptor %d" % v
    if op == "file":
        v = fs.inum("/hello.txt")
        put32(img, off, v)
        return "root's swap entry names a file (%d)" % v
    if op == "root":
        put32(img, off, ROOT_DESC)
        return "root's swap entry names the root"
    if op == "type":
        v = r.choice([0, T_FILE, 7])
        struct.pack_into("<H", img, sd, v)
        return "/swap's descriptor type = %d" % v
    if op == "size":
        v = r.choice([0, 33, 0xFFFFFFFF])
        put32(img, sd + 4, v)
        return "/swap's size = %d" % v
    if op == "direct":
        v = r.choice(bad_block_values(fs, r))
        put32(img, sd + 16, v)
        return "/swap's direct[0] = %d" % v
    img[off + 4:off + 4 + NAME_MAX + 1] = bytes(r.choice(b"swap") for _ in range(NAME_MAX + 1))
    return "root's swap entry name unterminated"


def dmg_loop(img, fs, r):
    root, d, e = fs.inum("/"), fs.inum("/d"), fs.inum("/d/e")
    op = r.choice(["e-names-d", "e-names-root", "d-names-itself", "dotdot-child", "dot-other",
                   "second-name", "root-dotdot"])
    if op == "e-names-d":           # /d/e/f.txt becomes /d/e/f.txt -> /d: a cycle
        off = fs.entry("/d/e", "f.txt")[0]
        put32(img, off, d)
    elif op == "e-names-root":
        off = fs.entry("/d/e", "f.txt")[0]
        put32(img, off, root)
    elif op == "d-names-itself":
        off = fs.entry("/d", "g.txt")[0]
        put32(img, off, d)
    elif op == "dotdot-child":
        off = fs.entry("/d", "..")[0]
        put32(img, off, e)
    elif op == "dot-other":
        off = fs.entry("/d/e", ".")[0]
        put32(img, off, r.choice([root, d]))
    elif op == "second-name":       # /hello.txt becomes a second name of /d
        off = fs.entry("/", "hello.txt")[0]
        put32(img, off, d)
    else:
        off = fs.entry("/", "..")[0]
        put32(img, off, r.choice([d, e]))
    return "loop " + op


def dmg_indirect(img, fs, r):
    ours = [x for x in fs.indirect_blocks() if fs.paths[x[0]] == "/big.dat"]
    progs = [x for x in fs.indirect_blocks() if fs.paths[x[0]] in PROGRAMS]
    inum, ind = r.choice(ours if r.random() < 0.6 else progs)
    base = ind * BSIZE
    nslots = div_up(fs.desc(inum)["size"], BSIZE) - NDIRECT
    op = r.choice(["slot", "slot", "slot", "self", "garbage", "beyond-size"])
    if op == "garbage":
        img[base:base + BSIZE] = bytes(r.getrandbits(8) for _ in range(BSIZE))
        return "indirect block %d of %s: garbage" % (ind, fs.paths[inum])
    if op == "beyond-size":
        slot = r.randrange(max(nslots, 0), NINDIRECT)
        v = r.choice(sorted(fs.used_blocks()) + [fs.sb["nblocks"] - 1])
    else:
        # The last slot is the one the append in COMMANDS writes through.
        slot = nslots - 1 if nslots > 0 and r.random() < 0.4 else r.randrange(max(nslots, 1))
        v = ind if op == "self" else r.choice(bad_block_values(fs, r))
    put32(img, base + 4 * slot, v)
    return "indirect block %d of %s: slot %d = %d" % (ind, fs.paths[inum], slot, v)


def dmg_flip(img, fs, r):
    sb = fs.sb
    regions = [(SUPER_OFF, 64), (sb["bitmap_start"] * BSIZE, div_up(sb["nblocks"], 8)),
               (sb["desc_start"] * BSIZE, (max(fs.paths) + 1) * DESC_SIZE)]
    regions += [(b * BSIZE, BSIZE) for inum in fs.dirs for b in fs.block_list(inum) if b]
    regions += [(ind * BSIZE, BSIZE) for _, ind in fs.indirect_blocks()]
    n = r.choice([1, 1, 2, 4, 16])
    spots = []
    for _ in range(n):
        start, size = r.choice(regions)
        at = start + r.randrange(size)
        img[at] = r.choice([img[at] ^ (1 << r.randrange(8)), r.getrandbits(8), 0, 0xFF])
        spots.append(at)
    sealed = any(SUPER_OFF <= s < SUPER_OFF + 64 for s in spots) and r.random() < 0.5
    if sealed:
        reseal(img)
    return "%d byte(s) at %s%s" % (n, ",".join("%d" % s for s in spots), ", resealed" if sealed else "")


DAMAGE = dict(super=dmg_super, bitmap=dmg_bitmap, desc=dmg_desc, dir=dmg_dir, swap=dmg_swap,
              loop=dmg_loop, indirect=dmg_indirect, flip=dmg_flip)


def damage(base, kind, seed):
    """The damaged image for (seed, kind): (bytes, what was done, whether its clean flag was
    taken off)."""
    r = random.Random("%d:%s" % (seed, kind))
    fs = Fs(base)
    img = bytearray(base)
    fslen = fs.sb["nblocks"] * BSIZE
    unclean = False
    if kind == "truncate":
        size = r.choice([0, 512, BSIZE, 2 * BSIZE - 1, 2 * BSIZE, fs.sb["data_start"] * BSIZE,
                         fslen - BSIZE, fslen - 1, r.randrange(fslen)])
        return bytes(img[:size]), "truncated to %d bytes of %d" % (size, fslen), False
    if kind == "oversize":
        extra = r.choice([BSIZE, 1000 * BSIZE, r.randrange(1, 4096 * BSIZE)])
        what = "%d bytes longer" % (TAIL_BLOCKS * BSIZE + extra)
        if r.random() < 0.5:
            n = r.randrange(fs.sb["data_start"] + 16, fs.sb["nblocks"])
            n = r.choice([n, fs.sb["nblocks"] - 1, fs.sb["data_start"] + 16])
            set_super(img, "nblocks", n)
            if r.random() < 0.8:        # else refused for a free count beyond the new size
                set_super(img, "free_blocks", free_below(img, fs.sb, n))
            reseal(img)
            what += ", superblock's block count %d -> %d" % (fs.sb["nblocks"], n)
        return bytes(img) + tail_bytes(TAIL_BLOCKS * BSIZE + extra), what, False
    what = DAMAGE[kind](img, fs, r)
    if kind != "super" and r.random() < 0.5:
        unclean = True
        if read_super(img)["checksum"] == checksum(img):
            set_super(img, "clean", 0)
            reseal(img)
        else:
            set_super(img, "clean", 0)  # a broken checksum stays broken
    return bytes(img) + tail_bytes(TAIL_BLOCKS * BSIZE), what, unclean


# --- one image -------------------------------------------------------------------------------
def run_fsck(path, timeout=60):
    try:
        p = subprocess.run([str(BUILD / "fsck"), str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "crash", "fsck timed out"
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode == 0:
        return "ok", out
    if p.returncode == 1:
        return "damaged", out
    return "crash", "fsck exit status %d\n%s" % (p.returncode, out)


def missing_programs(path):
    """Which of /bin/init and /bin/sh fsck cannot find as regular files: a sound file system
    without them cannot boot (an entry's name damaged alike in a consistent way), which is no
    damage fsck reports."""
    out = []
    for prog in ("/bin/init", "/bin/sh"):
        p = subprocess.run([str(BUILD / "fsck"), str(path), "--stat", prog], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
        if p.returncode != 0 or b"type file\n" not in p.stdout:
            out.append(prog)
    return out


def oob_write(before, after):
    """Where the kernel wrote outside what the damaged image's superblock owns, or None."""
    size = disk_bytes(len(before))
    if not len(before) <= len(after) <= size:
        return "the image's length changed from %d to %d" % (len(before), len(after))
    before = before + bytes(size - len(before))
    after = after + bytes(size - len(after))
    if super_ok(before, disk_blocks_of(len(before))) is None:
        n = read_super(before)["nblocks"]
        spans = [(0, BSIZE), (n * BSIZE, size)]
    else:
        spans = [(0, size)]                 # refused at mount: nothing may be written at all
    for lo, hi in spans:
        if before[lo:hi] != after[lo:hi]:
            at = lo + next(i for i in range(hi - lo) if before[lo + i] != after[lo + i])
            return "byte %d (block %d) changed, outside blocks [1, %s)" % (
                at, at // BSIZE, spans[1][0] // BSIZE if len(spans) > 1 else "-")
    return None


def classify(out, rc, before, after):
    """(outcome, one line saying why) for a boot's console output and runqemu status."""
    oob = oob_write(before, after)
    if oob:
        return "oob", oob
    m = re.search(r"^.*kernel panic.*$", out, re.M)
    if m:
        return "panic", m.group(0).strip()
    if rc == 124:
        return "hang", "timed out"
    if rc == 0:
        if re.search(r"^builtins: ", out, re.M):
            return "shell", ""
        return "noshell", "powered off cleanly, but the shell never ran help"
    if rc == 1:
        lines = [l.strip() for l in out.splitlines() if l.strip() and not l.startswith("runqemu:")]
        return "refused", lines[-1] if lines else "(no message)"
    return "crash", "runqemu exit status %d" % rc


def agreement(outcome, verdict, post, missing=()):
    """'' when the boot and fsck agree (see the module's text), else why not. missing: the
    programs every boot needs that a sound image lacks; the kernel may refuse it."""
    if outcome in BAD:
        return outcome
    if verdict == "crash":
        return "fsck crashed"
    if verdict == "ok" and outcome != "shell" and not missing:
        return "fsck ok but the kernel refused"
    if verdict == "ok" and outcome == "shell" and post != "ok":
        return "fsck ok before the boot, not after"
    return ""


READ_LIMIT = 1 << 20


def commands_for(path):
    """COMMANDS, but a file to be read that a damaged size made larger than READ_LIMIT is only
    listed: reading a legal sparse file of 2 GB takes the kernel a minute (holes read as zeros),
    which is no hang of its own. Sizes as fsck's path lookup finds them."""
    out = []
    for c in COMMANDS:
        prog, _, arg = c.partition(" ")
        if prog in ("cat", "cksum") and arg.startswith("/") and " " not in arg:
            p = subprocess.run([str(BUILD / "fsck"), str(path), "--stat", arg], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, timeout=60)
            m = re.search(rb"^size (\d+)$", p.stdout, re.M)
            if m and int(m.group(1)) > READ_LIMIT:
                c = "ls " + arg
        out.append(c)
    return out


def boot_image(path, timeout, kernel=None, log=None):
    """Boots the image with commands_for(path); (console output, runqemu status)."""
    args = runqemu.command(kernel=kernel or BUILD / "kernel.elf", disk=path, timeout=timeout)
    p = subprocess.run(args, input="".join(c + "\n" for c in commands_for(path)).encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    if log:
        Path(log).write_text("# %s\n%s\n# exit status %d\n" % (" ".join(args), out, p.returncode))
    return out, p.returncode


def judge(before, path, out, rc, verdict):
    """(outcome, why, fsck after the boot, failure or '') for a boot of the image at path,
    which held before."""
    after = Path(path).read_bytes()
    outcome, why = classify(out, rc, before, after)
    post = run_fsck(path)[0] if outcome == "shell" else ""
    missing = missing_programs(path) if verdict == "ok" and outcome == "refused" else ()
    return outcome, why, post, agreement(outcome, verdict, post, missing)


def check_image(base, seed, kind, timeout, workdir, kernel=None, keep=None):
    """Damages, fscks, boots and judges one image: a dict for the CSV, and the console."""
    t0 = time.time()
    data, what, unclean = damage(base, kind, seed)
    path = Path(workdir) / ("img-%d-%s.img" % (seed, kind))
    path.write_bytes(data)
    verdict, fsck_out = run_fsck(path)
    log = Path(workdir) / ("img-%d-%s.log" % (seed, kind))
    out, rc = boot_image(path, timeout, kernel, log)
    outcome, why, post, fail = judge(data, path, out, rc, verdict)
    row = dict(seed=seed, kind=kind, mount="repair" if unclean else "clean", damage=what, fsck=verdict,
               outcome=outcome, fsck_after=post, fail=fail, message=why[:160],
               fsck_first=first_problem(fsck_out), seconds="%.1f" % (time.time() - t0))
    if fail and keep:
        keep.mkdir(parents=True, exist_ok=True)
        name = "%d-%s" % (seed, kind)
        (keep / (name + ".img")).write_bytes(data)
        shutil.copyfile(log, keep / (name + ".log"))
        (keep / (name + ".txt")).write_text("%s\nfsck: %s\noutcome: %s (%s)\nrerun: python3 tools/fuzz/imgfuzz.py --one %d %s\n"
                                            % (what, verdict, outcome, why, seed, kind))
    for p in (path, log):
        try:
            p.unlink()
        except OSError:
            pass
    return row, out


def first_problem(fsck_out):
    return next((l for l in fsck_out.splitlines() if not l.startswith("fsck: note")), "")[:160]


# --- the run ---------------------------------------------------------------------------------
FIELDS = ["seed", "kind", "mount", "damage", "fsck", "outcome", "fsck_after", "fail", "message", "fsck_first", "seconds"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", type=int, default=200, help="images to try (kinds in turn)")
    p.add_argument("--seed", type=int, default=1, help="the first image's seed; image k has seed+k")
    p.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds of damage")
    p.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    p.add_argument("--timeout", type=float, default=30, help="seconds a boot may take before it counts as a hang")
    p.add_argument("--csv", default=str(OUT / "imgfuzz.csv"))
    p.add_argument("--kernel", help="another kernel ELF (default build/kernel.elf)")
    p.add_argument("--one", nargs=2, metavar=("SEED", "KIND"), help="one image; its console and verdict shown")
    p.add_argument("--keep", help="with --one: write the damaged image here")
    a = p.parse_args()
    kinds = a.kinds.split(",")
    for k in kinds:
        if k not in KINDS:
            p.error("unknown kind %r (kinds: %s)" % (k, ", ".join(KINDS)))
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="imgfuzz-"))
    try:
        base = make_base(work)
        if a.one:
            seed, kind = int(a.one[0]), a.one[1]
            if a.keep:
                Path(a.keep).write_bytes(damage(base, kind, seed)[0])
            row, out = check_image(base, seed, kind, a.timeout, work, a.kernel)
            sys.stdout.write(out)
            for f in FIELDS:
                print("%-10s %s" % (f, row[f]))
            return 1 if row["fail"] else 0
        return run_many(a, base, kinds, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_many(a, base, kinds, work):
    failed_dir = OUT / "failed"
    shutil.rmtree(failed_dir, ignore_errors=True)
    jobs = [(a.seed + k, kinds[k % len(kinds)]) for k in range(a.n)]
    rows, lock, t0 = [], threading.Lock(), time.time()

    def one(job):
        try:
            row, _ = check_image(base, job[0], job[1], a.timeout, work, a.kernel, failed_dir)
        except Exception as e:      # the tool's own bug: shown as a failure, the run goes on
            row = dict(seed=job[0], kind=job[1], mount="", damage="", fsck="", outcome="tool-error",
                       fsck_after="", fail="tool error", message="%s: %s" % (type(e).__name__, e),
                       fsck_first="", seconds="0")
        with lock:
            rows.append(row)
            if row["fail"] or len(rows) % 10 == 0 or len(rows) == len(jobs):
                print("[%d/%d %.0f s] %s" % (len(rows), len(jobs), time.time() - t0,
                                             "seed %d %s: %s (%s; fsck %s): %s" % (
                                                 row["seed"], row["kind"], row["fail"].upper(), row["damage"],
                                                 row["fsck"], row["message"]) if row["fail"] else "so far: %s" % dict(
                                                     Counter(r["outcome"] for r in rows))), flush=True)
        return row

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        list(ex.map(one, jobs))
    rows.sort(key=lambda r: r["seed"])
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    summary(rows, kinds)
    print("%d images in %.0f s; rows in %s" % (len(rows), time.time() - t0, os.path.relpath(a.csv)))
    bad = [r for r in rows if r["fail"]]
    if bad:
        print("%d image(s) FAILED; kept in %s" % (len(bad), os.path.relpath(failed_dir)))
    return 1 if bad else 0


def summary(rows, kinds):
    outcomes = ["shell", "refused"] + list(BAD)
    print("%-9s %6s  %s  %s  %s" % ("kind", "images", " ".join("%7s" % o for o in outcomes),
                                     "fsck-ok fsck-dmg", "failed"))
    by = defaultdict(list)
    for r in rows:
        by[r["kind"]].append(r)
    for k in kinds + ["all"]:
        rs = rows if k == "all" else by[k]
        c = Counter(r["outcome"] for r in rs)
        v = Counter(r["fsck"] for r in rs)
        print("%-9s %6d  %s  %7d %8d  %6d" % (k, len(rs), " ".join("%7d" % c[o] for o in outcomes),
                                              v["ok"], v["damaged"], sum(1 for r in rs if r["fail"])))


if __name__ == "__main__":
    sys.exit(main())
