"""A faulting user program is killed with a one-line message; the shell and kernel go on."""
import pytest
from conftest import boot


@pytest.mark.parametrize("kind,words", [
    ("null", "page fault"),
    ("kernel", "page fault"),
    ("jump", "page fault"),
    ("div0", "divide error"),
    ("stack", "stack overflow"),
])
def test_fault_kills_only_the_program(sh, kind, words):
    r = sh("fault %s\necho survived\nvmstat\n" % kind)
    killed = [l for l in r.out.splitlines() if "killed:" in l and "(fault)" in l]
    assert len(killed) == 1, r
    assert words in killed[0], r
    assert "\nsurvived\n" in r.out, r


def test_faults_leak_no_frames(sh):
    # Warm the cache with every file involved first, so only a leak can change the sum.
    r = sh("fault null\nvmstat\nfault null\nfault stack\nfault div0\nvmstat\n")
    snaps = []
    for chunk in r.out.split("mem.frames.total")[1:]:
        vals = dict(l.split() for l in ("mem.frames.total" + chunk).splitlines() if len(l.split()) == 2)
        snaps.append(int(vals["mem.frames.free"]) + int(vals["mem.frames.cache"]))
    assert len(snaps) == 2 and snaps[0] == snaps[1], r
