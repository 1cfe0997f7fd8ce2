"""The kernel's file-system code (fs/, kernel/pipe.c) run on the host by build/tests/kfs
(tests/host/kfs/), against images made by mkfs; fsck then checks what it left on disk.

build/tests/kfs is a static i686 program (the kernel's 32-bit pointers) built by the
Makefile; nothing is built here.
"""
import os
import re
import struct
import subprocess

import pytest

from test_mkfs import (BSIZE, FSCK, MKFS, Image, blocks_for, fs_stats, ls, pattern, stat_of)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KFS = os.path.join(ROOT, "build", "tests", "kfs")
BIN = os.path.join(ROOT, "build", "user", "bin")


def kfs(img, *scenarios, env=None, expect=0):
    if not os.path.exists(KFS):
        pytest.fail("build/tests/kfs is missing: run make first")
    e = dict(os.environ)
    e.update(env or {})
    # No blocks held back for VM backing files: there is no VM here, and the scenarios fill the
    # disk to its last block. (The reserve itself is tested in QEMU, tests/qemu/test_delayed_write.py.)
    e["KFS_CMDLINE"] = (e.get("KFS_CMDLINE", "") + " fs.backing_reserve=0").strip()
    r = subprocess.run([KFS, str(img)] + list(scenarios), capture_output=True, timeout=300, env=e)
    out = r.stdout.decode(errors="replace")
    assert r.returncode == expect, out[-4000:] + r.stderr.decode(errors="replace")[-2000:]
    return out


def mkimage(path, size_mb=32, *paths, bindir=True):
    args = [MKFS, "-o", str(path), "-s", str(size_mb)]
    if bindir and os.path.isdir(BIN):
        args += ["-b", BIN]
    subprocess.run(args + [str(p) for p in paths], check=True, timeout=60)
    return path


def fsck_ok(img):
    r = subprocess.run([FSCK, str(img)], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stdout.decode()[-4000:]
    return r.stdout.decode()


def cat(img, path):
    r = subprocess.run([FSCK, str(img), "--cat", path], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture
def img(tmp_path):
    return mkimage(tmp_path / "fs.img")


def test_basic(img):
    kfs(img, "basic", "readdir")
    fsck_ok(img)
    assert cat(img, "/tmp/hello") == b"hello world\n"
    assert set(ls(img, "/r")) == {"a", "c", "d"}
    assert fs_stats(img)["clean"] == 1


def test_bin_listing_matches(img):
    out = kfs(img, "readdir")
    n = int(out.split("bin_entries ")[1].split()[0])
    assert n == len(ls(img, "/bin"))


def test_big_file(img):
    kfs(img, "big")
    fsck_ok(img)
    size = 5 * 1024 * 1024 + 123
    assert cat(img, "/tmp/big") == pattern(size, 77)
    st = stat_of(img, "/tmp/big")
    assert st["size"] == size and st["blocks"] == blocks_for(size)
    assert "big2" not in ls(img, "/tmp")


def test_big_file_small_cache(img):
    kfs(img, "big", "smallcache", env={"KFS_CMDLINE": "fs.cache_max_kb=64"})
    fsck_ok(img)
    assert cat(img, "/tmp/big") == pattern(5 * 1024 * 1024 + 123, 77)
    assert cat(img, "/tmp/sc") == pattern(1024 * 1024, 6)


def test_cache_size_setting_is_checked(img):
    # Out of range at boot: refused with sysctl's message, the default kept.
    # Out of range at boot: refused with sysctl's message, the default kept.
    default = re.search(r"cache_max_kb (\d+)\n", kfs(img, "counts")).group(1)
    out = kfs(img, "counts", env={"KFS_CMDLINE": "fs.cache_max_kb=100000000"})
    assert "fs.cache_max_kb=100000000: out of range [0..4194304]; keeping %s" % default in out
    assert "cache_max_kb %s\n" % default in out
    out = kfs(img, "counts", env={"KFS_CMDLINE": "fs.cache_max_kb=160"})
    assert "cache_max_kb 160\n" in out and "out of range" not in out


def test_cache_keeps_and_writes_through(img):
    kfs(img, "cache")
    fsck_ok(img)


def test_sparse_2gib(img):
    kfs(img, "sparse")
    fsck_ok(img)
    st = stat_of(img, "/tmp/sparse")
    assert st["size"] == 2 ** 31 - 1 and st["blocks"] == 5


def test_rename(img):
    kfs(img, "rename")
    fsck_ok(img)          # checks ".." of the moved directory and every link count
    assert set(ls(img, "/m")) == {"d2", "e"}
    assert set(ls(img, "/m/d2")) == {"d1"}
    assert cat(img, "/m/d2/d1/b") == b"Y"
    assert cat(img, "/m/e/inside") == b"I"


def test_cwd_and_unlink_open(img):
    kfs(img, "cwd", "unlink_open", "txtbsy", "pipe")
    fsck_ok(img)
    assert set(ls(img, "/w")) == {"c"}
    assert ls(img, "/w/c") == {}


def test_disk_full(tmp_path):
    small = mkimage(tmp_path / "small.img", 2, bindir=False)
    before = fs_stats(small)
    out = kfs(small, "full")
    assert "filled" in out
    fsck_ok(small)
    after = fs_stats(small)
    assert after["free_blocks"] == before["free_blocks"]
    assert after["free_descriptors"] == before["free_descriptors"]


def test_full_disk_then_more_work(tmp_path):
    small = mkimage(tmp_path / "small.img", 4, bindir=False)
    kfs(small, "full", "basic", "rename")
    fsck_ok(small)


def test_persists_across_mounts(img):
    kfs(img, "persist_write")
    kfs(img, "persist_read")
    assert cat(img, "/tmp/persist") == pattern(300000, 8)


def test_unclean_mount_repairs(img):
    kfs(img, "basic", "big", "nosync")
    st = fs_stats(img)
    assert st["clean"] == 0
    out = kfs(img, "counts")
    assert "not cleanly unmounted" in out and "repaired" in out
    fsck_ok(img)
    st2 = fs_stats(img)
    assert st2["clean"] == 1
    assert "free_blocks %d\n" % st2["free_blocks"] in out
    assert "free_descriptors %d\n" % st2["free_descriptors"] in out
    assert st2["mounts"] == st["mounts"] + 1


def test_written_names_every_block_the_repair_changes(img, tmp_path):
    """KFS_WRITTEN: the repair names each block it writes (the crash checker rewrites only those
    and what differs between states, tools/crash/crashstates.py's StateImage): every block that
    differs after the repair is named, and the repair did change some."""
    kfs(img, "basic", "big", "nosync")
    before = open(img, "rb").read()
    log = tmp_path / "written"
    out = kfs(img, "counts", env={"KFS_WRITTEN": str(log)})
    assert "repaired" in out, out
    after = open(img, "rb").read()
    changed = {b for b in range(len(after) // BSIZE) if before[b * BSIZE:(b + 1) * BSIZE] != after[b * BSIZE:(b + 1) * BSIZE]}
    named = set()
    for line in log.read_text().splitlines():
        off, n = map(int, line.split())
        named.update(range(off // BSIZE, (off + n - 1) // BSIZE + 1))
    assert changed and changed <= named, (sorted(changed - named)[:10], len(changed), len(named))


@pytest.mark.parametrize("after", [0, 1, 3, 7, 12, 20, 35, 60, 100, 1000])
def test_crash_in_the_middle_of_write_back_is_repaired(img, after):
    """The disk stops taking writes after `after` of them, in the middle of a sync: any such
    mix of old and new blocks is made consistent by the next mount."""
    kfs(img, "crashmix", "nosync", env={"KFS_CRASH_AFTER": str(after)})
    out = kfs(img, "counts")
    assert "repaired" in out, out
    fsck_ok(img)
    # What was fsync'ed before the crash is there whatever happened after.
    assert cat(img, "/cm/synced") == pattern(50000, 3)


def test_write_errors_do_not_crash(img):
    out = kfs(img, "ioerror")
    assert "failed" in out
    fsck_ok(img)


def test_delayed_write_error_is_reported_and_retried(img):
    kfs(img, "wberror")
    fsck_ok(img)
    assert cat(img, "/tmp/wberr") == pattern(10000, 21)


def test_short_lived_files_cost_no_data_writes(img):
    kfs(img, "shortlived")
    fsck_ok(img)


def test_allocation_is_near(img):
    kfs(img, "placement")
    fsck_ok(img)


@pytest.fixture
def damaged_image(tmp_path):
    d = tmp_path / "data"
    (d / "sub").mkdir(parents=True)
    (d / "bad_type").write_bytes(b"t" * 100)
    (d / "bad_ptr").write_bytes(b"p" * 100)
    (d / "big").write_bytes(pattern(1100 * BSIZE, 1))
    (d / "ok").write_bytes(b"fine\n")
    (d / "sub" / "fine").write_bytes(b"also fine\n")
    (d / "sub" / "ghost").write_bytes(b"boo\n")
    img = mkimage(tmp_path / "fs.img", 16, d, bindir=False)
    im = Image(img)
    im.set_desc_field(stat_of(img, "/data/bad_type")["ino"], "<H", 0, 9)
    im.set_desc_field(stat_of(img, "/data/bad_ptr")["ino"], "<I", 16, im.sb["nblocks"] + 5)
    big = im.desc(stat_of(img, "/data/big")["ino"])
    im.write(big["indirect"] * BSIZE + 4 * 5, struct.pack("<I", 3))
    sub = im.desc(stat_of(img, "/data/sub")["ino"])
    ghost = stat_of(img, "/data/sub/ghost")["ino"]
    raw = im.read(sub["direct"][0] * BSIZE, BSIZE)
    for off in range(0, BSIZE, 32):
        if struct.unpack("<I", raw[off:off + 4])[0] == ghost:
            im.write(sub["direct"][0] * BSIZE + off, struct.pack("<I", 99999))
    return img


def test_damaged_files_give_eio(damaged_image):
    kfs(damaged_image, "damaged")


def mount_fails(img, *words):
    out = kfs(img, "basic", expect=3)
    assert "POWEROFF 1" in out
    for w in words:
        assert w in out, out
    return out


def test_mount_refuses_foreign_disk(tmp_path):
    zero = tmp_path / "zero.img"
    zero.write_bytes(bytes(1024 * 1024))
    mount_fails(zero, "fs: disk is not a Sprite file system: bad magic 0x00000000")


def test_mount_refuses_corrupt_superblock(img):
    im = Image(img)
    im.set_super(reseal=False, nblocks=im.sb["nblocks"] + 1)
    mount_fails(img, "not a Sprite file system", "checksum")


def test_mount_refuses_image_larger_than_disk(tmp_path, img):
    with open(img, "r+b") as f:
        f.truncate(8 * 1024 * 1024)        # the disk is smaller than the file system says
    mount_fails(img, "no more than the disk")


def test_mount_refuses_damaged_root(img):
    im = Image(img)
    im.set_desc_field(1, "<H", 0, 1)       # the root claims to be a file
    mount_fails(img, "root directory")


def test_no_disk(tmp_path):
    r = subprocess.run([KFS, "--nodisk", "basic"], capture_output=True, timeout=60)
    assert r.returncode == 3
    assert b"fs: no disk" in r.stdout
