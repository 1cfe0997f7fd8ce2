"""mkfs and fsck on the host: argument checking, round trips, and corruption detection.

Uses build/mkfs, build/fsck and build/tests/test_layout as built by `make` (nothing is built
here). The on-disk format is in fs/layout.h; the few offsets this file needs are below.
"""
import os
import struct
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
MKFS = os.path.join(BUILD, "mkfs")
FSCK = os.path.join(BUILD, "fsck")
TEST_LAYOUT = os.path.join(BUILD, "tests", "test_layout")

BSIZE = 4096
SUPER_FIELDS = ("magic version block_size nblocks bitmap_start bitmap_blocks desc_start "
                "desc_blocks ndesc data_start root clean free_blocks free_descs mounts "
                "checksum").split()
DESC_SIZE = 128


def need(path):
    if not os.path.exists(path):
        pytest.fail("%s is missing: run make first" % os.path.relpath(path, ROOT))
    return path


def run(*args, check=None):
    r = subprocess.run([str(a) for a in args], capture_output=True, timeout=120)
    if check is not None:
        assert r.returncode == check, (args, r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    return r


def mkfs(*args, check=0):
    return run(need(MKFS), *args, check=check)


def fsck(*args, check=None):
    return run(need(FSCK), *args, check=check)


def fnv1a(data):
    h = 2166136261
    for b in data:
        h ^= b
        h = (h * 16777619) & 0xFFFFFFFF
    return h


class Image:
    """Just enough of the format to damage an image on purpose."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            f.seek(BSIZE)
            raw = f.read(4 * len(SUPER_FIELDS))
        self.sb = dict(zip(SUPER_FIELDS, struct.unpack("<%dI" % len(SUPER_FIELDS), raw)))

    def read(self, off, n):
        with open(self.path, "rb") as f:
            f.seek(off)
            return f.read(n)

    def write(self, off, data):
        with open(self.path, "r+b") as f:
            f.seek(off)
            f.write(data)

    def set_super(self, reseal=True, **fields):
        self.sb.update(fields)
        vals = [self.sb[k] for k in SUPER_FIELDS]
        raw = struct.pack("<%dI" % len(SUPER_FIELDS), *vals)
        if reseal:
            raw = raw[:-4] + struct.pack("<I", fnv1a(raw[:-4]))
        self.write(BSIZE, raw)

    def desc_off(self, ino):
        return (self.sb["desc_start"] + ino // 32) * BSIZE + (ino % 32) * DESC_SIZE

    def desc(self, ino):
        raw = self.read(self.desc_off(ino), 64)
        t, nlink, size, blocks, mtime = struct.unpack("<HHIII", raw[:16])
        ptrs = struct.unpack("<12I", raw[16:64])
        return dict(type=t, nlink=nlink, size=size, blocks=blocks, mtime=mtime,
                    direct=list(ptrs[:10]), indirect=ptrs[10], dindirect=ptrs[11])

    def set_desc_field(self, ino, fmt, offset, value):
        self.write(self.desc_off(ino) + offset, struct.pack(fmt, value))

    def bit(self, b):
        byte = self.read(self.sb["bitmap_start"] * BSIZE + b // 8, 1)[0]
        return (byte >> (b % 8)) & 1

    def set_bit(self, b, v):
        off = self.sb["bitmap_start"] * BSIZE + b // 8
        byte = self.read(off, 1)[0]
        byte = (byte | (1 << (b % 8))) if v else (byte & ~(1 << (b % 8)))
        self.write(off, bytes([byte]))


def stat_of(img, path):
    out = fsck(img, "--stat", path, check=0).stdout.decode()
    return {k: (int(v) if v.isdigit() else v) for k, v in (l.split() for l in out.splitlines())}


def fs_stats(img):
    out = fsck(img, "--stat", check=0).stdout.decode()
    return {k: int(v) for k, v in (l.split() for l in out.splitlines())}


def ls(img, path):
    out = fsck(img, "--ls", path, check=0).stdout.decode()
    rows = {}
    for line in out.splitlines():
        t, size, name = line.split(None, 2)
        rows[name] = (t, int(size))
    return rows


def blocks_for(size):
    """Blocks a file written from start to end occupies, indirect blocks included."""
    data = (size + BSIZE - 1) // BSIZE
    n = data
    if data > 10:
        n += 1
    if data > 10 + 1024:
        n += 1 + (data - 10 - 1024 + 1023) // 1024
    return n


def pattern(n, seed):
    # Position-dependent bytes, so a block put in the wrong place shows.
    out = bytearray()
    i = 0
    while len(out) < n:
        out += struct.pack("<II", seed, i)
        i += 1
    return bytes(out[:n])


# --- the C unit tests ----------------------------------------------------------------------

def test_layout_unit():
    r = run(need(TEST_LAYOUT))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    assert b"0 failures" in r.stdout


# --- arguments -----------------------------------------------------------------------------

def test_help():
    r = mkfs("-h")
    assert b"usage: mkfs -o IMAGE -s SIZE_MB" in r.stdout
    r = fsck("-h", check=0)
    assert b"usage: fsck IMAGE" in r.stdout


@pytest.fixture
def host_tree(tmp_path):
    d = tmp_path / "data"
    (d / "sub" / "deeper").mkdir(parents=True)
    (d / "a.txt").write_bytes(b"hello\n")
    (d / "empty").write_bytes(b"")
    (d / "sub" / "b.bin").write_bytes(pattern(50000, 2))
    (d / "sub" / "deeper" / "c").write_bytes(b"c" * 4096)
    (d / "emptydir").mkdir()
    return d


def bad_args(tmp_path, args, words):
    img = tmp_path / "bad.img"
    r = mkfs(*(["-o", img] + list(args)), check=None)
    err = r.stderr.decode()
    assert r.returncode != 0, args
    assert err.startswith("mkfs: "), err
    assert err.count("\n") == 1, "one line: %r" % err
    for w in words:
        assert w in err, (w, err)
    assert not img.exists(), "a failed mkfs left %s behind" % img
    return err


def test_refuses_bad_arguments(tmp_path, host_tree):
    bad_args(tmp_path, ["-s", "8", "-x"], ["unknown option -x"])
    bad_args(tmp_path, ["-s"], ["-s needs a value"])
    bad_args(tmp_path, [], ["-s SIZE_MB is required"])
    bad_args(tmp_path, ["-s", "abc"], ["not a number"])
    bad_args(tmp_path, ["-s", "8MB"], ["not a number"])
    bad_args(tmp_path, ["-s", "-3"], ["not a number"])
    bad_args(tmp_path, ["-s", "0"], ["too small"])
    bad_args(tmp_path, ["-s", "5000"], ["too big"])
    bad_args(tmp_path, ["-s", "8", tmp_path / "nonexistent"], ["nonexistent", "No such file"])
    bad_args(tmp_path, ["-s", "8", "-b", tmp_path / "nobin"], ["nobin"])


def test_refuses_missing_image_option(tmp_path):
    r = mkfs("-s", "8", check=None)
    assert r.returncode != 0
    assert b"-o IMAGE is required" in r.stderr


def test_refuses_long_names(tmp_path):
    long = tmp_path / ("x" * 28)
    long.write_bytes(b"1")
    bad_args(tmp_path, ["-s", "8", long], ["name too long", "x" * 28])
    ok = tmp_path / ("y" * 27)
    ok.write_bytes(b"1")
    img = tmp_path / "ok.img"
    mkfs("-o", img, "-s", "8", ok)
    assert ls(img, "/")["y" * 27] == ("file", 1)
    # Inside a folder, too.
    d = tmp_path / "d"
    d.mkdir()
    (d / ("z" * 30)).write_bytes(b"2")
    bad_args(tmp_path, ["-s", "8", d], ["name too long"])


def test_refuses_collisions(tmp_path):
    a = tmp_path / "a"
    b = tmp_path / "b"
    (a).mkdir()
    (b).mkdir()
    (a / "same").write_bytes(b"1")
    (b / "same").write_bytes(b"2")
    bad_args(tmp_path, ["-s", "8", a / "same", b / "same"], ["name collision", "same"])
    (a / "bin").write_bytes(b"3")
    bad_args(tmp_path, ["-s", "8", a / "bin"], ["name collision", "bin"])


def test_refuses_when_full(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(pattern(2 * 1024 * 1024, 1))
    bad_args(tmp_path, ["-s", "1", big], ["image full"])


# --- round trips ---------------------------------------------------------------------------

def test_round_trip(tmp_path, host_tree):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "prog1").write_bytes(pattern(12345, 7))
    (bindir / "prog2").write_bytes(b"\x7fELF" + bytes(100))
    (bindir / "subfolder").mkdir()       # skipped: only regular files go to /bin
    single = tmp_path / "single.txt"
    single.write_bytes(b"one file\n")
    img = tmp_path / "fs.img"
    mkfs("-o", img, "-s", "16", "-b", bindir, host_tree, single)
    r = fsck(img, check=0)
    assert b"ok" in r.stdout

    root = ls(img, "/")
    assert set(root) == {"bin", "tmp", "swap", "data", "single.txt"}
    assert root["bin"][0] == "dir" and root["tmp"][0] == "dir" and root["data"][0] == "dir"
    assert set(ls(img, "/bin")) == {"prog1", "prog2"}
    assert ls(img, "/tmp") == {}
    assert set(ls(img, "/data")) == {"a.txt", "empty", "sub", "emptydir"}
    assert set(ls(img, "/data/sub")) == {"b.bin", "deeper"}

    for rel in ["a.txt", "empty", "sub/b.bin", "sub/deeper/c"]:
        got = fsck(img, "--cat", "/data/" + rel, check=0).stdout
        assert got == (host_tree / rel).read_bytes(), rel
    assert fsck(img, "--cat", "/single.txt", check=0).stdout == b"one file\n"
    assert fsck(img, "--cat", "/bin/prog1", check=0).stdout == pattern(12345, 7)

    # Link counts: a directory has 2 + its subdirectories.
    assert stat_of(img, "/")["nlink"] == 2 + 4      # bin, tmp, swap, data
    assert stat_of(img, "/data")["nlink"] == 2 + 2
    assert stat_of(img, "/data/sub/deeper")["nlink"] == 2
    assert stat_of(img, "/data/a.txt")["nlink"] == 1
    assert stat_of(img, "/data/empty")["blocks"] == 0

    st = fs_stats(img)
    assert st["clean"] == 1
    assert st["free_blocks"] == st["sb_free_blocks"]
    assert st["free_descriptors"] == st["sb_free_descriptors"]
    # 4 dirs at the root level + 2 + 2 files/dirs ...: every used descriptor is counted.
    assert st["descriptors_total"] - st["free_descriptors"] == 1 + 3 + 2 + 4 + 2 + 1 + 1 + 1


@pytest.mark.parametrize("size", [
    0, 1, 4095, 4096, 4097,
    10 * BSIZE,                       # exactly the direct blocks
    10 * BSIZE + 1,                   # first byte through the indirect block
    1034 * BSIZE,                     # exactly direct + indirect
    1034 * BSIZE + 1,                 # first byte through the doubly-indirect block
    (1034 + 1024) * BSIZE + 1,        # into the second second-level block
    5 * 1024 * 1024 + 123,
])
def test_file_sizes(tmp_path, size):
    f = tmp_path / "f"
    data = pattern(size, size)
    f.write_bytes(data)
    img = tmp_path / "fs.img"
    mkfs("-o", img, "-s", "16", f)
    fsck(img, check=0)
    assert fsck(img, "--cat", "/f", check=0).stdout == data
    st = stat_of(img, "/f")
    assert st["size"] == size
    assert st["blocks"] == blocks_for(size)
    assert st["type"] == "file"


def test_image_is_sparse_and_sized(tmp_path, host_tree):
    img = tmp_path / "fs.img"
    mkfs("-o", img, "-s", "256", host_tree)
    s = os.stat(img)
    assert s.st_size == 256 * 1024 * 1024
    assert s.st_blocks * 512 < 2 * 1024 * 1024, "only used blocks are written"
    st = fs_stats(img)
    assert st["blocks_total"] == 65536


def test_overwrites_existing_image(tmp_path, host_tree):
    img = tmp_path / "fs.img"
    img.write_bytes(b"junk" * 100000)
    mkfs("-o", img, "-s", "4", host_tree)
    fsck(img, check=0)
    assert os.path.getsize(img) == 4 * 1024 * 1024


def test_reproducible(tmp_path, host_tree):
    a, b = tmp_path / "a.img", tmp_path / "b.img"
    mkfs("-o", a, "-s", "8", host_tree)
    mkfs("-o", b, "-s", "8", host_tree)
    assert a.read_bytes() == b.read_bytes()


def test_fsck_reading_errors(tmp_path, host_tree):
    img = tmp_path / "fs.img"
    mkfs("-o", img, "-s", "8", host_tree)
    r = fsck(img, "--cat", "/data/nothing")
    assert r.returncode != 0 and b"no such file" in r.stderr
    r = fsck(img, "--cat", "/data/sub")
    assert r.returncode != 0 and b"not a regular file" in r.stderr
    r = fsck(img, "--bogus")
    assert r.returncode != 0
    r = fsck(tmp_path / "missing.img")
    assert r.returncode != 0
    assert ls(img, "/data/a.txt") == {"/data/a.txt": ("file", 6)}


# --- fsck finds damage ---------------------------------------------------------------------

@pytest.fixture
def good_image(tmp_path, host_tree):
    img = tmp_path / "fs.img"
    big = host_tree / "big"
    big.write_bytes(pattern(1100 * BSIZE, 9))      # direct, indirect and doubly-indirect
    mkfs("-o", img, "-s", "16", host_tree)
    fsck(img, check=0)
    return img


def damaged(img, *words):
    r = fsck(img)
    out = r.stdout.decode()
    assert r.returncode != 0, out
    for w in words:
        assert w in out, (w, out)
    return out


def test_fsck_bad_magic(good_image):
    Image(good_image).write(BSIZE, b"\0\0\0\0")
    damaged(good_image, "not a Sprite file system", "bad magic 0x00000000")


def test_fsck_checksum(good_image):
    im = Image(good_image)
    im.set_super(reseal=False, free_blocks=im.sb["free_blocks"] - 1)
    damaged(good_image, "checksum")


def test_fsck_zero_image(tmp_path):
    img = tmp_path / "zero.img"
    img.write_bytes(bytes(1024 * 1024))
    damaged(img, "bad magic")
    short = tmp_path / "short.img"
    short.write_bytes(b"x" * 100)
    damaged(short, "too short")


def test_fsck_free_count(good_image):
    im = Image(good_image)
    im.set_super(free_blocks=im.sb["free_blocks"] - 1)
    damaged(good_image, "free blocks")


def test_fsck_block_marked_free(good_image):
    im = Image(good_image)
    ino = stat_of(good_image, "/data/a.txt")["ino"]
    b = im.desc(ino)["direct"][0]
    assert im.bit(b) == 1
    im.set_bit(b, 0)
    damaged(good_image, "block %d is used by descriptor %d but marked free" % (b, ino))


def test_fsck_leaked_block(good_image):
    im = Image(good_image)
    b = im.sb["nblocks"] - 1
    assert im.bit(b) == 0
    im.set_bit(b, 1)
    damaged(good_image, "block %d is marked in use but no file uses it" % b)


def test_fsck_link_count(good_image):
    im = Image(good_image)
    ino = stat_of(good_image, "/data/sub/b.bin")["ino"]
    im.set_desc_field(ino, "<H", 2, 5)
    damaged(good_image, "descriptor %d: link count 5, but 1 directory entries name it" % ino)


def test_fsck_block_count(good_image):
    im = Image(good_image)
    ino = stat_of(good_image, "/data/big")["ino"]
    im.set_desc_field(ino, "<I", 8, 3)
    damaged(good_image, "descriptor %d: block count 3" % ino)


def test_fsck_size_too_small(good_image):
    im = Image(good_image)
    ino = stat_of(good_image, "/data/big")["ino"]
    im.set_desc_field(ino, "<I", 4, 100)
    damaged(good_image, "beyond its size")


def test_fsck_pointer_out_of_range(good_image):
    im = Image(good_image)
    ino = stat_of(good_image, "/data/sub/b.bin")["ino"]
    im.set_desc_field(ino, "<I", 16 + 4 * 3, im.sb["nblocks"] + 7)
    damaged(good_image, "descriptor %d" % ino, "out of range")


def test_fsck_pointer_in_indirect_block(good_image):
    im = Image(good_image)
    d = im.desc(stat_of(good_image, "/data/big")["ino"])
    im.write(d["indirect"] * BSIZE + 4 * 5, struct.pack("<I", 3))   # a metadata block
    damaged(good_image, "pointer 3 in block %d is out of range" % d["indirect"])


def test_fsck_shared_block(good_image):
    im = Image(good_image)
    a = stat_of(good_image, "/data/a.txt")["ino"]
    c = stat_of(good_image, "/data/sub/deeper/c")["ino"]
    shared = im.desc(a)["direct"][0]
    im.set_desc_field(c, "<I", 16, shared)
    damaged(good_image, "block %d is used by descriptor" % shared)


def test_fsck_entry_names_free_descriptor(good_image):
    im = Image(good_image)
    ino = stat_of(good_image, "/data/a.txt")["ino"]
    im.set_desc_field(ino, "<H", 0, 0)         # the type: free
    damaged(good_image, "names free descriptor %d" % ino)


def test_fsck_bad_type(good_image):
    im = Image(good_image)
    ino = stat_of(good_image, "/data/a.txt")["ino"]
    im.set_desc_field(ino, "<H", 0, 9)
    damaged(good_image, "descriptor %d: bad type" % ino)


def test_fsck_orphan(good_image):
    im = Image(good_image)
    # Clear the directory entry of /data/a.txt: its descriptor is then in no directory.
    data = im.desc(stat_of(good_image, "/data")["ino"])
    ino = stat_of(good_image, "/data/a.txt")["ino"]
    blk = data["direct"][0] * BSIZE
    raw = im.read(blk, BSIZE)
    for off in range(0, BSIZE, 32):
        if struct.unpack("<I", raw[off:off + 4])[0] == ino:
            im.write(blk + off, bytes(32))
            break
    else:
        pytest.fail("entry not found")
    damaged(good_image, "descriptor %d (file, 6 bytes) is allocated but in no directory" % ino)


def test_fsck_dotdot(good_image):
    im = Image(good_image)
    sub = im.desc(stat_of(good_image, "/data/sub")["ino"])
    # Entry 1 of every directory is "..": point it at the root instead of /data.
    im.write(sub["direct"][0] * BSIZE + 32, struct.pack("<I", 1))
    damaged(good_image, "/data/sub: '..' names descriptor 1")


def test_fsck_unclean_is_only_a_note(good_image):
    im = Image(good_image)
    im.set_super(clean=0, free_blocks=0)
    r = fsck(good_image, check=0)
    assert b"not cleanly unmounted" in r.stdout


def test_fsck_copies_files_out(good_image, tmp_path, host_tree):
    out = tmp_path / "out"
    r = fsck(good_image, "--get", "/data", str(out))
    assert r.returncode == 0, r.stderr
    for p in host_tree.rglob("*"):
        q = out / p.relative_to(host_tree)
        if p.is_file():
            assert q.read_bytes() == p.read_bytes(), p
        else:
            assert q.is_dir(), p
    one = tmp_path / "one"
    assert fsck(good_image, "--get", "/data/a.txt", str(one)).returncode == 0
    assert one.read_bytes() == (host_tree / "a.txt").read_bytes()


def test_fsck_dump_streams_the_tree_get_copies(good_image, tmp_path, host_tree):
    """--dump: the tree --get copies, as one stream on stdout (the crash checker's reader),
    every file's bytes and every directory, nothing else."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "crash"))
    from crashcheck import read_tree
    tree, rc, err = read_tree(good_image, ["/data"])
    assert rc == 0, err
    want = {"/data": None}
    for p in host_tree.rglob("*"):
        want["/data/" + str(p.relative_to(host_tree))] = p.read_bytes() if p.is_file() else None
    assert tree == want
    r = fsck(good_image, "--dump", "/data/a.txt", check=None)
    assert r.stdout == b"f . %d\n" % len(want["/data/a.txt"]) + want["/data/a.txt"]
    assert read_tree(good_image, ["/nothing"])[0] == {}


@pytest.mark.parametrize("seed", range(6))
def test_fsck_never_crashes_on_random_damage(good_image, seed):
    """Random bytes over the superblock's neighbours, bitmap, descriptors and directories:
    fsck reports (exit 0 or 1), it never crashes or hangs, and neither do its readers."""
    import random
    rnd = random.Random(seed)
    im = Image(good_image)
    data_start = im.sb["data_start"]
    for _ in range(40):
        blk = rnd.randrange(2, data_start + 40)
        off = rnd.randrange(0, BSIZE - 8)
        im.write(blk * BSIZE + off, bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 4, 8]))))
    for args in ([], ["--ls", "/data"], ["--cat", "/data/big"], ["--stat"]):
        r = subprocess.run([FSCK, str(good_image)] + args, capture_output=True, timeout=60)
        assert r.returncode in (0, 1), (args, r.returncode, r.stdout[-2000:], r.stderr[-2000:])
