"""The arbiter lab's recording (neg.arbiter_record=1, kernel/arbiters.c), checked against the
kernel's own counts: every record reaches QEMU's debug console (a file here), the recording
starts with its start record, and between a neg.reset and the end of the recording there is one
refault record for every refault the kernel counted (refault.fs.refaults + refault.vm.refaults:
at least as many as it had counted just before the recording stopped, at most as many as just
after, since the workload runs on),
give-up records, negotiation records and pages used again. The kernel hears the
lab only through the hook it registers while the lab is in use (struct neg_arbiter), so a hook
member left unregistered shows here as records missing.

The machine is tests/qemu/test_arbiter.py's, shorter and without an arbiter: a 9 MB toucher
sleeping 4 s in 16 MB while cksum reads a 20 MB file over and over, without a penalty, so that
the cache takes the sleeper's pages and they come back (refaults)."""
import re
import struct

from conftest import boot
from test_adaptive import SCRIPT, READER, SHIFT
from test_negotiation import values

MEM = 16
COUNTS = "vmstat -n neg.arbiter_records refault.fs.refaults refault.vm.refaults neg.fs_asks_vm neg.vm_asks_fs"
START, NEG, GAVE, REFAULT, USED, RESET = 6, 1, 2, 3, 4, 5


def records(raw):
    """[(type, words)] of the kernel's records of eight 32-bit words."""
    return [(w[0] & 0xFF, w) for w in (struct.unpack_from("<8I", raw, i) for i in range(0, len(raw) - 31, 32))]


def test_the_recording_holds_every_refault_and_give_up_the_kernel_counted(disk, tmp_path):
    out = tmp_path / "negrecord.bin"
    first = (SCRIPT + "mklines /tmp/big 20M\nsync\nsysctl vm.penalty=0\nsysctl neg.arbiter_record=1\n"
             "toucher -m 9 -s 4 -n 1000 &\n")
    r = boot(first, disk=disk, mem=MEM, timeout=900, icount=SHIFT, sleep_off=True,
             extra=["-debugcon", "file:%s" % out], background=r"touch \d+ \d+ ms, \d+ page-ins\n", wait_for=[
                 (r"touch 1 \d+", "sysctl neg.reset=1\n" + READER),
                 (r"touch 4 \d+", COUNTS + "\nsysctl neg.arbiter_record=0\n" + COUNTS + "\naudit\n")])
    assert r.rc == 0 and "audit: ok" in r.out, r
    tail = r.out[r.out.rindex("touch 4 "):]
    # The counters just before the recording stopped and just after: the workload runs on, so
    # what was counted before it stopped must be recorded, and nothing counted after can be.
    n0, n = values(r, COUNTS, 0), values(r, COUNTS, 1)
    refaults = [c["refault.fs.refaults"] + c["refault.vm.refaults"] for c in (n0, n)]
    recs = records(out.read_bytes())
    # Every record the kernel counted is in the file, the recording's start first.
    assert len(recs) == n["neg.arbiter_records"] and recs and recs[0][0] == START and recs[0][1][0] >> 8 == 1, \
        (len(recs), n, tail)
    # From the reset on: the refaults the kernel counted, each once; pages given up; negotiations.
    resets = [i for i, (t, _) in enumerate(recs) if t == RESET]
    assert resets, "no reset record"
    after = [t for t, _ in recs[resets[-1] + 1:]]
    assert 0 < refaults[0] <= after.count(REFAULT) <= refaults[1], (after.count(REFAULT), refaults, tail)
    # and the pages the aging clock found used again after an idle only the bias could cover
    assert after.count(GAVE) > 0 and after.count(NEG) > 0 and after.count(USED) > 0, \
        ({t: after.count(t) for t in set(after)}, n)
    assert n["neg.fs_asks_vm"] + n["neg.vm_asks_fs"] > 0, n
