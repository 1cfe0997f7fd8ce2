"""A faulting user program is killed with a one-line message; the shell and kernel go on."""
import re
import pytest
from conftest import boot, vmstat_snapshots


@pytest.mark.parametrize("kind,words", [
    ("null", "page fault"),
    ("kernel", "page fault"),
    ("jump", "page fault"),
    ("div0", "divide error"),
    ("stack", "stack overflow"),
])
def test_fault_kills_only_the_program(sh, kind, words):
    r = sh("fault %s\necho survived\nvmstat\n" % kind, status=True)
    f = r.cmd("fault " + kind)
    killed = [l for l in f.out.splitlines() if re.match(r"pid \d+ \(fault\) killed: ", l)]
    assert len(killed) == 1 and f.status != 0, r.cmds
    assert words in killed[0], r
    assert len(re.findall(r"^pid \d+ \(\w+\) killed: ", r.out, re.M)) == 1, r     # nothing else
    assert r.printed("echo survived") == "survived\n", r
    assert r.cmd("vmstat").status == 0 and vmstat_snapshots(r.printed("vmstat")), r.cmds


def test_faults_leak_no_frames(sh):
    # Warm the cache with every file involved first, so only a leak can change the sum.
    r = sh("fault null\nvmstat\nfault null\nfault stack\nfault div0\nvmstat\n", status=True)
    assert [r.cmd("vmstat", i).status for i in (0, 1)] == [0, 0], r.cmds
    snaps = []
    for i in (0, 1):
        (vals,) = vmstat_snapshots(r.printed("vmstat", i))
        snaps.append(vals["mem.frames.free"] + vals["mem.frames.cache"])
    assert snaps[0] == snaps[1], r
