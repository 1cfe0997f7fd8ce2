"""Replacement order inside the kernel, observed exactly: which blocks the file cache holds
(incore, a lookup that leaves the LRU order alone) and how many pages come back (vm.pageins).

One boot serves the three tests: a machine of 8 MB with a small cache (16 blocks, then 32) and
write-through, so that no block is dirty (a dirty block at the LRU head is skipped and freed
later by a cleaner, which would make the order depend on the cleaners' timing), and no daemon
scan (the interval is an hour), and no read-ahead (fs/readahead.c would bring in blocks
nobody asked for: tests/qemu/test_clustered_io.py tests it). incore -r does its reads and its
report in one program, since starting a program itself brings blocks into the cache.
"""
import re
import struct
import subprocess

import pytest

from conftest import BUILD, PRISTINE, boot

CMDLINE = "fs.cache_max_kb=64 fs.write_policy=through fs.scan_interval=3600 vm.policy=clock fs.readahead=0"
SLEEP = BUILD / "user/bin/sleep"


def elf_blocks(path):
    """An executable's file block holding its entry point (its first code page), and every
    block a loadable part covers (what demand loading may copy)."""
    elf = path.read_bytes()
    entry, phoff = struct.unpack_from("<II", elf, 24)
    phnum = struct.unpack_from("<H", elf, 44)[0]
    first, loadable = None, set()
    for i in range(phnum):
        typ, off, vaddr, _, filesz = struct.unpack_from("<5I", elf, phoff + 32 * i)
        if typ != 1 or filesz == 0:
            continue
        loadable.update(range(off // 4096, (off + filesz - 1) // 4096 + 1))
        if vaddr <= entry < vaddr + filesz:
            first = (off + entry - vaddr) // 4096
    assert first is not None, "no loadable part holds the entry point of %s" % path
    return first, loadable


CODE, LOADABLE = elf_blocks(SLEEP)
LAST = (SLEEP.stat().st_size - 1) // 4096              # debug information: never loaded
TAIL = list(range(LAST - 11, LAST + 1))

# (1) 0..14 and the indirect block fill the 16 blocks; 0 is read again; 15 then evicts the
#     least recently used block: 1, not 0.
LRU = "incore -r %s /F" % ",".join(map(str, list(range(15)) + [0, 15]))
# (2) with room for 32 blocks, the last 12 blocks of sleep, then its first code block, are
#     read after those of /F; running sleep copies the code block for demand loading and makes
#     it the oldest: the next blocks the cache needs take it first. By LRU alone it would
#     outlast all of them.
WARM = "incore -r %s,%d /bin/sleep" % (",".join(map(str, TAIL)), CODE)
AFTER = "incore -r 20,21 /F /bin/sleep"
# (3) a 64 KB working set read after every page of 8 MB of fresh memory, three times over, in
#     8 MB of memory: the clock spares it (referenced since the hand's last visit).
KEEP = "memhog -k 64 8"
LINES = ["mkdata /F 96K 1", LRU, "sysctl fs.cache_max_kb=128", WARM, "sleep 0", AFTER,
         "sysctl fs.write_policy=delay", KEEP]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    disk = tmp_path_factory.mktemp("replacement") / "fs.img"
    subprocess.run(["cp", "--sparse=always", str(PRISTINE), str(disk)], check=True)
    r = boot("\n".join(LINES) + "\n", disk=disk, mem=8, cmdline=CMDLINE, status=True)
    assert r.rc == 0, r
    for line in LINES:
        assert r.cmd(line).status == 0, (line, r.cmd(line), r)
    return r


def cached(line):
    """incore's "PATH: C of N blocks cached: 0 2-15 (dirty: ...)" as a set of block numbers."""
    blocks = set()
    for item in line.split("cached:")[1].split("(")[0].split():
        if item != "none":
            lo, _, hi = item.partition("-")
            blocks.update(range(int(lo), int(hi or lo) + 1))
    return blocks


def test_a_block_read_again_is_not_the_next_to_go(run):
    assert cached(run.printed(LRU)) == {0} | set(range(2, 16)), run


def test_a_code_block_copied_for_demand_loading_goes_first(run):
    assert not LOADABLE & set(TAIL), (LOADABLE, TAIL)
    assert cached(run.printed(WARM)) == {CODE} | set(TAIL), run
    f, s = run.printed(AFTER).splitlines()
    assert f.startswith("/F:") and s.startswith("/bin/sleep:"), run
    assert CODE not in cached(s) and set(TAIL) <= cached(s), run
    assert cached(f) & set(range(16)), run             # even older blocks stayed


def test_the_clock_gives_a_referenced_page_a_second_chance(run):
    m = re.fullmatch(r"memhog: kept 64 KB: (\d+) page-ins, (\d+) evictions in passes 2-3\n",
                     run.printed(KEEP))
    assert m, run
    pageins, evictions = int(m.group(1)), int(m.group(2))
    assert pageins == 0, run
    assert evictions > 2048, run                        # more than a pass of the fresh pages went
