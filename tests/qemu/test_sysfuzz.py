"""The system-call fuzzer (user/sysfuzz.c): a bounded run of a few seeds, three
processes each, then the checks that matter after hostile calls: no panic and no hang (the
run ends in a clean power-off), no fuzzing process killed, the VM audit clean, every frame and
backing block back where it was, the disk's free blocks and descriptors back once the scratch
directory is gone and synced, no setting changed, and the image clean to the host's fsck."""
import re
from conftest import boot, fsck, vmstat_snapshots

SEEDS = (1, 2, 3, 4, 5, 6)
CALLS = 5000


def settings(out):
    """sysctl -a as {name: value}; vm.pageout reads the pages it last wrote, not a setting."""
    rows = dict(re.findall(r"^(\S+)=(\S+)", out, re.M))
    rows.pop("vm.pageout", None)
    return rows


def back_to_baseline(first, last):
    """The counters that must come back once every fuzzing process is gone (after a sync)."""
    free = lambda c: c["mem.frames.free"] + c["mem.frames.cache"]
    problems = []
    if abs(free(last) - free(first)) > 8:
        problems.append("free frames %d -> %d" % (free(first), free(last)))
    if abs(last["vm.frames"] - first["vm.frames"]) > 8:
        problems.append("vm.frames %d -> %d" % (first["vm.frames"], last["vm.frames"]))
    for k in ("vm.swap.blocks", "mem.frames.kernel", "fs.disk.blocks.free", "fs.disk.descriptors.free"):
        if last[k] != first[k]:
            problems.append("%s %d -> %d" % (k, first[k], last[k]))
    return problems


def run_fuzz(disk, seeds=SEEDS, calls=CALLS, cmdline=""):
    lines = ["sysfuzz %d %d" % (s, calls) for s in seeds]
    cmds = "sync\nvmstat\nsysctl -a\n" + "".join(l + "\n" for l in lines) + "sleep 1\nsync\nvmstat\nsysctl -a\naudit\n"
    return boot(cmds, disk=disk, cmdline=cmdline, timeout=300, status=True), lines


def check(r, lines, calls, disk):
    assert r.rc == 0, r                                          # no panic, no hang
    assert "panic" not in r.out and "kernel trap" not in r.out, r
    for line in lines:
        c = r.cmd(line)
        summary = c.out.strip().splitlines()[-1]
        assert c.status == 0, (line, c.out)
        assert re.search(r"^sysfuzz: %d calls, \d+ errors, \d+ forks; 3 of 3 processes finished, 0 killed;"
                         % (3 * calls), summary), (line, c.out)
        assert "scratch removed" in summary, (line, c.out)
    # only a grandchild that exec'd a junk program of its own may die of a fault
    assert not re.search(r"^pid \d+ \(sysfuzz\) killed", r.out, re.M), r
    a = r.cmd("audit")
    assert a.out == "audit: ok\n" and a.status == 0, r
    first, last = vmstat_snapshots(r.printed("vmstat", 0))[0], vmstat_snapshots(r.printed("vmstat", 1))[0]
    assert back_to_baseline(first, last) == [], (back_to_baseline(first, last), r)
    assert settings(r.printed("sysctl -a", 1)) == settings(r.printed("sysctl -a", 0)), r
    assert r.printed("sysctl -a", 0).count("\n") > 10, r
    rc, out = fsck(disk)
    assert rc == 0 and b": ok:" in out, out


def test_sysfuzz_seeds_leave_the_kernel_whole(disk):
    r, lines = run_fuzz(disk)
    check(r, lines, CALLS, disk)


def test_sysfuzz_usage(disk):
    r = boot("sysfuzz\nsysfuzz -p 99 1 10\nsysfuzz 1 x\nsysfuzz -p 1 7 50\n", disk=disk, status=True)
    assert r.rc == 0, r
    for bad in ("sysfuzz", "sysfuzz -p 99 1 10", "sysfuzz 1 x"):
        c = r.cmd(bad)
        assert c.status == 2 and c.out.startswith("usage: sysfuzz [-p PROCS] [-v] SEED COUNT\n"), c
    ok = r.cmd("sysfuzz -p 1 7 50")
    assert ok.status == 0 and "sysfuzz: 50 calls, " in ok.out and "1 of 1 processes finished, 0 killed" in ok.out, ok
