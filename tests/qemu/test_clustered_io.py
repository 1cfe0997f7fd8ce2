"""Disk I/O a request-bound disk rewards, counted in the guest: clustered write-back (contiguous
dirty blocks of a file in one request, fs/cluster.c), the write ordering inside a cluster
(fs/ordering.c), and the read-ahead of a sequential reader (fs/readahead.c), each in its modes
(fs.cluster_max=1 is one request a block; fs.readahead=0 and fs.readahead_max).

Every check is a count (requests, blocks, which blocks are cached) or the disk afterwards,
never a time.

Planted bugs this catches (tools/fuzz/mutants.py): cache.cluster-ignores-limit,
cache.cluster-not-contiguous, durability.cluster-unfiltered-pointers, cache.readahead-on-seek,
cache.readahead-ignores-off, cache.readahead-not-counted-used, vm.pageout-run-first-frame,
kernel.ceiling-one-page-requests.
"""
import re
import struct
import sys
from pathlib import Path

from conftest import boot, mkdata_content

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import imgfuzz  # noqa: E402


def values(r, line, nth=0):
    """The numbers `vmstat -n NAME...` (typed as line) printed, one per name, by name."""
    c = r.cmd(line, nth)
    names = line.split()[2:]
    vals = (c.out or "").split()
    assert c.status == 0 and len(vals) == len(names) and all(v.isdigit() for v in vals), (c, r)
    return dict(zip(names, map(int, vals)))


def delta(r, line, a, b):
    va, vb = values(r, line, a), values(r, line, b)
    return {k: vb[k] - va[k] for k in va}


def ran(r):
    assert r.rc == 0, r
    bad = [c for c in r.cmds if c.status != 0]
    assert not bad, (bad, r)


# --- clustered write-back ----------------------------------------------------------------------

WCOUNT = "vmstat -n fs.disk.data_requests fs.disk.writes.data disk.writes disk.write_kb"


def test_contiguous_dirty_blocks_of_a_file_go_in_one_request(disk):
    """A 40 KB file (10 blocks, all direct, allocated side by side) written back by a sync:
    with fs.cluster_max=1 every data block is a request of its own (today's behaviour kept as
    a mode); with the default 16 the file's 10 blocks are one request, so the sync's data
    requests are 9 fewer than its data blocks. The file reads back right after a reboot."""
    cmds = ["sysctl fs.cluster_max=1", "sync", WCOUNT, "mkdata /tmp/one 40K 5", "sync", WCOUNT,
            "sysctl fs.cluster_max=16", "sync", WCOUNT, "mkdata /tmp/ten 40K 6", "sync", WCOUNT]
    r = boot("\n".join(cmds) + "\n", disk=disk, status=True)
    ran(r)
    one, ten = delta(r, WCOUNT, 0, 1), delta(r, WCOUNT, 2, 3)
    assert one["fs.disk.writes.data"] >= 10 and ten["fs.disk.writes.data"] >= 10, (one, ten)
    # One request a block: the limit holds.
    assert one["fs.disk.data_requests"] == one["fs.disk.writes.data"], one
    # The file's ten blocks in one request (the directory's block may go apart, or with them).
    assert ten["fs.disk.data_requests"] <= ten["fs.disk.writes.data"] - 9, ten
    assert ten["disk.write_kb"] >= 40 and ten["disk.writes"] < one["disk.writes"], (one, ten)
    r2 = boot("cksum /tmp/ten\nmkdata - 40K 6 | cksum\n", disk=disk, status=True)
    ran(r2)
    got, want = r2.printed("cksum /tmp/ten").split()[:2], r2.printed("mkdata - 40K 6 | cksum").split()[:2]
    assert got == want, r2


def test_cluster_carries_the_filtered_copy_of_a_pointer_block(disk):
    """The ordering rule (fs/ordering.c, rule 1) inside clusters: with data delayed an hour and
    descriptors written at every scan, forty new files' descriptor blocks go out, several to a
    request, while their data blocks are not yet written. Each must reach the disk with the
    pointers to those blocks cleared (the filtered copy), never naming a block whose contents
    are not there: after a power cut, no descriptor of these files names a block not holding
    its data."""
    size, seed = 4000, 7            # a size no file of the image has: finds the descriptors
    cmds = ["vmstat -n fs.disk.writes.meta disk.writes fs.disk.data_requests"]
    cmds += ["mkdata /tmp/o%d %d %d" % (i, size, seed) for i in range(40)]
    cmds += ["vmstat -w fs.cleaner.scans +2 60", "vmstat -n fs.disk.writes.meta disk.writes fs.disk.data_requests",
             "echo CU''T"]
    r = boot("\n".join(cmds) + "\n", disk=disk, status=True, keep_input=True, kill_after="CUT",
             cmdline="fs.writeback_delay=3600 fs.desc_delay=0 fs.scan_interval=1")
    assert r.rc == 137, r
    d = delta(r, "vmstat -n fs.disk.writes.meta disk.writes fs.disk.data_requests", 0, 1)
    assert d["fs.disk.data_requests"] == 0, d                 # no data block went out
    # Metadata blocks went out several to a request.
    assert d["fs.disk.writes.meta"] > d["disk.writes"] > 0, d
    img = bytearray(Path(disk).read_bytes())
    sb = imgfuzz.read_super(img)
    want = mkdata_content(size, seed)
    found = 0
    for inum in range(1, sb["ndesc"]):
        off = sb["desc_start"] * imgfuzz.BSIZE + inum * imgfuzz.DESC_SIZE
        v = struct.unpack_from(imgfuzz.DESC_FMT, img, off)
        if v[0] != imgfuzz.T_FILE or v[2] != size:
            continue
        found += 1
        blk = v[5]
        assert blk == 0 or bytes(img[blk * 4096:blk * 4096 + size]) == want, \
            "descriptor %d names block %d, which does not hold its data" % (inum, blk)
    assert found >= 30, found                                  # the descriptors did go out


# --- read-ahead ----------------------------------------------------------------------------------

RCOUNT = "vmstat -n fs.readahead.blocks fs.readahead.used fs.readahead.runs disk.reads fs.disk.reads"
EVICT = ["sysctl fs.cache_max_kb=64", "sysctl fs.cache_max_kb=0"]     # the cache down to 16 blocks
BLOCKS = 256                                                            # of the 1 MB file


def cached(out):
    """The block numbers `incore` printed as cached."""
    m = re.search(r"blocks cached:(.*?)(?: \(dirty|$)", out.strip().splitlines()[-1])
    got = set()
    for part in (m.group(1).split() if m else []):
        lo, _, hi = part.partition("-")
        got.update(range(int(lo), int(hi or lo) + 1))
    return got


def test_readahead_on_a_sequential_read_not_on_a_random_one(disk):
    """Read from start to end, the 1 MB file comes in runs read ahead: most of its blocks are
    read ahead and then used, in far fewer disk requests than blocks. Read at scattered
    blocks (incore -r, one 4 KB read each, never two in a row), nothing is read ahead: the
    cache then holds exactly the blocks asked for beside those it held before."""
    rnd = [50, 3, 170, 90, 20, 130, 200, 7, 111, 60]
    cmds = ["mkdata -s /tmp/a 1M 1"] + EVICT + [RCOUNT, "cksum /tmp/a", RCOUNT] + EVICT + \
           ["incore /tmp/a", RCOUNT, "incore -r %s /tmp/a" % ",".join(map(str, rnd)), RCOUNT]
    r = boot("\n".join(cmds) + "\n", disk=disk, status=True)
    ran(r)
    seq = delta(r, RCOUNT, 0, 1)
    assert seq["fs.readahead.used"] >= BLOCKS * 3 // 4, seq
    assert seq["fs.readahead.blocks"] >= seq["fs.readahead.used"], seq
    assert seq["fs.disk.reads"] >= BLOCKS - 16, seq            # every block came from the disk ...
    assert seq["disk.reads"] <= BLOCKS // 6, seq                # ... in runs, not one request each
    rand = delta(r, RCOUNT, 2, 3)
    assert rand["fs.readahead.used"] == 0, rand
    before = cached(r.printed("incore /tmp/a"))
    after = cached(r.printed("incore -r %s /tmp/a" % ",".join(map(str, rnd))))
    assert after == before | set(rnd), (sorted(before), sorted(after))


def test_readahead_off_and_its_limit(disk):
    """fs.readahead=0: a sequential read reads only what it asks for, one request a block.
    fs.readahead_max=4: runs of at most 4 blocks (the missed one and 3 ahead)."""
    cmds = ["mkdata -s /tmp/a 1M 1", "sysctl fs.readahead=0"] + EVICT + [RCOUNT, "cksum /tmp/a", RCOUNT] + \
           ["sysctl fs.readahead=1", "sysctl fs.readahead_max=4"] + EVICT + [RCOUNT, "cksum /tmp/a", RCOUNT]
    r = boot("\n".join(cmds) + "\n", disk=disk, status=True)
    ran(r)
    off, four = delta(r, RCOUNT, 0, 1), delta(r, RCOUNT, 2, 3)
    assert off["fs.readahead.blocks"] == 0 and off["fs.readahead.runs"] == 0, off
    assert off["disk.reads"] >= BLOCKS - 16, off
    assert four["fs.readahead.used"] >= BLOCKS // 2, four
    assert four["fs.readahead.blocks"] <= 3 * four["fs.readahead.runs"], four
    assert BLOCKS // 4 - 4 <= four["disk.reads"] <= BLOCKS // 3, four
    assert r.printed("cksum /tmp/a", 0) == r.printed("cksum /tmp/a", 1), r


# --- clustered page-out ---------------------------------------------------------------------------

PCOUNT = "vmstat -n vm.pageouts vm.pageout_requests"


def test_pageout_runs_go_in_one_request_and_one_a_request_at_limit_1(disk):
    """Page-out by vm.pageout=0 (every resident page of every process, a fresh toucher's
    2 MB among them) and by the daemon (memhog 20 on a 16 MB machine): with fs.cluster_max=1
    every page written is a request of its own; with 16, pages whose backing blocks lie side
    by side share requests, so far fewer requests than pages. memhog checks every word it
    wrote after they came back, the toucher keeps running."""
    cmds = []
    for mode in (1, 16):
        cmds += ["sysctl fs.cluster_max=%d" % mode, "toucher -m 2 -s 600 -d 100 &", "sleep 2", PCOUNT,
                 "sysctl vm.pageout=0", PCOUNT, "memhog 20 %d" % mode, PCOUNT]
    cmds += ["audit"]
    r = boot("\n".join(cmds) + "\n", disk=disk, mem=16, status=True, timeout=400)
    ran(r)
    assert r.printed("memhog 20 1") == "memhog: 20 MB ok\n" and r.printed("memhog 20 16") == "memhog: 20 MB ok\n", r
    one_pid, one_daemon = delta(r, PCOUNT, 0, 1), delta(r, PCOUNT, 1, 2)
    sixteen_pid, sixteen_daemon = delta(r, PCOUNT, 3, 4), delta(r, PCOUNT, 4, 5)
    for d in (one_daemon, one_pid):
        assert d["vm.pageouts"] > 0 and d["vm.pageout_requests"] == d["vm.pageouts"], (one_daemon, one_pid)
    assert sixteen_daemon["vm.pageouts"] >= 1000, sixteen_daemon
    assert sixteen_daemon["vm.pageout_requests"] * 4 <= sixteen_daemon["vm.pageouts"], sixteen_daemon
    assert sixteen_pid["vm.pageouts"] >= 512, sixteen_pid          # the toucher's 2 MB, all dirty
    assert sixteen_pid["vm.pageout_requests"] * 4 <= sixteen_pid["vm.pageouts"], sixteen_pid


# --- the ceiling's kernel path ----------------------------------------------------------------------

CCOUNT = "vmstat -n disk.reads disk.writes disk.read_kb disk.write_kb disk.flushes"


def test_ceiling_moves_the_bytes_in_64k_requests_past_the_file_system(tmp_path):
    """sysctl disk.ceiling_kb=N (scaffold/disk_ceiling.c) reads N KB past the file system and
    writes it back, 64 KB a request, then flushes: N/64 requests each way, N KB each way.
    On an image with no room past its file system it refuses (ENOSPC, said on the console);
    a size not a multiple of 64 is refused too. The file system is untouched (fsck)."""
    import subprocess
    from conftest import PRISTINE, fsck
    img = tmp_path / "fs.img"
    subprocess.run(["cp", "--sparse=always", str(PRISTINE), str(img)], check=True)
    plain = boot("sysctl disk.ceiling_kb=1024\n", disk=img, status=True)
    assert plain.rc == 0 and plain.cmds[0].status != 0, plain
    assert "past the file system" in plain.out, plain
    size = img.stat().st_size
    with open(img, "r+b") as f:
        f.truncate(size + 2 * 1024 * 1024)
    cmds = [CCOUNT, "sysctl disk.ceiling_kb=1024", CCOUNT, "vmstat -n disk.ceiling.read_ms disk.ceiling.write_ms"]
    r = boot("\n".join(cmds) + "\nsysctl disk.ceiling_kb=100\n", disk=img, status=True)
    assert r.rc == 0 and r.cmds[-1].status != 0, r
    for c in r.cmds[:-1]:
        assert c.status == 0, (c, r)
    d = delta(r, CCOUNT, 0, 1)
    # Between the snapshots the shell also starts sysctl and vmstat: a few reads of 4 KB
    # blocks beside the ceiling's sixteen of 64 KB (so sixteen more requests than KB/64 would
    # mean the ceiling went a block at a time).
    assert 1024 <= d["disk.read_kb"] <= 1024 + 128 and 16 <= d["disk.reads"] < 16 + 16, d
    assert d["disk.read_kb"] - 1024 >= 4 * (d["disk.reads"] - 16), d
    assert 1024 <= d["disk.write_kb"] <= 1024 + 32 and 16 <= d["disk.writes"] <= 16 + 8, d
    assert d["disk.flushes"] >= 1, d
    with open(img, "r+b") as f:
        f.truncate(size)
    rc, out = fsck(img)
    assert rc == 0, out
