"""tools/fuzz/imgfuzz.py's own parts, shown to work without booting: its reader of the on-disk format
agrees with build/fsck, a (seed, kind) names one image, every kind changes the image, and the
judge of a boot fails what it must: a write outside the file system, a panic, a hang, a clean
power-off without a shell, and fsck's disagreements."""
import subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import imgfuzz as f  # noqa: E402
from conftest import BUILD  # noqa: E402


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return f.make_base(tmp_path_factory.mktemp("imgfuzz-tool"))


def test_reader_agrees_with_fsck(base, tmp_path):
    img = tmp_path / "base.img"
    img.write_bytes(base)
    st = dict(l.split() for l in subprocess.run([str(BUILD / "fsck"), str(img), "--stat"], stdout=subprocess.PIPE,
                                                text=True, check=True).stdout.splitlines())
    fs = f.Fs(base)
    assert fs.sb["nblocks"] == int(st["blocks_total"]) and fs.sb["data_start"] == int(st["data_start"])
    assert f.free_below(bytearray(base), fs.sb, fs.sb["nblocks"]) == int(st["free_blocks"])
    assert f.super_ok(base, f.disk_blocks_of(len(base))) is None
    assert f.checksum(base) == fs.sb["checksum"]
    big = fs.inum("/big.dat")
    assert fs.desc(big)["indirect"] and len(fs.block_list(big)) > f.NDIRECT
    assert {"/d/e/f.txt", "/d/g.txt", "/swap", "/bin/sh"} <= set(fs.paths.values())
    assert subprocess.run([str(BUILD / "fsck"), str(img)], stdout=subprocess.PIPE).returncode == 0


@pytest.mark.parametrize("kind", f.KINDS)
def test_each_kind_damages_alike_for_one_seed(base, kind):
    changed = 0
    for seed in range(5):
        a, what, _ = f.damage(base, kind, seed)
        assert (a, what) == f.damage(base, kind, seed)[:2]
        # oversize only lengthens the image, half the time
        changed += a[:len(base)] != base or len(a) != len(base) + f.TAIL_BLOCKS * f.BSIZE
    assert changed >= 4, kind


def test_oob_judge(base):
    img = base + f.tail_bytes(f.TAIL_BLOCKS * f.BSIZE)
    n = f.read_super(img)["nblocks"]

    def changed(at):
        b = bytearray(img)
        b[at] ^= 1
        return bytes(b)
    assert f.oob_write(img, img) is None
    assert f.oob_write(img, changed(f.BSIZE + 100)) is None               # the superblock: owned
    assert f.oob_write(img, changed(n * f.BSIZE - 1)) is None             # the last block
    assert "block 0" in f.oob_write(img, changed(7))
    assert "block %d" % n in f.oob_write(img, changed(n * f.BSIZE))       # the tail
    assert "length" in f.oob_write(img, img + b"x")
    # A superblock the kernel must refuse: nothing at all may change.
    bad = bytearray(img)
    f.set_super(bad, "magic", 0)
    bad = bytes(bad)
    b2 = bytearray(bad)
    b2[f.BSIZE * 40] ^= 1
    assert f.oob_write(bad, bytes(b2)) is not None
    # A partial last sector: QEMU shows it whole, and a write there lengthens the file to it.
    short = img[:n * f.BSIZE - 1]
    assert f.oob_write(short, img[:n * f.BSIZE]) is None
    assert f.oob_write(short, img[:n * f.BSIZE + 1]) is not None


def test_outcomes_and_agreement(base):
    img = base
    assert f.classify("console: ready\n$ help\nbuiltins: cd\n", 0, img, img) == ("shell", "")
    assert f.classify("console: ready\n", 0, img, img)[0] == "noshell"
    assert f.classify("fs: disk is not a Sprite file system: x\n", 1, img, img) == \
        ("refused", "fs: disk is not a Sprite file system: x")
    assert f.classify("\nkernel panic: oops (process 1 init)\n", 1, img, img)[0] == "panic"
    assert f.classify("console: ready\n", 124, img, img)[0] == "hang"
    assert f.classify("", 2, img, img)[0] == "crash"
    assert f.agreement("shell", "ok", "ok") == ""
    assert f.agreement("shell", "damaged", "damaged") == ""
    assert f.agreement("refused", "damaged", "") == ""
    assert f.agreement("refused", "ok", "") != ""
    assert f.agreement("refused", "ok", "", ["/bin/init"]) == ""
    assert f.agreement("shell", "ok", "damaged") != ""
    assert f.agreement("shell", "crash", "ok") != ""
    for bad in f.BAD:
        assert f.agreement(bad, "damaged", "") == bad
