"""fsck as an oracle for crash tests: each test damages a good image the way a lost
or misordered write (or a repair gone wrong) would, and fsck must fail naming the damage.
The kinds the crash checker relies on: a block reachable from two files, a descriptor
reachable from two names that should not share it, and sizes that disagree with blocks."""
import struct

from test_mkfs import BSIZE, Image, fsck, stat_of, good_image, host_tree, damaged  # noqa: F401


def add_entry(img, dirpath, name, ino):
    """Appends an entry to a directory (in its first block) and grows its size."""
    im = Image(img)
    dino = stat_of(img, dirpath)["ino"]
    d = im.desc(dino)
    assert d["size"] + 32 <= BSIZE
    im.write(d["direct"][0] * BSIZE + d["size"], struct.pack("<I28s", ino, name.encode()))
    im.set_desc_field(dino, "<I", 4, d["size"] + 32)


def test_block_reachable_from_two_files(good_image):
    im = Image(good_image)
    a = stat_of(good_image, "/data/a.txt")["ino"]
    b = stat_of(good_image, "/data/sub/b.bin")["ino"]
    blk = im.desc(a)["direct"][0]
    im.set_desc_field(b, "<I", 16 + 4 * 5, blk)      # b.bin's sixth block becomes a.txt's
    damaged(good_image, "block %d is used by descriptor %d and by descriptor %d" % (blk, a, b))


def test_block_reachable_twice_from_one_file(good_image):
    im = Image(good_image)
    b = stat_of(good_image, "/data/sub/b.bin")["ino"]
    blk = im.desc(b)["direct"][0]
    im.set_desc_field(b, "<I", 16 + 4 * 1, blk)
    damaged(good_image, "block %d is used by descriptor %d and by descriptor %d" % (blk, b, b))


def test_directory_with_two_names(good_image):
    sub = stat_of(good_image, "/data/sub")["ino"]
    add_entry(good_image, "/data/emptydir", "again", sub)
    damaged(good_image, "directory %d is reached by a second path" % sub)


def test_file_whose_link_count_disagrees_with_its_names(good_image):
    a = stat_of(good_image, "/data/a.txt")["ino"]
    add_entry(good_image, "/data/sub", "stolen", a)
    out = damaged(good_image, "descriptor %d: link count 1, but 2 directory entries name it" % a)
    assert "has two names: /data/a.txt and /data/sub/stolen" in out


def test_file_with_two_names_and_a_matching_count_is_a_note(good_image):
    a = stat_of(good_image, "/data/a.txt")["ino"]
    add_entry(good_image, "/data/sub", "second", a)
    Image(good_image).set_desc_field(a, "<H", 2, 2)
    r = fsck(good_image, check=0)
    assert b"note: file %d has two names: /data/a.txt and /data/sub/second" % a in r.stdout


def test_name_left_on_another_files_descriptor(good_image):
    """An fsync'ed file's name reaching another file's descriptor, its own orphaned (a crash
    state that loses the file's contents)."""
    im = Image(good_image)
    a = stat_of(good_image, "/data/a.txt")["ino"]
    c = stat_of(good_image, "/data/sub/deeper/c")["ino"]
    data = im.desc(stat_of(good_image, "/data")["ino"])
    raw = im.read(data["direct"][0] * BSIZE, BSIZE)
    off = next(o for o in range(0, BSIZE, 32) if struct.unpack_from("<I", raw, o)[0] == a)
    im.write(data["direct"][0] * BSIZE + off, struct.pack("<I", c))
    damaged(good_image, "descriptor %d (file, 6 bytes) is allocated but in no directory" % a,
            "descriptor %d: link count 1, but 2 directory entries name it" % c)


def test_file_size_smaller_than_its_blocks(good_image):
    im = Image(good_image)
    b = stat_of(good_image, "/data/sub/b.bin")["ino"]
    im.set_desc_field(b, "<I", 4, 5000)             # 2 blocks' worth; it maps 13
    damaged(good_image, "descriptor %d: block" % b, "lies beyond its size")


def test_block_count_disagrees(good_image):
    im = Image(good_image)
    b = stat_of(good_image, "/data/sub/b.bin")["ino"]
    im.set_desc_field(b, "<I", 8, 12)             # 13 data blocks and an indirect one
    damaged(good_image, "descriptor %d: block count 12, but it uses 14 blocks" % b)


def test_directory_size_beyond_its_blocks(good_image):
    im = Image(good_image)
    sub = stat_of(good_image, "/data/sub")["ino"]
    im.set_desc_field(sub, "<I", 4, 2 * BSIZE)
    damaged(good_image, "directory %d: its size (8192 bytes) needs 2 blocks, but only 1 are mapped" % sub)
