"""When the delayed-write cache writes what, by counts rather than seconds: the daemon's scans are
counted (fs.cleaner.scans) and the guest waits for a number of them (vmstat -w NAME +N); what
reached the disk is read from the disk-write counters (data, metadata, descriptor blocks, flushes)
and from the image after a hard stop (QEMU killed when the shell echoes a comment line: no sync,
no program run after the last command).

Starting a program creates and removes its backing files in /swap, which dirties the /swap
directory, descriptors and the bitmap. So counts are taken either inside one program (mkdata -c
prints the writes since its own open, after each 4 KB write) or where they must be zero whatever
else happened (with long delays, nothing at all is written since boot), and the image is searched
for the test file's own blocks by their contents.
"""
import re
import struct
from pathlib import Path

from conftest import BUILD, PRISTINE, boot, fsck, mkdata_content as content

BLOCK = 4096
LONG = "fs.writeback_delay=3600 fs.desc_delay=3600"
ONE_SCAN = "vmstat -w fs.cleaner.scans +2 30"       # a whole scan begins and ends after now
SEVERAL_SCANS = "vmstat -w fs.cleaner.scans +4 30"
COUNTS = "vmstat -n fs.disk.writes.data fs.disk.writes.meta fs.disk.writes.desc fs.disk.flushes"
MARK = "#DONE"                  # the kill marker: its echo is the shell reading the next line


def blocks_of(data):
    return [data[i:i + BLOCK] for i in range(0, len(data), BLOCK)]


def superblock(img):
    names = ("magic version block_size nblocks bitmap_start bitmap_blocks desc_start desc_blocks "
             "ndesc data_start root clean free_blocks free_descs mounts checksum").split()
    return dict(zip(names, struct.unpack_from("<16I", img, BLOCK)))


def changed_regions(before, after):
    """The regions (super, bitmap, desc, data) of the blocks that differ between two images."""
    sb = superblock(before)
    regions = {}
    for b in range(len(after) // BLOCK):
        if before[b * BLOCK:(b + 1) * BLOCK] == after[b * BLOCK:(b + 1) * BLOCK]:
            continue
        region = ("super" if b < sb["bitmap_start"] else "bitmap" if b < sb["desc_start"] else
                  "desc" if b < sb["data_start"] else "data")
        regions.setdefault(region, []).append(b)
    return regions


def on_disk(img, data):
    """How many of data's 4 KB blocks some block of the image holds."""
    want = set(blocks_of(data))
    return sum(img[i:i + BLOCK] in want for i in range(0, len(img), BLOCK))


def new_descriptors(before, after):
    """Descriptors of regular files that differ from the original image: (size, nlink, direct
    pointers)."""
    sb = superblock(before)
    found = []
    for off in range(sb["desc_start"] * BLOCK, sb["data_start"] * BLOCK, 128):
        if after[off:off + 128] == before[off:off + 128]:
            continue
        typ, nlink, size = struct.unpack_from("<HHI", after, off)
        if typ == 1:
            found.append((size, nlink, struct.unpack_from("<10I", after, off + 16)))
    return found


def steps(out):
    """mkdata -c's lines: [(step, data, meta, flushes)], step "open", "write K" or "close"."""
    return [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in
            re.finditer(r"^mkdata: (open|write \d+|close) data (\d+) meta (\d+) flushes (\d+)$", out, re.M)]


def numbers(text):
    return [int(l) for l in text.split()]


def ok(r, *lines):
    for line in lines:
        assert r.cmd(line).status == 0, (line, r.cmd(line), r)


def hard_stop(commands, disk, cmdline):
    r = boot(commands + MARK + "\n", disk=disk, cmdline=cmdline, kill_after=MARK[1:],
             keep_input=True, status=True)
    assert r.rc == 137, r           # killed on the marker, not powered off
    return r


def test_delay_counts_scans_and_descriptors_follow_their_own_delay(disk):
    """Long delays: nothing at all is written after one scan or after several. Then descriptors
    short, data long: only descriptor blocks go out; the image has the file's descriptor but
    none of its data, and no block changed outside the descriptor area."""
    mk = "mkdata -c /f 32K 3"
    r = hard_stop("\n".join([mk, ONE_SCAN, COUNTS, SEVERAL_SCANS, COUNTS,
                             "sysctl fs.desc_delay=0", ONE_SCAN, COUNTS]) + "\n", disk,
                  LONG + " fs.scan_interval=1")
    ok(r, mk, ONE_SCAN, SEVERAL_SCANS, "sysctl fs.desc_delay=0")
    assert steps(r.printed(mk)) == [(s, 0, 0, 0) for s in
                                    ["open"] + ["write %d" % k for k in range(1, 9)] + ["close"]], r
    assert numbers(r.printed(COUNTS, 0)) == [0, 0, 0, 0], r       # after one scan: nothing
    assert numbers(r.printed(COUNTS, 1)) == [0, 0, 0, 0], r       # after several: nothing
    data, meta, desc, flushes = numbers(r.printed(COUNTS, 2))
    assert data == 0 and meta == desc > 0 and flushes > 0, r      # descriptor blocks only
    before, after = PRISTINE.read_bytes(), Path(disk).read_bytes()
    changed = changed_regions(before, after)
    assert set(changed) == {"super", "desc"}, changed             # the mount's mark, descriptors
    assert on_disk(after, content(32768, 3)) == 0
    # Its descriptor is there, its pointers cleared: the data they name is not (fs/ordering.c).
    assert (32768, 1, (0,) * 10) in new_descriptors(before, after), new_descriptors(before, after)


def test_data_follows_the_data_delay_and_short_delays_write_everything(disk):
    """Data short, descriptors long: data, indirect and bitmap blocks go out, no descriptor
    block. Then both short: after one more scan the whole file is on disk."""
    mk = "mkdata -c /f 40K 4"
    r = hard_stop("\n".join([mk, "sysctl fs.writeback_delay=0", ONE_SCAN, COUNTS,
                             "sysctl fs.desc_delay=0", ONE_SCAN, COUNTS]) + "\n", disk,
                  LONG + " fs.scan_interval=1")
    ok(r, mk, "sysctl fs.writeback_delay=0", ONE_SCAN, "sysctl fs.desc_delay=0")
    data, meta, desc, flushes = numbers(r.printed(COUNTS, 0))
    assert data >= 10 and meta > 0 and desc == 0 and flushes > 0, r
    data2, meta2, desc2, flushes2 = numbers(r.printed(COUNTS, 1))
    assert desc2 > 0, r
    rc, out = fsck(disk, "--cat", "/f")
    assert rc == 0 and out == content(40960, 4), out[:200]


def test_each_write_policy_has_its_own_pattern(disk):
    """No scans at all (the interval is an hour). through: each 4 KB appended costs, before
    write() returns, one data write, two metadata writes (bitmap, descriptor) and a flush after
    each. asap: no flush, yet the cleaners put every data block on disk at once. delay: nothing."""
    through, asap, delay = "mkdata -c /t 32K 5", "mkdata -c /a 32K 6", "mkdata -c /d 32K 7"
    wait = "vmstat -w fs.cache.scheduled 0 30"
    r = hard_stop("\n".join([through, "sysctl fs.write_policy=asap", asap, wait,
                             "vmstat -n fs.cleaner.scans", "sysctl fs.write_policy=delay", delay,
                             "incore /t /a /d"]) + "\n", disk,
                  LONG + " fs.scan_interval=3600 fs.write_policy=through")
    ok(r, through, "sysctl fs.write_policy=asap", asap, wait, "sysctl fs.write_policy=delay", delay)

    t = steps(r.printed(through))
    assert [s for s, *_ in t] == ["open"] + ["write %d" % k for k in range(1, 9)] + ["close"], r
    for s, d, m, f in t:
        assert f == d + m, (s, d, m, f, r)            # every write followed by its flush
    for (_, d0, m0, _), (_, d1, m1, _) in zip(t[:9], t[1:9]):
        assert (d1 - d0, m1 - m0) == (1, 2), (t, r)   # as it was written
    assert t[-1][1:] == t[-2][1:], r                  # nothing left for the close

    a = steps(r.printed(asap))
    assert len(a) == 10 and all(f == 0 for *_, f in a), r     # asap never flushes by itself
    assert numbers(r.printed("vmstat -n fs.cleaner.scans")) == [0], r

    assert steps(r.printed(delay)) == [(s, 0, 0, 0) for s in
                                       ["open"] + ["write %d" % k for k in range(1, 9)] + ["close"]], r
    lines = r.printed("incore /t /a /d").splitlines()
    assert lines == ["/t: 8 of 8 blocks cached: 0-7", "/a: 8 of 8 blocks cached: 0-7",
                     "/d: 8 of 8 blocks cached: 0-7 (dirty: 0-7)"], r

    img = Path(disk).read_bytes()
    rc, out = fsck(disk, "--cat", "/t")
    assert rc == 0 and out == content(32768, 5)       # through: on disk as written
    assert on_disk(img, content(32768, 6)) == 8       # asap: every data block, with no scan
    assert on_disk(img, content(32768, 7)) == 0       # delay: none


def test_a_block_changed_again_and_again_is_still_written(disk):
    """A dirty block is aged from its first change since it was last clean, not its latest
    (Sprite's rule; else a block changed more often than the delay would never go out): a file
    appended to every second, both delays 3 s, is on disk before the appends stop. The last
    append comes right before the hard stop, so nothing is old enough by its latest change."""
    lines = []
    for i in range(10):
        lines += ["echo line%d >> /f" % i, "sleep 1"]
    lines[-1] = "echo line10 >> /f"
    r = hard_stop("\n".join(lines) + "\n", disk,
                  "fs.writeback_delay=3 fs.desc_delay=3 fs.scan_interval=1")
    ok(r, *lines[:1])
    full = b"".join(b"line%d\n" % i for i in range(11))
    rc, out = fsck(disk, "--cat", "/f")
    assert rc == 0, out[:200]
    assert full.startswith(out) and len(out) >= len(b"line0\nline1\n"), out
