"""Demand-paged virtual memory in a small machine (MEM=16; the paging workloads in 8 MB,
TWICE_MEM): every byte comes back from backing store under each policy, zero fill, shared code, the clock's counters, limits,
policy switching under load. The audit runs after every workload, so a wrong implementation
cannot pass by printing the right output."""
import re
import pytest
from conftest import BUILD, boot, vmstat_snapshots

MEM = 16
POLICIES = ["clock", "fifo", "lru", "clusterlru", "random", "spt"]




def audited(r):
    """The `audit` command found nothing, nor did the kernel's audits (vm.audit=1) meanwhile.
    Boots that use it send status=True."""
    a = r.cmd("audit")
    assert a.out == "audit: ok\n" and a.status == 0, r
    assert "audit:" not in r.out.replace("audit: ok", ""), r


def ran(r):
    """Every command exited 0 (boot with status=True)."""
    assert [c.status for c in r.cmds] == [0] * len(r.cmds), r.cmds


# Twice the memory, in the smallest machine that pages comfortably: 8 MB (about 1,500 frames
# for the VM) and 16 MB of memhog. The policies' cost is their CPU, not the disk: lru and spt
# sample every frame's accessed bit each tick and before each choice, so a run costs frames
# times evictions, and half the machine with half the bytes is about a quarter of 16 and 32.
# The meaning is the same: a working set twice the frames, written, read back twice, every
# word checked, most of it paged out and in under the policy booted with.
TWICE_MEM, TWICE_MB = 8, 16
TWICE_PAGES = TWICE_MB * 256


@pytest.mark.parametrize("policy", POLICIES)
def test_twice_memory_comes_back_under_each_policy(disk, policy):
    hog = "memhog %d 7" % TWICE_MB
    r = boot("%s\nvmstat\naudit\n" % hog, disk=disk, mem=TWICE_MEM, cmdline="vm.policy=" + policy,
             timeout=400, status=True)
    assert r.rc == 0, r
    ran(r)
    assert r.printed(hog) == "memhog: %d MB ok\n" % TWICE_MB, r
    (c,) = vmstat_snapshots(r.printed("vmstat"))
    assert c["vm.pageouts"] >= TWICE_PAGES // 2, r      # at least half of it went out
    assert c["vm.pageins"] >= TWICE_PAGES // 2, r       # and came back
    assert c["vm.faults.zero"] >= TWICE_PAGES, r        # every page of it was fresh once
    audited(r)


def test_zero_fill_reads_zero_and_audit_after_every_fault(disk):
    r = boot("memhog -z 6\nmemhog 3\nls /bin\naudit\n", disk=disk, mem=MEM,
             cmdline="vm.audit=1", timeout=300, status=True)
    assert r.rc == 0, r
    ran(r)
    assert r.printed("memhog -z 6") == "memhog: 6 MB of zeros ok\n" and r.printed("memhog 3") == "memhog: 3 MB ok\n", r
    assert "sh\n" in r.printed("ls /bin"), r
    assert "panic" not in r.out, r
    audited(r)


def test_code_is_shared_between_copies_of_a_program(disk):
    r = boot("vmstat -n vm.frames\nsleep 20 &\nsleep 1\nvmstat -n vm.frames\nsleep 20 &\nsleep 1\n"
             "vmstat -n vm.frames\naudit\n", disk=disk, mem=MEM, status=True)
    assert r.rc == 0, r
    ran(r)
    nums = [int(r.printed("vmstat -n vm.frames", i)) for i in range(3)]
    one, two = nums[1] - nums[0], nums[2] - nums[0]
    assert one > 0 and two < 2 * one, (one, two, r)
    audited(r)


def test_pageout_sysctl_pushes_pages_out_and_they_come_back(disk):
    r = boot("memhog 2\nvmstat -n vm.pageouts\nsysctl vm.pageout=0\nvmstat\necho still here\nmemhog 4\nvmstat\naudit\n",
             disk=disk, mem=MEM, status=True)
    assert r.rc == 0, r
    ran(r)
    m = re.fullmatch(r"vm.pageout = (\d+)\n", r.printed("sysctl vm.pageout=0"))
    assert m and int(m.group(1)) > 0, r
    assert r.printed("echo still here") == "still here\n" and r.printed("memhog 4") == "memhog: 4 MB ok\n", r
    (before,), (after,) = vmstat_snapshots(r.printed("vmstat", 0)), vmstat_snapshots(r.printed("vmstat", 1))
    assert after["vm.pageins"] > before["vm.pageins"], r
    # Each page it reports written is a page-out (nothing else pages out: no memory pressure).
    assert before["vm.pageouts"] == int(r.printed("vmstat -n vm.pageouts")) + int(m.group(1)), r
    audited(r)


def test_policy_switches_under_load(disk):
    # In the twice test's 8 MB: 14 MB (nearly twice the frames) switched through five
    # policies, 10 MB under the one switched to after; the same ratios as 28 and 20 in 16 MB
    r = boot("sysctl vm.policy=nosuch\nmemhog -p lru,fifo,clusterlru,random,clock 14 3\n"
             "sysctl vm.policy\nsysctl vm.policy=fifo\nmemhog 10 4\naudit\n",
             disk=disk, mem=TWICE_MEM, timeout=400, status=True)
    assert r.rc == 0, r
    nosuch = r.cmd("sysctl vm.policy=nosuch")                                   # an unknown name is refused
    assert nosuch.status != 0 and nosuch.out.startswith("sysctl: vm.policy=nosuch: not a valid value"), r
    assert all(c.status == 0 for c in r.cmds[1:]), r.cmds
    assert r.printed("memhog -p lru,fifo,clusterlru,random,clock 14 3") == "memhog: 14 MB ok\n", r
    assert r.printed("memhog 10 4") == "memhog: 10 MB ok\n", r
    assert re.fullmatch(r"vm.policy = (%s)\n" % "|".join(POLICIES), r.printed("sysctl vm.policy")), r
    assert r.printed("sysctl vm.policy=fifo") == "vm.policy = fifo\n", r
    assert "cannot switch" not in r.out, r
    audited(r)


def test_out_of_backing_store_kills_or_fails_only_that_process(make_disk):
    # /bin and about 20 MB: the 18 MB /fill fits, a 6 MB stack after it does not, whatever /bin weighs
    binmb = (sum(f.stat().st_size for f in (BUILD / "user/bin").iterdir()) >> 20) + 1
    d = make_disk(size_mb=binmb + 20)
    r = boot("vmstat\nmemhog 40\nmkdata /fill 18M\nmemhog -s 6\necho survived\nrm /fill\n"
             "memhog 8\nvmstat\naudit\n", disk=d, mem=MEM, timeout=400, status=True)
    assert r.rc == 0, r
    big = r.cmd("memhog 40")
    # 40 MB fits memory and address space, not the disk: the message says which ran out
    assert big.out == "memhog: cannot get 40 MB: No space left for the backing store (disk full)\n" \
        and big.status != 0, r.cmds
    stack = r.cmd("memhog -s 6")
    killed = [l for l in stack.out.splitlines() if re.match(r"pid \d+ \(memhog\) killed: ", l)]
    assert len(killed) == 1 and "backing store" in killed[0] and stack.status != 0, r.cmds
    assert len(re.findall(r"^pid \d+ \(\w+\) killed: ", r.out, re.M)) == 1, r     # only that one
    assert r.printed("echo survived") == "survived\n" and r.printed("memhog 8") == "memhog: 8 MB ok\n", r
    assert all(c.status == 0 for c in r.cmds if c.line not in ("memhog 40", "memhog -s 6")), r.cmds
    (first,), (last,) = vmstat_snapshots(r.printed("vmstat", 0)), vmstat_snapshots(r.printed("vmstat", 1))
    assert last["vm.swap.blocks"] == first["vm.swap.blocks"], r
    free = lambda c: c["mem.frames.free"] + c["mem.frames.cache"]
    assert abs(free(last) - free(first)) <= 4, r
    audited(r)


def test_vmtest_after_irlam(disk):
    r = boot("vmtest 4 3\nvmtest 16 2\nvmtest -t 300 4\nvmtest -t\nvmtest 140 1\nvmtest -l 2000 32 20000\nvmtest -l 60000 4 3\nps\n"
             "audit\n", disk=disk, mem=MEM, timeout=400, status=True)
    assert r.rc == 0, r
    runs = [r.cmd(c) for c in ("vmtest 4 3", "vmtest 16 2", "vmtest -t 300 4")]
    assert all(c.status == 0 and c.out.startswith("vmtest: ") and c.out.count("\n") == 1
               and "FAILED" not in c.out for c in runs), r.cmds
    assert r.printed("vmtest 4 3").startswith("vmtest: 4 MB, 2 procs, 3 loops: "), r
    m = re.match(r"vmtest: 16 MB, 8 procs, 2 loops: \d+ ms, (\d+) faults", r.printed("vmtest 16 2"))
    assert m and int(m.group(1)) >= 8 * 500, r      # each child's 2 MB, zero-filled
    # Timed: both children sweep for 300 ms; the rate is their sweeps over the time taken.
    m = re.match(r"vmtest: 4 MB, 2 procs, (\d+) sweeps in (\d+) ms: (\d+) touches/s", r.printed("vmtest -t 300 4"))
    assert m, r
    sweeps, ms, rate = map(int, m.groups())
    assert sweeps >= 2 and 300 <= ms < 30000 and rate == sweeps * 512 * 1000 // ms, r
    assert r.printed("vmtest -t") == "usage: vmtest [-t MS | -l MS] MB [LOOPS]\n" and r.cmd("vmtest -t").status != 0, r.cmds
    # 70 processes where the kernel has 64 slots: a fork fails, and the run is refused with the
    # children started gone before any allocated (the runs after it fork 16 again).
    full = r.cmd("vmtest 140 1")
    assert re.fullmatch(r"vmtest: fork failed: (\d+) of 70 processes started, none run\n", full.out), r.cmds
    assert full.status == 1 and int(re.search(r"(\d+) of", full.out).group(1)) < 64, r.cmds
    # With a limit: 32 MB on 16 MB of memory thrashes (every touch a page-in), so 20,000 sweeps
    # each are not done in 2 s; the run stops there, its children killed, and says so. A run
    # inside its limit reports as without one.
    cut = r.cmd("vmtest -l 2000 32 20000")
    m = re.match(r"vmtest: 32 MB, 16 procs, 20000 loops: not done in (\d+) ms \((\d+) of 16 processes done\), "
                 r"\d+ faults, (\d+) pageins", cut.out)
    assert m and cut.status == 0 and 2000 <= int(m.group(1)) < 30000 and int(m.group(2)) < 16, r.cmds
    assert int(m.group(3)) > 16 * 512, r    # more than each child's 2 MB paged in once
    assert re.match(r"vmtest: 4 MB, 2 procs, 3 loops: \d+ ms, ", r.printed("vmtest -l 60000 4 3")), r
    assert " vmtest" not in r.printed("ps"), r          # neither children nor the timer left behind
    audited(r)
