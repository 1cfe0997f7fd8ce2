"""The arbiter lab's hook in the kernel (vm.arbiter, kernel/arbiters.c), checked by counts in a 16
MB machine: the reference arbiter (kernel/arbiter_reference.c, the lab's model solution), chosen
at run time, decides the negotiations, learns from the VM's refaults as the kernel's own adaptive
mode does, and protects a sleeping toucher after its first round under pressure; the kernel
never had to refuse an answer; a name not in the table is refused with the setting kept.

The machine is tests/qemu/test_adaptive.py's, shorter: a 9 MB toucher sleeping 4 s while cksum
reads a 20 MB file over and over, counted in guest time as there (-icount shift=3, sleep=off: a
loaded host neither slows the rounds nor the cache's turnover). In the students' tree, which has no reference, it is skipped
(the lab's host tests and the kernel pass of make grade try theirs)."""
import os, re
import pytest
from conftest import boot, ROOT
from test_negotiation import audited
from test_adaptive import SCRIPT, READER, SHIFT

MEM = 16
SLEEP_S = 4
BUSY_MB = 9
COUNTS = "vmstat neg.arbiter_decisions neg.arbiter_errors neg.fs_asks_vm_satisfied refault.vm.early"

pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "kernel", "arbiter_reference.c")),
                                reason="the students' tree has no reference arbiter")


def test_the_reference_arbiter_decides_learns_and_keeps_the_sleeper(disk):
    first = (SCRIPT + "mklines /tmp/big 20M\nsync\nsysctl vm.arbiter=nosuch\nsysctl vm.arbiter=reference\n"
             "sysctl vm.penalty=0\ntoucher -m %d -s %d -n 1000 &\n" % (BUSY_MB, SLEEP_S))
    r = boot(first, disk=disk, mem=MEM, status=True, timeout=900, icount=SHIFT, sleep_off=True, wait_for=[
        (r"touch 1 \d+", "sysctl neg.reset=1\n" + READER),
        (r"touch 5 \d+", COUNTS + "\nsysctl vm.arbiter\naudit\n")])
    assert r.rc == 0, r
    # A name the table does not have is refused, and the setting kept.
    assert re.search(r"vm\.arbiter=nosuch: not a valid value.*; keeping none", r.out), r
    tail = r.out[r.out.rindex("touch 5 "):]
    got = dict((m.group(1), int(m.group(2))) for m in re.finditer(r"^([a-z_.]+) (\d+)$", tail, re.M))
    assert all(n in got for n in COUNTS.split()[1:]), (got, r)
    assert re.search(r"^vm\.arbiter = reference$", tail, re.M), r
    # The arbiter was asked (the mechanical cases never reach it), and answered right each time.
    assert got["neg.arbiter_decisions"] > 500 and got["neg.arbiter_errors"] == 0, (got, r)
    assert got["neg.fs_asks_vm_satisfied"] > 100 and got["refault.vm.early"] > 0, (got, r)
    rounds = {int(n): int(p) for n, p in re.findall(r"touch (\d+) \d+ ms, (\d+) page-ins$", r.out, re.M)}
    # The first round under pressure (2) may pay; from the next on, the learned bias keeps it.
    assert rounds[2] <= BUSY_MB * 256 and all(rounds[n] == 0 for n in (3, 4, 5)), (rounds, r)
    audited(r)
