"""The cache's hit and miss counters, and the disk reads behind them: a file read for the first
time misses on every block it did not read ahead (fs/readahead.c: those it then finds count
in fs.readahead.used) and reads each from the disk; read again, it hits on every block and
reads nothing. (The benchmarks and the negotiation between the pools go by these counts.)

Planted bugs this catches (tools/fuzz/mutants.py): cache.hit-not-counted, cache.miss-counted-as-hit.
"""
import os

from conftest import BUILD

COUNTS = "vmstat -n fs.cache.hits fs.cache.misses fs.disk.reads fs.readahead.used"
FILE = "/bin/usertests"         # the largest program: not read by anything before this test reads it


def counts(text):
    vals = text.split()
    assert len(vals) == 4 and all(v.isdigit() for v in vals), text
    return dict(zip(("hits", "misses", "reads", "ahead"), map(int, vals)))


def test_first_read_misses_and_reads_the_disk_second_read_hits(sh):
    blocks = (os.path.getsize(BUILD / "user/bin" / FILE.split("/")[-1]) + 4095) // 4096
    lines = [COUNTS, "cksum " + FILE, COUNTS, "cksum " + FILE, COUNTS]
    r = sh("\n".join(lines) + "\n", status=True)
    for line in lines:
        assert r.cmd(line).status == 0, (line, r.cmds)
    assert r.printed("cksum " + FILE, 0) == r.printed("cksum " + FILE, 1)
    c0, c1, c2 = (counts(r.printed(COUNTS, k)) for k in range(3))
    first = {k: c1[k] - c0[k] for k in c0}
    second = {k: c2[k] - c1[k] for k in c0}
    # Between two snapshots the shell also starts cksum and vmstat (their headers, a directory
    # lookup): a few blocks of slack, far fewer than the file's.
    slack = 8
    assert first["misses"] + first["ahead"] >= blocks and first["reads"] >= blocks, ("first read", blocks, first)
    assert first["misses"] <= blocks, ("a block read ahead counted as a miss", blocks, first)
    assert second["hits"] >= blocks, ("second read: its blocks are not counted as hits", blocks, second)
    assert second["misses"] <= slack and second["reads"] <= slack, ("second read went to the disk", blocks, second)
