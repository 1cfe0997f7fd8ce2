"""Corrupted images: the short version of `make imgfuzz` (tools/fuzz/imgfuzz.py), and, each on its
own, the damage that could hang the machine or power it off without saying why.

test_damaged_image boots SEEDS images of every kind of damage; each must end in the shell or a
refusal with a message, never a panic, a hang or a write outside the file system, and agree
with fsck as the tool's text says (fsck ok => shell and still ok after; refused => fsck
damaged). The console of each boot is in build/test-logs.
"""
import re, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import imgfuzz  # noqa: E402
from conftest import boot  # noqa: E402

SEEDS = (1, 2, 3)
TIMEOUT = 40        # a boot takes about a second; a hang is caught by this


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return imgfuzz.make_base(tmp_path_factory.mktemp("imgfuzz-base"))


def boot_damaged(data, path, verdict=None):
    """Boots the damaged image data (written to path) with the fuzzer's commands; the Run and
    the fuzzer's judgement (outcome, why, fsck after, failure)."""
    Path(path).write_bytes(data)
    if verdict is None:
        verdict = imgfuzz.run_fsck(path)[0]
    cmds = imgfuzz.commands_for(path)
    r = boot("".join(c + "\n" for c in cmds), disk=path, timeout=TIMEOUT)
    return r, imgfuzz.judge(data, path, r.out, r.rc, verdict)


@pytest.mark.parametrize("kind,seed", [(k, s) for k in imgfuzz.KINDS for s in SEEDS])
def test_damaged_image(base, tmp_path, kind, seed):
    data, what, unclean = imgfuzz.damage(base, kind, seed)
    path = tmp_path / "fs.img"
    path.write_bytes(data)
    verdict, fsck_out = imgfuzz.run_fsck(path)
    r, (outcome, why, post, fail) = boot_damaged(data, path, verdict)
    assert not fail, ("%s (%s%s): %s: %s; fsck %s (%s), after %s" % (
        kind, what, ", repairing mount" if unclean else "", fail, why, verdict,
        imgfuzz.first_problem(fsck_out), post or "-"), r)
    if outcome == "refused":
        assert why and why != "(no message)", r


def put_entry_ino(img, fs, dirpath, name, ino):
    imgfuzz.put32(img, fs.entry(dirpath, name)[0], ino)


def image(base, change):
    img = bytearray(base)
    change(img, imgfuzz.Fs(base))
    return bytes(img) + imgfuzz.tail_bytes(imgfuzz.TAIL_BLOCKS * imgfuzz.BSIZE)


@pytest.mark.parametrize("what", ["out-of-range", "file"])
def test_swap_entry_naming_a_bad_descriptor_is_refused_with_a_message(base, tmp_path, what):
    """The issue's hostile run: the root's `swap` entry naming a descriptor out of range left
    init killed for lack of backing store and the machine sitting forever. Now the kernel
    says /swap is unusable and powers off reporting failure; fsck names the entry."""
    def change(img, fs):
        put_entry_ino(img, fs, "/", "swap", fs.sb["ndesc"] + 5 if what == "out-of-range" else fs.inum("/hello.txt"))
    data = image(base, change)
    r, (outcome, why, post, fail) = boot_damaged(data, tmp_path / "fs.img")
    assert outcome == "refused" and not fail, (outcome, why, fail, r)
    assert re.search(r"^fs: /swap is unusable \(error -?\d+\): no backing files$", r.out, re.M), r
    assert imgfuzz.run_fsck(tmp_path / "fs.img")[0] == "damaged"


def test_directory_larger_than_its_blocks_is_an_error_not_a_hang(base, tmp_path):
    """/d's size damaged to 2 GB with one block mapped: a lookup that read every hole would read
    2 GB (a boot would time out). A directory's missing block is an I/O error for that directory."""
    def change(img, fs):
        imgfuzz.put32(img, fs.doff(fs.inum("/d")) + 4, 0x7FFFFFE0)
    data = image(base, change)
    r, (outcome, why, post, fail) = boot_damaged(data, tmp_path / "fs.img")
    assert outcome == "shell" and not fail, (outcome, why, fail, r)
    assert re.search(r"^fs: directory \d+: block 1 of its 2147483616 bytes is missing$", r.out, re.M), r
    assert r.printed("cat /hello.txt") == "hello from imgfuzz\n", r
    assert r.printed("cat /d/g.txt") == "g in d\n", r     # its entry is in the block there is
    assert "ls: /d: " in r.printed("ls /d"), r


def test_blocks_past_the_superblocks_count_are_never_written(base, tmp_path):
    """The superblock's block count lowered (resealed) below the blocks of /d and what is in
    it: writing /d/more.txt must not reach past the count, where the image still holds the old
    blocks (and the tail its pattern)."""
    def change(img, fs):
        first = min(b for b in fs.block_list(fs.inum("/d")) if b)
        # Room below the new end: /big.dat removed (its entry, descriptor and bits).
        big = fs.inum("/big.dat")
        used = [b for b in fs.block_list(big) if b] + [fs.desc(big)["indirect"]]
        imgfuzz.put32(img, fs.entry("/", "big.dat")[0], 0)
        img[fs.doff(big):fs.doff(big) + imgfuzz.DESC_SIZE] = bytes(imgfuzz.DESC_SIZE)
        for b in used:
            img[fs.sb["bitmap_start"] * imgfuzz.BSIZE + b // 8] &= ~(1 << b % 8)
        imgfuzz.set_super(img, "free_descs", fs.sb["free_descs"] + 1)
        imgfuzz.set_super(img, "nblocks", first)
        imgfuzz.set_super(img, "free_blocks", imgfuzz.free_below(img, fs.sb, first))
        imgfuzz.reseal(img)
    data = image(base, change)
    r, (outcome, why, post, fail) = boot_damaged(data, tmp_path / "fs.img")
    assert not fail and outcome == "shell", (outcome, why, fail, r)
    assert r.printed("cat /hello.txt") == "hello from imgfuzz\n", r
    assert "more" not in r.printed("ls /d"), r


def test_no_shell_powers_off_reporting_failure(base, tmp_path):
    """/bin/sh damaged (its size cut to 33 bytes, a repairing mount): init could not run the
    shell and the machine powered off cleanly, as if all were well."""
    def change(img, fs):
        imgfuzz.put32(img, fs.doff(fs.inum("/bin/sh")) + 4, 33)
        imgfuzz.set_super(img, "clean", 0)
        imgfuzz.reseal(img)
    data = image(base, change)
    r, (outcome, why, post, fail) = boot_damaged(data, tmp_path / "fs.img")
    assert r.rc == 1 and outcome == "refused" and not fail, (outcome, why, r)
    assert re.search(r"^init: exec /bin/sh: .+$", r.out, re.M), r
    assert re.search(r"^init exited \(status 1\): the system cannot go on; powering off$", r.out, re.M), r


@pytest.mark.parametrize("where", ["direct", "indirect"])
def test_a_pointer_into_the_tail_is_never_followed(base, tmp_path, where):
    """A block pointer naming a block past the file system, where the image goes on (its tail):
    /d/e's first block (mkdir /d/e/sub writes it) or the last slot of /big.dat's indirect
    block (the append writes it). The file gets an I/O error; the tail stays as it was."""
    def change(img, fs):
        n = fs.sb["nblocks"]
        if where == "direct":
            imgfuzz.put32(img, fs.doff(fs.inum("/d/e")) + 16, n + 1)
        else:
            big = fs.inum("/big.dat")
            last = imgfuzz.div_up(fs.desc(big)["size"], imgfuzz.BSIZE) - imgfuzz.NDIRECT - 1
            imgfuzz.put32(img, fs.desc(big)["indirect"] * imgfuzz.BSIZE + 4 * last, n)
    data = image(base, change)
    r, (outcome, why, post, fail) = boot_damaged(data, tmp_path / "fs.img")
    assert not fail and outcome == "shell", (outcome, why, fail, r)
    assert re.search(r"^fs: descriptor \d+[: ].*(out of range|damaged)", r.out, re.M), r
    assert r.printed("cat /hello.txt") == "hello from imgfuzz\n", r


def test_shell_killed_at_start_powers_off_reporting_failure(base, tmp_path):
    """/bin/sh with its second block a hole (a pointer the repair cleared): its code reads as
    zeros, the shell dies on a fault at its first instruction, and the machine powered off
    cleanly, as if all were well."""
    def change(img, fs):
        imgfuzz.put32(img, fs.doff(fs.inum("/bin/sh")) + 16 + 4, 0)
    data = image(base, change)
    r, (outcome, why, post, fail) = boot_damaged(data, tmp_path / "fs.img")
    assert r.rc == 1 and outcome == "refused" and not fail, (outcome, why, r)
    assert re.search(r"^pid \d+ \(sh\) killed: ", r.out, re.M), r
    assert re.search(r"^init: the shell was killed \(status 1\d\d\)$", r.out, re.M), r


# --- damage the repairing mount must leave behind in a sound file system ---------------------
# Each image below has its clean flag taken off, so that fs/repair.c meets the damage; the boot
# must reach the shell and fsck must find nothing afterwards (make imgfuzz once found each).

def repaired(base, tmp_path, change):
    def unclean(img, fs):
        change(img, fs)
        imgfuzz.set_super(img, "clean", 0)
        imgfuzz.reseal(img)
    data = image(base, unclean)
    path = tmp_path / "fs.img"
    path.write_bytes(data)
    verdict, fsck_out = imgfuzz.run_fsck(path)
    assert verdict == "damaged", fsck_out
    r, (outcome, why, post, fail) = boot_damaged(data, path, verdict)
    assert outcome == "shell" and not fail, (outcome, why, fail, r)
    assert re.search(r"^fs: repaired after an unclean shutdown: ", r.out, re.M), r
    assert post == "ok", (imgfuzz.first_problem(imgfuzz.run_fsck(path)[1]), r)
    return r


def free_block(img, fs):
    """A data block the bitmap calls free."""
    base = fs.sb["bitmap_start"] * imgfuzz.BSIZE
    return next(b for b in range(fs.sb["data_start"], fs.sb["nblocks"]) if not img[base + b // 8] >> (b % 8) & 1)


@pytest.mark.parametrize("where", ["end", "middle"])
def test_repair_ends_a_directory_at_its_first_hole(base, tmp_path, where):
    """/d's size reaching past its one block (a hole at its end), or over a hole to a third
    block with an entry in it: the size is cut to the blocks before the hole, and the entry
    past it goes (hello.txt's second name; its link count back to 1)."""
    def change(img, fs):
        d = fs.inum("/d")
        if where == "end":
            imgfuzz.put32(img, fs.doff(d) + 4, 2 * imgfuzz.BSIZE)
            return
        b = free_block(img, fs)
        img[b * imgfuzz.BSIZE:(b + 1) * imgfuzz.BSIZE] = bytes(imgfuzz.BSIZE)
        imgfuzz.put32(img, b * imgfuzz.BSIZE, fs.inum("/hello.txt"))
        img[b * imgfuzz.BSIZE + 4:b * imgfuzz.BSIZE + 9] = b"h.txt"
        imgfuzz.put32(img, fs.doff(d) + 4, 2 * imgfuzz.BSIZE + imgfuzz.DIRENT_SIZE)
        imgfuzz.put32(img, fs.doff(d) + 16 + 4 * 2, b)
        imgfuzz.put32(img, fs.doff(d) + 8, 2)
        imgfuzz.put32(img, fs.doff(fs.inum("/hello.txt")), 1 | 2 << 16)   # type file, 2 links
    r = repaired(base, tmp_path, change)
    assert r.printed("cat /d/g.txt") == "g in d\n", r
    assert "h.txt" not in r.printed("ls /d"), r


def test_repair_rounds_an_oversized_directory_to_whole_entries(base, tmp_path):
    """/d's size beyond 2 GB: cut to the largest legal size, 2 GB - 1, it would no longer be a
    multiple of 32, and the directory would be refused ever after; it is rounded to whole
    entries (then cut at its hole)."""
    def change(img, fs):
        imgfuzz.put32(img, fs.doff(fs.inum("/d")) + 4, 0xFFFFFFE0)
    r = repaired(base, tmp_path, change)
    assert r.printed("cat /d/g.txt") == "g in d\n", r


@pytest.mark.parametrize("what", ["other-file", "same-file"])
def test_repair_removes_the_second_of_two_equal_names(base, tmp_path, what):
    """/d's g.txt renamed e, the name of the directory before it; or a second hello.txt in / naming
    the same file. The second entry goes (a lookup only ever found the first): g.txt's
    descriptor, now named by nothing, is freed, and hello.txt's link count is back to 1."""
    def change(img, fs):
        if what == "other-file":
            off = fs.entry("/d", "g.txt")[0]
            img[off + 4:off + 4 + imgfuzz.NAME_MAX + 1] = b"e".ljust(imgfuzz.NAME_MAX + 1, b"\0")
            return
        root = fs.desc(imgfuzz.ROOT_DESC)
        off = root["direct"][0] * imgfuzz.BSIZE + root["size"]
        imgfuzz.put32(img, off, fs.inum("/hello.txt"))
        img[off + 4:off + 4 + 9] = b"hello.txt"
        imgfuzz.put32(img, fs.doff(imgfuzz.ROOT_DESC) + 4, root["size"] + imgfuzz.DIRENT_SIZE)
        imgfuzz.put32(img, fs.doff(fs.inum("/hello.txt")), 1 | 2 << 16)
    r = repaired(base, tmp_path, change)
    assert r.printed("cat /d/e/f.txt") == "f in d/e\n", r
    assert r.printed("cat /hello.txt") == "hello from imgfuzz\n", r


def test_repair_gives_a_block_two_directories_name_to_the_first(base, tmp_path):
    """/swap's first block the root's: both directories were walked in the one block, and
    the second lost it, leaving /swap with no block for its entries. The root keeps it, the
    swap entry goes, and the kernel makes a new /swap (its backing files start empty after
    an unclean shutdown anyway)."""
    def change(img, fs):
        imgfuzz.put32(img, fs.doff(fs.inum("/swap")) + 16, fs.desc(imgfuzz.ROOT_DESC)["direct"][0])
    r = repaired(base, tmp_path, change)
    assert r.printed("cat /hello.txt") == "hello from imgfuzz\n", r
    assert r.printed("cat /d/g.txt") == "g in d\n", r
