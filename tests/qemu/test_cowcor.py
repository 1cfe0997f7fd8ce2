"""COW-COR fork in a small machine (MEM=16). forktree makes fork trees in which every
process writes and checks its own pattern in its heap and on its stack, so a page shared by
mistake shows as a wrong word; the audit (after every fault where it says so) checks the
COW-COR lists and entries; frames and backing blocks must come back to where they were once
every process of the tree has exited; both fork modes must print the same."""
import re
import pytest
from conftest import boot, vmstat_snapshots

MEM = 16

TREES = ("forktree\n"
         "forktree -o -f\n"                      # parents exit first; children fork at once
         "forktree -e -d 3 -w 2\n"               # leaves exec at once
         "forktree -r -o -f -e -k 32\n")         # the kernel's own copies meet COW and COR




def tree_lines(out):
    return [l for l in out.splitlines() if l.startswith("forktree:")]


def trees(r, *lines):
    """Each forktree line's own output: its "forktree:" lines, its summary last."""
    return [tree_lines(r.printed(l)) for l in lines]


def audited(r):
    a = r.cmd("audit")
    assert a.out == "audit: ok\n" and a.status in (None, 0), r      # None: a boot without status
    assert "audit:" not in r.out.replace("audit: ok", ""), r
    assert "panic" not in r.out and "killed" not in r.out, r


def back_to_baseline(r):
    (first,), (last,) = vmstat_snapshots(r.printed("vmstat", 0)), vmstat_snapshots(r.printed("vmstat", 1))
    assert last["vm.swap.blocks"] == first["vm.swap.blocks"], r
    free = lambda c: c["mem.frames.free"] + c["mem.frames.cache"]
    assert abs(free(last) - free(first)) <= 8, (free(first), free(last), r)
    assert abs(last["vm.frames"] - first["vm.frames"]) <= 8, r


def run_trees(disk, mode, extra="", audit=True):
    cmdline = "vm.fork=%s%s" % (mode, " vm.audit=1" if audit else "")
    return boot("vmstat\n" + TREES + extra + "sleep 1\nvmstat\naudit\n", disk=disk, mem=MEM,
                cmdline=cmdline, timeout=400, status=True)


def test_fork_trees_check_every_word_and_both_modes_print_the_same(make_disk):
    cow = run_trees(make_disk(name="a.img"), "cowcor")
    copy = run_trees(make_disk(name="b.img"), "copy", audit=False)
    for r in (cow, copy):
        assert r.rc == 0, r
        assert [c.status for c in r.cmds] == [0] * len(r.cmds), r.cmds
        audited(r)
        back_to_baseline(r)
        sums = [t[-1] for t in trees(r, *TREES.splitlines())]
        assert sums == ["forktree: 13 processes, 0 bad", "forktree: 25 processes, 0 bad",
                        "forktree: 23 processes, 0 bad", "forktree: 34 processes, 0 bad"], r
        assert [len(t) for t in trees(r, *TREES.splitlines())] == [14, 26, 24, 35], r   # a line per process
    assert trees(cow, *TREES.splitlines()) == trees(copy, *TREES.splitlines())
    c = vmstat_snapshots(cow.printed("vmstat", 1))[-1]
    assert c["vm.cow.marked"] > 0 and c["vm.cor.marked"] >= c["vm.cow.marked"], cow
    assert c["vm.cor.faults"] > 0 and c["vm.cow.faults"] > 0, cow
    assert c["vm.cow.remapped"] > 0, cow                  # parents died before their children
    assert c["vm.cow.list_max"] >= 4, cow                 # one list for a tree, not a tree
    assert c["vm.fork.copies_saved"] > 0, cow
    assert c["vm.fork.copies"] >= c["vm.cor.faults"], cow
    k = vmstat_snapshots(copy.printed("vmstat", 1))[-1]
    assert k["vm.cow.marked"] == 0 and k["vm.cor.marked"] == 0, copy
    assert k["vm.fork.copies"] > c["vm.fork.copies"], (k, c)


def test_fork_trees_under_memory_pressure(disk):
    """Trees much larger than memory: COW pages go to the masters' backing files and come back,
    to the masters and to COR faults of their slaves."""
    r = boot("vmstat\nforktree -k 2048 -f\nforktree -k 1024 -d 3 -w 2 -o -e -p -r\n"
             "sleep 1\nvmstat\naudit\n", disk=disk, mem=MEM, timeout=400)
    assert r.rc == 0, r
    assert tree_lines(r.printed("forktree -k 2048 -f"))[-1] == "forktree: 25 processes, 0 bad", r
    assert tree_lines(r.printed("forktree -k 1024 -d 3 -w 2 -o -e -p -r"))[-1] == "forktree: 23 processes, 0 bad", r
    c = vmstat_snapshots(r.printed("vmstat", 1))[-1]
    assert c["vm.pageouts"] > 1000 and c["vm.pageins"] > 500, r
    assert c["vm.cor.faults.backing"] > 0, r
    audited(r)
    back_to_baseline(r)


def test_orphan_trees_in_little_memory(disk):
    """Processes exit while the pager writes their pages out for a COR fault. The pager's
    reference to such a segment is then the last; freeing the segment there would take the
    cowcor lock that the faulting process holds (a panic: acquiresleep refuses a lock its
    caller holds). At 10-12 MB this workload reaches that case in about 2 boots of 3."""
    r = boot("forktree -k 2048 -d 3 -w 2 -o -e -r\n" * 4 + "sleep 1\nvmstat\naudit\n", disk=disk,
             mem=11, timeout=400)
    assert r.rc == 0, r
    assert r.out.count("forktree: 23 processes, 0 bad") == 4, r
    audited(r)


def test_paged_out_cow_pages_keep_their_dependants_under_each_policy(disk):
    r = boot("sysctl vm.policy=fifo\nforktree -k 256 -d 2 -w 3 -p\nsysctl vm.policy=random\n"
             "forktree -k 256 -o -p -r\nsysctl vm.policy=clock\nvmstat\naudit\n",
             disk=disk, mem=MEM, cmdline="vm.audit=1", timeout=400, status=True)
    assert r.rc == 0, r
    assert [c.status for c in r.cmds] == [0] * len(r.cmds), r.cmds
    assert [t[-1] for t in trees(r, "forktree -k 256 -d 2 -w 3 -p", "forktree -k 256 -o -p -r")] \
        == ["forktree: 13 processes, 0 bad"] * 2, r
    assert [r.printed("sysctl vm.policy=" + p) for p in ("fifo", "random", "clock")] \
        == ["vm.policy = %s\n" % p for p in ("fifo", "random", "clock")], r
    assert vmstat_snapshots(r.printed("vmstat"))[-1]["vm.cor.faults.backing"] > 0, r
    audited(r)


def test_vm_fork_setting(disk):
    r = boot("sysctl vm.fork\nforkbench -n 2 64\nsysctl vm.fork=copy\nforkbench -n 2 64\n"
             "sysctl vm.fork=nosuch\nsysctl vm.fork\naudit\n", disk=disk, mem=MEM, status=True)
    assert r.rc == 0, r
    assert r.printed("sysctl vm.fork") == "vm.fork = cowcor\n", r
    assert re.search(r"^fork 64 cowcor/resident \d+$", r.printed("forkbench -n 2 64", 0), re.M), r
    assert re.search(r"^fork 64 copy/resident \d+$", r.printed("forkbench -n 2 64", 1), re.M), r
    assert r.printed("sysctl vm.fork=copy") == "vm.fork = copy\n", r
    nosuch = r.cmd("sysctl vm.fork=nosuch")
    assert nosuch.out.startswith("sysctl: vm.fork=nosuch: not a valid value") and nosuch.status != 0, r.cmds
    assert r.printed("sysctl vm.fork", 1) == "vm.fork = copy\n", r
    assert all(c.status == 0 for c in r.cmds if c is not nosuch), r.cmds
    audited(r)
    r2 = boot("sysctl vm.fork\n", disk=disk, mem=MEM, cmdline="vm.fork=copy")
    assert r2.rc == 0 and r2.printed("sysctl vm.fork") == "vm.fork = copy\n", r2
