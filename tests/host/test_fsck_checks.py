"""fsck shown to fail: every check build/fsck makes, each made to fail by damaging one thing in a
good image, with fsck's status 1 and exactly the lines the damage must produce, each naming the
damaged thing (block, descriptor, path). A damage some other check sees as well lists that
check's line too (a file whose descriptor is damaged is not walked, so its block is leaked).

The checks (fs/layout.c fs_super_check, fs_desc_check; mkfs/fsck.c check, walk_desc,
walk_ind, walk_dir), and the test of each:

  superblock   too short, magic, version, checksum, block size, block count (low, high),
               bitmap start, bitmap size, descriptor area start and size, descriptor count,
               data start (placement, below the end), root, clean flag, free counts in range
                                                               test_superblock (parametrised)
               ("no more than the disk's blocks" is the kernel's mount's: fsck passes 0)
  image        shorter than the file system ........................ test_image_shorter
  bitmap       a metadata block marked free ........................ test_metadata_block_free
               a bit past the end of the disk clear ................ test_bit_past_the_end
               a block marked in use that no file uses (and > 10) .. test_leaked_blocks
               a block in use marked free (and > 10) ............... test_lost_blocks
  descriptors  descriptor 0 not zero ............................... test_descriptor_zero
               bad type, size beyond 2 GiB, directory size not a multiple of 32, direct,
               indirect, doubly-indirect pointer out of range, block count beyond the disk
                                                               test_bad_descriptor (parametrised)
               a block used by two descriptors ..................... test_block_used_twice
               a pointer in an indirect block out of range ......... test_indirect_pointer
               a block beyond the size (direct, indirect) .......... test_beyond_size_*
               block count disagrees ............................... test_block_count
               a directory with fewer blocks than its size ......... test_directory_hole
  tree         nesting deeper than 1000 ............................ test_nested_too_deeply
               a directory that cannot be read ..................... test_unreadable_directory
               an entry's bad name (unterminated, empty, '/') ...... test_bad_name (parametrised)
               an entry naming a descriptor out of range ........... test_entry_out_of_range
               an entry naming a free descriptor ................... test_entry_names_free
               a name twice in a directory ......................... test_name_twice
               '.' not the directory itself ........................ test_dot
               '..' not the parent ................................. test_dotdot
               a directory reached by a second path ................ test_second_path
               no '.' or no '..' entry ............................. test_missing_dot, _dotdot
               the root not a sound directory ...................... test_root_not_a_directory
               a descriptor in no directory ........................ test_orphan
               a link count that disagrees with the entries ........ test_link_count
               a directory named but never walked .................. test_bad_directory_is_not_walked
  counts       superblock free blocks, free descriptors (clean) .... test_free_counts

Not triggerable from an image: a read error of a block inside the file system (every block fsck
reads is checked in range first; a short image reads as zeros) and "out of memory"."""
import os
import re
import struct

import pytest

from test_mkfs import BSIZE, Image, fsck, mkfs, stat_of, good_image, host_tree  # noqa: F401

DIRENT = 32


def run_fsck(img):
    r = fsck(img)
    return r.returncode, r.stdout.decode()


def problems(img, *expect, exact=True):
    """fsck must fail; each expected regex must match one of its problem lines and, when exact,
    every problem line must be matched. Returns the problem lines."""
    rc, out = run_fsck(img)
    assert rc == 1, out
    lines = [l for l in out.splitlines() if not l.startswith("fsck: ")]
    summary = re.search(r"(?m)^fsck: .*: (\d+) problems?$", out)
    assert summary, out
    n = int(summary.group(1))
    assert n == len(lines) or (n > 200 and len(lines) == 200), (n, out[-2000:])
    matched = set()
    for rx in expect:
        hits = [i for i, l in enumerate(lines) if re.fullmatch(rx, l)]
        assert hits, "no line matches %r in:\n%s" % (rx, out[-3000:])
        matched.update(hits)
    if exact:
        extra = [lines[i] for i in range(len(lines)) if i not in matched]
        assert not extra, "unexpected lines %r in:\n%s" % (extra, out[-3000:])
    return lines


def ino(img, path):
    return stat_of(img, path)["ino"]


def entry_at(img, dirpath, name):
    """(image offset, entry index) of name's entry in a one-block directory."""
    im = Image(img)
    d = im.desc(ino(img, dirpath))
    raw = im.read(d["direct"][0] * BSIZE, BSIZE)
    for off in range(0, d["size"], DIRENT):
        e, n = struct.unpack_from("<I28s", raw, off)
        if e and n.split(b"\0")[0] == name.encode():
            return d["direct"][0] * BSIZE + off, off // DIRENT
    raise AssertionError("%s has no entry %s" % (dirpath, name))


def free_descriptor(im):
    return next(i for i in range(im.sb["ndesc"] - 1, 1, -1) if im.desc(i)["type"] == 0)


# Descriptor fields: offsets in the 128-byte descriptor.
TYPE, NLINK, SIZE, BLOCKS, DIRECT, INDIRECT, DINDIRECT = 0, 2, 4, 8, 16, 56, 60


# --- superblock ----------------------------------------------------------------------------

def sb_cases():
    # (id, fields to change, resealed, what the reason says); the image is 16 MB: 4096 blocks,
    # 1 bitmap block, 32 descriptor blocks (1024 descriptors), data from block 35.
    return [
        ("magic", {"magic": 0}, True, r"bad magic 0x0+ \(expected 0x53505246\)"),
        ("version", {"version": 2}, True, r"version is 2 \(expected 1\)"),
        ("checksum", {"free_blocks": 7}, False,
         r"superblock checksum 0x[0-9a-f]+ does not match its contents \(0x[0-9a-f]+\)"),
        ("block_size", {"block_size": 1024}, True, r"block size is 1024 \(expected 4096\)"),
        ("few_blocks", {"nblocks": 63}, True, r"block count is 63 \(expected at least 64\)"),
        ("many_blocks", {"nblocks": (1 << 20) + 1}, True, r"block count is 1048577 \(expected at most 1048576\)"),
        ("bitmap_start", {"bitmap_start": 3}, True, r"bitmap start is 3 \(expected 2\)"),
        ("bitmap_blocks", {"bitmap_blocks": 2}, True, r"bitmap block count is 2 \(expected 1\)"),
        ("desc_start", {"desc_start": 4}, True, r"descriptor area start is 4 \(expected 3\)"),
        ("desc_blocks", {"desc_blocks": 0}, True, r"descriptor block count is 0 \(expected at most 32768\)"),
        ("ndesc", {"ndesc": 1000}, True, r"descriptor count is 1000 \(expected 1024\)"),
        ("data_start", {"data_start": 36}, True, r"data start is 36 \(expected 35\)"),
        ("no_data_area", {"nblocks": 64, "desc_blocks": 61, "ndesc": 61 * 32, "data_start": 64,
                          "free_blocks": 0}, True,
         r"data start is 64 \(expected below the block count 64\)"),
        ("root", {"root": 2}, True, r"root descriptor is 2 \(expected 1\)"),
        ("clean", {"clean": 2}, True, r"clean flag is 2 \(expected 0 or 1\)"),
        ("free_blocks", {"free_blocks": 4096 - 35 + 1}, True, r"free block count is 4062 \(expected at most 4061\)"),
        ("free_descs", {"free_descs": 1023}, True, r"free descriptor count is 1023 \(expected at most 1022\)"),
    ]


@pytest.mark.parametrize("fields,reseal,why", [c[1:] for c in sb_cases()], ids=[c[0] for c in sb_cases()])
def test_superblock(good_image, fields, reseal, why):
    im = Image(good_image)
    assert (im.sb["nblocks"], im.sb["data_start"], im.sb["ndesc"]) == (4096, 35, 1024)
    im.set_super(reseal=reseal, **fields)
    rc, out = run_fsck(good_image)
    assert rc == 1 and re.fullmatch(r"fsck: %s: not a Sprite file system: %s\n" % (re.escape(str(good_image)), why), out), out


def test_superblock_too_short(tmp_path):
    short = tmp_path / "short.img"
    short.write_bytes(b"x" * 100)
    rc, out = run_fsck(short)
    assert rc == 1 and out == "fsck: %s: not a Sprite file system: too short for a superblock\n" % short, out


# --- image and bitmap ----------------------------------------------------------------------

def test_image_shorter(good_image):
    im = Image(good_image)
    assert im.bit(4095) == 0
    os.truncate(good_image, 4095 * BSIZE)
    problems(good_image, r"image is 4095 blocks long, shorter than the file system's 4096")


def test_metadata_block_free(good_image):
    Image(good_image).set_bit(20, 0)                # a descriptor block
    problems(good_image, r"metadata block 20 is marked free in the bitmap")


def test_bit_past_the_end(good_image):
    Image(good_image).set_bit(5000, 0)
    problems(good_image, r"bitmap bit 5000 \(past the end of the disk\) is clear")


def test_leaked_blocks(good_image):
    im = Image(good_image)
    free = [b for b in range(4095, 4095 - 12, -1)]
    assert not any(im.bit(b) for b in free)
    im.set_bit(free[0], 1)
    problems(good_image, r"block 4095 is marked in use but no file uses it",
             r"superblock says (\d+) free blocks, the bitmap \d+")
    for b in free[1:]:
        im.set_bit(b, 1)
    problems(good_image, *[r"block %d is marked in use but no file uses it" % b for b in sorted(free)[:10]],
             r"\.\.\. 12 blocks in all are marked in use but unused", r"superblock says \d+ free blocks, the bitmap \d+")


def test_lost_blocks(good_image):
    im = Image(good_image)
    a = ino(good_image, "/data/a.txt")
    ba = im.desc(a)["direct"][0]
    im.set_bit(ba, 0)
    problems(good_image, r"block %d is used by descriptor %d but marked free" % (ba, a),
             r"superblock says \d+ free blocks, the bitmap \d+")
    im.set_bit(ba, 1)
    big = ino(good_image, "/data/big")
    blocks = im.desc(big)["direct"] + [im.desc(big)["indirect"]]
    for b in blocks:
        im.set_bit(b, 0)
    problems(good_image, *[r"block %d is used by descriptor %d but marked free" % (b, big) for b in sorted(blocks)[:10]],
             r"\.\.\. 11 blocks in all are used but marked free", r"superblock says \d+ free blocks, the bitmap \d+")


def test_free_counts(good_image):
    im = Image(good_image)
    fb, fd = im.sb["free_blocks"], im.sb["free_descs"]
    im.set_super(free_blocks=fb - 1)
    problems(good_image, r"superblock says %d free blocks, the bitmap %d" % (fb - 1, fb))
    im.set_super(free_blocks=fb + 1)
    problems(good_image, r"superblock says %d free blocks, the bitmap %d" % (fb + 1, fb))
    im.set_super(free_blocks=fb, free_descs=fd - 1)
    problems(good_image, r"superblock says %d free descriptors, there are %d" % (fd - 1, fd))
    im.set_super(free_descs=fd + 1)     # too many is wrong too, not only too few
    problems(good_image, r"superblock says %d free descriptors, there are %d" % (fd + 1, fd))


# --- descriptors ---------------------------------------------------------------------------

def test_descriptor_zero(good_image):
    im = Image(good_image)
    im.write(im.desc_off(0) + 100, b"\x01")
    problems(good_image, r"descriptor 0 \(never used\) is not zero")


@pytest.mark.parametrize("field,fmt,value,why", [
    (TYPE, "<H", 9, "bad type"),
    (SIZE, "<I", 0x80000000, "size beyond 2 GiB"),
    (DIRECT + 4, "<I", 4096 + 5, "direct block pointer out of range"),
    (INDIRECT, "<I", 3, "indirect block pointer out of range"),
    (DINDIRECT, "<I", 4096, "doubly-indirect block pointer out of range"),
    (BLOCKS, "<I", 5000, "block count larger than the disk"),
], ids=["type", "size", "direct", "indirect", "dindirect", "blocks"])
def test_bad_descriptor(good_image, field, fmt, value, why):
    """A damaged descriptor is named and its blocks are not walked: its one block is leaked."""
    im = Image(good_image)
    a = ino(good_image, "/data/a.txt")
    d = im.desc(a)
    im.set_desc_field(a, fmt, field, value)
    t, size = (value, 6) if field == TYPE else (1, value) if field == SIZE else (1, 6)
    problems(good_image, r"descriptor %d: %s \(type %d, size %d\)" % (a, why, t, size),
             r"block %d is marked in use but no file uses it" % d["direct"][0])


def test_bad_directory_is_not_walked(good_image):
    """A directory size not a multiple of 32: named by /data but never walked, so its own '.'
    and '..' go uncounted, and its block is leaked."""
    im = Image(good_image)
    e, data = ino(good_image, "/data/emptydir"), ino(good_image, "/data")
    be = im.desc(e)["direct"][0]
    im.set_desc_field(e, "<I", SIZE, 33)
    problems(good_image, r"descriptor %d: directory size not a multiple of 32 \(type 2, size 33\)" % e,
             r"directory %d is named only by entries of unreachable directories" % e,
             r"block %d is marked in use but no file uses it" % be,
             r"descriptor %d: link count 2, but 1 directory entries name it" % e,
             r"descriptor %d: link count 4, but 3 directory entries name it" % data)


def test_block_used_twice(good_image):
    im = Image(good_image)
    a, c = ino(good_image, "/data/a.txt"), ino(good_image, "/data/sub/deeper/c")
    ba, bc = im.desc(a)["direct"][0], im.desc(c)["direct"][0]
    im.set_desc_field(c, "<I", DIRECT, ba)
    problems(good_image, r"block %d is used by descriptor %d and by descriptor %d" % (ba, min(a, c), max(a, c)),
             r"block %d is marked in use but no file uses it" % bc)


def test_indirect_pointer(good_image):
    im = Image(good_image)
    big = ino(good_image, "/data/big")
    d = im.desc(big)
    old = struct.unpack("<I", im.read(d["indirect"] * BSIZE + 4 * 5, 4))[0]
    im.write(d["indirect"] * BSIZE + 4 * 5, struct.pack("<I", 3))
    problems(good_image, r"descriptor %d: pointer 3 in block %d is out of range" % (big, d["indirect"]),
             r"descriptor %d: block count %d, but it uses %d blocks" % (big, d["blocks"], d["blocks"] - 1),
             r"block %d is marked in use but no file uses it" % old)


def test_beyond_size_direct(good_image):
    im = Image(good_image)
    c = ino(good_image, "/data/sub/deeper/c")
    im.set_desc_field(c, "<I", SIZE, 0)
    problems(good_image, r"descriptor %d: block %d at file block 0 lies beyond its size" % (c, im.desc(c)["direct"][0]))


def test_beyond_size_indirect(good_image):
    """b.bin has 13 blocks, 3 of them through its indirect block."""
    im = Image(good_image)
    b = ino(good_image, "/data/sub/b.bin")
    d = im.desc(b)
    slots = struct.unpack("<3I", im.read(d["indirect"] * BSIZE, 12))
    im.set_desc_field(b, "<I", SIZE, 11 * BSIZE)
    problems(good_image, r"descriptor %d: block %d at file block 11 lies beyond its size" % (b, slots[1]),
             r"descriptor %d: block %d at file block 12 lies beyond its size" % (b, slots[2]))


def test_block_count(good_image):
    im = Image(good_image)
    c = ino(good_image, "/data/sub/deeper/c")
    im.set_desc_field(c, "<I", BLOCKS, 2)
    problems(good_image, r"descriptor %d: block count 2, but it uses 1 blocks" % c)


def test_directory_hole(good_image):
    im = Image(good_image)
    sub = ino(good_image, "/data/sub")
    im.set_desc_field(sub, "<I", SIZE, 2 * BSIZE)
    problems(good_image, r"directory %d: its size \(8192 bytes\) needs 2 blocks, but only 1 are mapped" % sub)


# --- the tree ------------------------------------------------------------------------------

def add_chain(img, n):
    """Hangs a chain of n nested directories /d/d/... off the root, as mkfs would make it
    (mkfs itself stops at 64 levels); returns the descriptors, outermost first."""
    im = Image(img)
    sb = im.sb
    bitmap = bytearray(im.read(sb["bitmap_start"] * BSIZE, BSIZE))
    blocks = [b for b in range(sb["data_start"], sb["nblocks"]) if not bitmap[b // 8] >> (b % 8) & 1][:n]
    descs = [i for i in range(2, sb["ndesc"]) if im.desc(i)["type"] == 0][:n]
    assert len(blocks) == n and len(descs) == n
    root = im.desc(1)
    for k, (i, b) in enumerate(zip(descs, blocks)):
        parent = descs[k - 1] if k else 1
        ents = [(i, "."), (parent, "..")] + ([(descs[k + 1], "d")] if k + 1 < n else [])
        im.write(b * BSIZE, b"".join(struct.pack("<I28s", e, nm.encode()) for e, nm in ents))
        im.write(im.desc_off(i), struct.pack("<HHIII10I", 2, 1 + len(ents) - 1, DIRENT * len(ents), 1, 0, b, *[0] * 9))
        bitmap[b // 8] |= 1 << (b % 8)
    im.write(sb["bitmap_start"] * BSIZE, bytes(bitmap))
    im.write(root["direct"][0] * BSIZE + root["size"], struct.pack("<I28s", descs[0], b"d"))
    im.set_desc_field(1, "<I", SIZE, root["size"] + DIRENT)
    im.set_desc_field(1, "<H", NLINK, root["nlink"] + 1)
    im.set_super(free_blocks=sb["free_blocks"] - n, free_descs=sb["free_descs"] - n)
    return descs


def test_nested_too_deeply(tmp_path):
    """fsck walks 1000 levels of directories and no more (its recursion's bound): the 1001st is
    named, and what it would have counted (its own '.' and its '..') is missing."""
    ok = tmp_path / "ok.img"
    mkfs("-o", ok, "-s", "32")
    add_chain(ok, 1000)
    rc, out = run_fsck(ok)
    assert rc == 0, out[-2000:]
    deep = tmp_path / "deep.img"
    mkfs("-o", deep, "-s", "32")
    descs = add_chain(deep, 1001)
    problems(deep, r"%s: directories nested too deeply" % ("/d" * 1001),
             r"descriptor %d: link count 2, but 1 directory entries name it" % descs[-1],
             r"descriptor %d: link count 3, but 2 directory entries name it" % descs[-2])


def test_unreadable_directory(tmp_path):
    """A directory big enough for an indirect block, one pointer in it out of range: the
    directory cannot be read (so none of its files is reached)."""
    d = tmp_path / "many"
    d.mkdir()
    for i in range(1300):
        (d / ("f%d" % i)).write_bytes(b"")
    img = tmp_path / "fs.img"
    mkfs("-o", img, "-s", "32", d)
    im = Image(img)
    many = ino(img, "/many")
    desc = im.desc(many)
    bad = im.sb["nblocks"] + 9
    im.write(desc["indirect"] * BSIZE, struct.pack("<I", bad))
    ind = desc["indirect"]
    problems(img, r"/many: cannot read directory: block pointer %d out of range \(in block %d\)" % (bad, ind),
             r"descriptor %d: pointer %d in block %d is out of range" % (many, bad, ind),
             r"descriptor %d: block count 12, but it uses 11 blocks" % many,
             r"directory %d: its size \(41664 bytes\) needs 11 blocks, but only 10 are mapped" % many,
             exact=False)


@pytest.mark.parametrize("name", [b"x" * 28, b"", b"a/b"], ids=["unterminated", "empty", "slash"])
def test_bad_name(good_image, name):
    off, i = entry_at(good_image, "/data", "a.txt")
    a = ino(good_image, "/data/a.txt")
    Image(good_image).write(off + 4, name.ljust(28, b"\0")[:28])
    problems(good_image, r"/data: entry %d has a bad name" % i,
             r"descriptor %d \(file, 6 bytes\) is allocated but in no directory" % a)


def test_entry_out_of_range(good_image):
    off, _ = entry_at(good_image, "/data", "a.txt")
    a = ino(good_image, "/data/a.txt")
    Image(good_image).write(off, struct.pack("<I", 5000))
    problems(good_image, r"/data: entry 'a.txt' names descriptor 5000, out of range",
             r"descriptor %d \(file, 6 bytes\) is allocated but in no directory" % a)


def test_entry_names_free(good_image):
    im = Image(good_image)
    off, _ = entry_at(good_image, "/data", "a.txt")
    a, f = ino(good_image, "/data/a.txt"), free_descriptor(im)
    im.write(off, struct.pack("<I", f))
    problems(good_image, r"/data: entry 'a.txt' names free descriptor %d" % f,
             r"descriptor %d \(file, 6 bytes\) is allocated but in no directory" % a)


def test_name_twice(good_image):
    off, _ = entry_at(good_image, "/data", "empty")
    Image(good_image).write(off + 4, b"a.txt".ljust(28, b"\0"))
    problems(good_image, r"/data: name 'a.txt' appears twice")


def test_dot(good_image):
    sub, data = ino(good_image, "/data/sub"), ino(good_image, "/data")
    off, _ = entry_at(good_image, "/data/sub", ".")
    Image(good_image).write(off, struct.pack("<I", data))
    problems(good_image, r"/data/sub: '\.' names descriptor %d, not itself \(%d\)" % (data, sub),
             r"descriptor %d: link count 4, but 5 directory entries name it" % data,
             r"descriptor %d: link count 3, but 2 directory entries name it" % sub)


def test_dotdot(good_image):
    data = ino(good_image, "/data")
    off, _ = entry_at(good_image, "/data/sub", "..")
    Image(good_image).write(off, struct.pack("<I", 1))
    problems(good_image, r"/data/sub: '\.\.' names descriptor 1, not its parent \(%d\)" % data,
             r"descriptor 1: link count 6, but 7 directory entries name it",
             r"descriptor %d: link count 4, but 3 directory entries name it" % data)


def test_second_path(good_image):
    sub, empty = ino(good_image, "/data/sub"), ino(good_image, "/data/empty")
    off, _ = entry_at(good_image, "/data", "empty")
    Image(good_image).write(off, struct.pack("<I", sub))
    problems(good_image, r"/data/(empty|sub): directory %d is reached by a second path" % sub,
             r"descriptor %d: link count 3, but 4 directory entries name it" % sub,
             r"descriptor %d \(file, 0 bytes\) is allocated but in no directory" % empty)


def test_missing_dot(good_image):
    e = ino(good_image, "/data/emptydir")
    off, _ = entry_at(good_image, "/data/emptydir", ".")
    Image(good_image).write(off, bytes(4))
    problems(good_image, r"/data/emptydir: 0 '\.' entries \(expected 1\)",
             r"descriptor %d: link count 2, but 1 directory entries name it" % e)


def test_missing_dotdot(good_image):
    data = ino(good_image, "/data")
    off, _ = entry_at(good_image, "/data/emptydir", "..")
    Image(good_image).write(off, bytes(4))
    problems(good_image, r"/data/emptydir: 0 '\.\.' entries \(expected 1\)",
             r"descriptor %d: link count 4, but 3 directory entries name it" % data)


def test_root_not_a_directory(good_image):
    """Nothing is reached then: every other descriptor is in no directory."""
    a = ino(good_image, "/data/a.txt")
    Image(good_image).set_desc_field(1, "<H", TYPE, 1)
    lines = problems(good_image, r"the root \(descriptor 1\) is not a sound directory",
                     r"descriptor %d \(file, 6 bytes\) is allocated but in no directory" % a, exact=False)
    assert all(re.fullmatch(r"(the root .*|descriptor \d+ \((file|dir), \d+ bytes\) is allocated but in no directory)", l)
               for l in lines), lines


def test_orphan(good_image):
    off, _ = entry_at(good_image, "/data", "a.txt")
    a = ino(good_image, "/data/a.txt")
    Image(good_image).write(off, bytes(DIRENT))
    problems(good_image, r"descriptor %d \(file, 6 bytes\) is allocated but in no directory" % a)


def test_link_count(good_image):
    b = ino(good_image, "/data/sub/b.bin")
    Image(good_image).set_desc_field(b, "<H", NLINK, 5)
    problems(good_image, r"descriptor %d: link count 5, but 1 directory entries name it" % b)
