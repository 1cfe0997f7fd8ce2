"""The penalty's promise under writes (issue 24): a VM ask that meets only dirty blocks waits
for a clean one instead of recycling a page the penalty protects. Counts, not seconds: the
negotiation's busy answers."""
import re
import pytest
from conftest import boot

MEM = 16                # MB: the machine
# A disk that a writer can outrun, as any disk can: 250 requests of 4 KB a second. On an idle
# host QEMU's own disk outran the guest's writers only sometimes (the issue saw 13 to 143
# page-ins), and never on a loaded one; throttled, the cleaners fall behind every time.
IOPS = 250


def drive(disk):
    return "file=%s,if=virtio,format=raw,throttling.iops-total=%d" % (disk, IOPS)


def counters(text):
    return dict((k, int(v)) for k, v in (l.split() for l in text.splitlines() if len(l.split()) == 2))


def negrows(text):
    lines = text.splitlines()
    assert lines and lines[0].startswith("seq time_ms asker"), lines[:3]
    return [l.split() for l in lines[1:]]


@pytest.mark.parametrize("wait_ms", [1000, 0])
def test_vm_ask_meeting_only_dirty_blocks_waits_for_a_clean_one(disk, wait_ms):
    """The cache capped at 2 MB and nine tenths filled with dirty blocks that nothing writes by
    age (fewer than the cap: none is recycled); then memhog takes more than the free
    frames, so the VM asks the cache under a 120 s penalty. Once the few clean blocks are
    given, the cache's oldest are dirty: it answers busy and has them written
    (fs.writebacks.recycled), and the VM, waiting (neg.busy_wait_ms), gets their frames: a
    busy row is followed by the cache giving to the VM, and no ask gave up. With no wait
    (0, Sprite's way) the busy answers are the same but every one gives up at once."""
    lines = ["sysctl vm.penalty=120", "sysctl neg.busy_wait_ms=%d" % wait_ms, "sysctl fs.writeback_delay=3600",
             "sysctl fs.cache_max_kb=2048",
             "mkdata /tmp/d 1800K", "sysctl neg.reset=1", "vmstat -n fs.writebacks.recycled",
             "memhog 13", "vmstat neg", "vmstat -n fs.writebacks.recycled", "negtrace", "audit"]
    r = boot("\n".join(lines) + "\n", drive=drive(disk), mem=MEM, status=True, timeout=600)
    assert r.rc == 0, r
    assert r.printed("memhog 13") == "memhog: 13 MB ok\n", r
    neg = counters(r.printed("vmstat neg"))
    recycled = int(r.printed("vmstat -n fs.writebacks.recycled", 1)) - int(r.printed("vmstat -n fs.writebacks.recycled"))
    rows = negrows(r.printed("negtrace"))
    busy = [i for i, row in enumerate(rows) if row[2] == "vm" and row[6] == "busy"]
    assert neg["neg.busy"] > 0 and busy, (neg, rows[:20])
    assert recycled > 0, recycled
    if wait_ms:
        # after a busy answer, the VM's next asks get the cache's frames, now clean
        assert any(row[2] == "vm" and row[6] == "fs" for row in rows[busy[0] + 1:]), rows
        assert neg["neg.busy_gave_up"] == 0 and neg["neg.busy_waited_ms"] > 0, neg
    else:
        assert neg["neg.busy_gave_up"] == neg["neg.busy"] and neg["neg.busy_waited_ms"] == 0, neg
    assert "audit: ok" in r.printed("audit"), r
