"""The comparison of two repaired images (tools/crash/repaircompare.py): equal images are the
same, each kind of difference a repair could make is named, and /swap's backing files (which
only the kernel booted in QEMU leaves, from init and the shell) are left out of every field.
The images are mkfs's, damaged by hand as a diverging repair would leave them."""
import shutil, struct, sys

from conftest import ROOT
from test_mkfs import BSIZE, Image, stat_of, good_image, host_tree  # noqa: F401
from test_fsck_oracle import add_entry

sys.path.insert(0, str(ROOT / "tools" / "crash"))
import repaircompare  # noqa: E402

REPAIRED = "fs: repaired after an unclean shutdown: 1 entries removed"


def views(img, other, tmp_path, repair_a=REPAIRED, repair_b=REPAIRED):
    return (repaircompare.view(img, tmp_path / "a", repair_a),
            repaircompare.view(other, tmp_path / "b", repair_b))


def twin(good_image, tmp_path):
    other = tmp_path / "other.img"
    shutil.copyfile(good_image, other)
    return other


def test_the_same_image_is_the_same(good_image, tmp_path):
    other = twin(good_image, tmp_path)
    a, b = views(good_image, other, tmp_path)
    assert repaircompare.differences(a, b) == []
    assert "/data/sub/b.bin" in a["tree"] and a["tree"]["/data/sub/b.bin"]["bytes"][:4] == struct.pack("<I", 2)
    assert a["used"] and a["counts"]["free_blocks"] > 0 and a["swap"] == dict(files=0, blocks=0)


def test_each_difference_is_named(good_image, tmp_path):
    a = repaircompare.view(good_image, tmp_path / "a", REPAIRED)
    ino = stat_of(good_image, "/data/sub/b.bin")["ino"]

    def differs(damage, *words, repair=REPAIRED):
        other = twin(good_image, tmp_path)
        damage(Image(other))
        got = repaircompare.differences(a, repaircompare.view(other, tmp_path / "b", repair))
        text = "\n".join(got)
        for w in words:
            assert w in text, (w, got)
        return got

    # A byte of a file.
    differs(lambda im: im.write(im.desc(ino)["direct"][3] * BSIZE + 7, b"\xff"),
            "/data/sub/b.bin: bytes differ from offset %d" % (3 * BSIZE + 7))
    # A link count (fsck then complains too).
    differs(lambda im: im.set_desc_field(ino, "<H", 2, 2), "/data/sub/b.bin: nlink host 1, QEMU 2", "fsck: host clean")
    # A block marked in use that nothing names: the bitmap and the free count.
    free = next(b for b in range(Image(good_image).sb["data_start"], 4000) if not Image(good_image).bit(b))
    got = differs(lambda im: im.set_bit(free, 1), "bitmap: in use only in the host's repair [], only in QEMU's [%d]" % free,
                  "free_blocks: host")
    # A name changed: one path only in each.
    def rename(im):
        sub = im.desc(stat_of(good_image, "/data/sub")["ino"])["direct"][0] * BSIZE
        raw = im.read(sub, BSIZE)
        at = raw.index(b"b.bin\0")
        im.write(sub + at, b"x.bin\0")
    differs(rename, "/data/sub/b.bin: only in the host's repair", "/data/sub/x.bin: only in the QEMU's repair")
    # The repair's report.
    differs(lambda im: None, "repair report", repair=REPAIRED.replace("1 entries", "2 entries"))


def test_swap_backing_files_are_left_out(good_image, tmp_path):
    """A backing file in /swap, as the kernel booted in QEMU leaves init's and the shell's:
    its entry, descriptor and block are not compared; the rest still is."""
    other = twin(good_image, tmp_path)
    im = Image(other)
    st = stat_of(other, "/")
    ino = next(i for i in range(st["ino"] + 1, 4000) if im.desc(i)["type"] == 0)
    blk = next(b for b in range(im.sb["data_start"], 4000) if not im.bit(b))
    im.write(im.desc_off(ino), struct.pack("<HHIII", 1, 1, 4096, 1, 5) + struct.pack("<I", blk))
    im.set_bit(blk, 1)
    im.write(blk * BSIZE, b"swapped page" * 100)
    add_entry(other, "/swap", "seg9", ino)
    im.set_super(free_blocks=im.sb["free_blocks"] - 1, free_descs=im.sb["free_descs"] - 1)
    a, b = views(good_image, other, tmp_path)
    assert b["swap"] == dict(files=1, blocks=1)
    assert repaircompare.differences(a, b) == []
    # Anything else the same boot changed still shows.
    Image(other).set_desc_field(stat_of(other, "/data/sub/b.bin")["ino"], "<I", 12, 99)
    a, b = views(good_image, other, tmp_path)
    assert repaircompare.differences(a, b) == ["/data/sub/b.bin: mtime host 0, QEMU 99"]


def test_the_sample_covers_every_kind_by_seed():
    states = [("flush", 0, [])] * 3 + [("prefix", 0, [0])] * 5 + [("drop", 1, [2])] * 4 + [("torn", 1, [])]
    s = repaircompare.sample(states, 7, 2)
    assert s == repaircompare.sample(states, 7, 2) and s != repaircompare.sample(states, 8, 2)
    assert sorted(states[i][0] for i in s) == ["drop", "drop", "flush", "flush", "prefix", "prefix", "torn"]
