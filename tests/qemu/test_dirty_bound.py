"""The penalty's promise under writes (issue 24): dirty blocks never pin memory, and a VM ask
that meets only dirty blocks waits for a clean one instead of recycling a page the penalty
protects. Counts, not seconds: the toucher's own page-ins, the dirty count's high-water mark
beside the bound, the negotiation's busy answers."""
import os
import re
import pytest
from conftest import boot

MEM = 16                # MB: the machine
# A disk that a writer can outrun, as any disk can: 250 requests of 4 KB a second. On an idle
# host QEMU's own disk outran the guest's writers only sometimes (the issue saw 13 to 143
# page-ins), and never on a loaded one; throttled, the cleaners fall behind every time.
IOPS = 250
KERNEL = os.environ.get("DIRTY_KERNEL")     # another kernel to try the cases on (an old one)
RUNS = int(os.environ.get("DIRTY_RUNS", "1"))   # the target is every run of 10


def drive(disk):
    return "file=%s,if=virtio,format=raw,throttling.iops-total=%d" % (disk, IOPS)


def toucher_case(disk, workload, settings=""):
    """A 9 MB toucher (every 3 s) that has touched all its memory, then the file workload, on a
    16 MB machine with vm.penalty=120. Returns the run and the toucher's page-ins in the rounds
    after its first (the first fill zero-fills: no page-in), once two whole rounds have begun
    after the workload ended (so the pages it lost were touched again). 3 s between rounds,
    not the issue's 8: the pages are as protected (the penalty is 120 s) and as exposed (under
    vm.penalty=0 the mkdata case loses 75 pages), and each case waits 10 s less."""
    setup = "sysctl vm.penalty=120\n%smklines /tmp/in 6M\nsync\ntoucher -m 9 -s 3 -n 100000 &\n" % settings
    work = "".join(w + "\n" for w in workload) + "echo WORK''DONE\n"
    r = boot(setup, drive=drive(disk), mem=MEM, timeout=900, kernel=KERNEL,
             wait_for=[(r"touch 1 \d+ ms", work),
                       (r"WORKDONE\n(?:.*\n)*?touch \d+ (?:.*\n)*?touch \d+ ",
                        "vmstat fs.dirty\nvmstat neg\nps\n")])
    assert r.rc == 0, r
    tail = r.out.split("WORKDONE\n", 1)
    assert len(tail) == 2, r
    rounds = [(int(n), int(p)) for n, p in re.findall(r"touch (\d+) \d+ ms, (\d+) page-ins", r.out)]
    assert rounds and rounds[0][0] == 1, r
    return r, sum(p for n, p in rounds if n > 1)


SORT = "sort -o /tmp/out /tmp/in"


@pytest.mark.parametrize("workload", [
    [SORT, SORT],
    [SORT.replace("sort", "sort -m 1024"), SORT.replace("sort", "sort -m 1024")],
    ["mkdata /tmp/big 12M"],
], ids=["sort", "sort-m1024", "mkdata12M"])
@pytest.mark.parametrize("run", range(RUNS))
def test_toucher_keeps_its_pages_under_writes(disk, workload, run):
    r, pageins = toucher_case(disk, workload)
    assert pageins <= 2, (pageins, r)


def counters(text):
    return dict((k, int(v)) for k, v in (l.split() for l in text.splitlines() if len(l.split()) == 2))


DIRTY = "vmstat fs.cache.dirty fs.dirty"


@pytest.mark.parametrize("bg,ratio", [(10, 20), (0, 20), (10, 0), (0, 0), (30, 20)])
def test_dirty_count_stays_under_the_bound_during_a_writer(disk, bg, ratio):
    """A 12 MB writer on 16 MB. With an upper bound, the dirty count's high-water mark never
    passes it and the writer was throttled; with a lower bound, the cleaners wrote blocks
    whatever their age (fs.writeback_delay is an hour here); with neither (Sprite), the dirty
    blocks fill the cache far past a fifth of memory. A background ratio at or above the upper
    one is taken as half of it, as Linux does."""
    lines = ["sysctl fs.writeback_delay=3600", "sysctl fs.dirty_background_ratio=%d" % bg,
             "sysctl fs.dirty_ratio=%d" % ratio, "sysctl neg.reset=1", "mkdata /tmp/big 12M", DIRTY,
             "sysctl fs.dirty_ratio=20", "vmstat fs.dirty.limit", "sync", "cksum /tmp/big", "audit"]
    r = boot("\n".join(lines) + "\n", drive=drive(disk), mem=MEM, status=True, timeout=600)
    assert r.rc == 0, r
    assert all(c.status == 0 for c in r.cmds), r.cmds
    c = counters(r.printed(DIRTY))
    limit20 = counters(r.printed("vmstat fs.dirty.limit"))["fs.dirty.limit"]
    assert 600 <= limit20 <= 800, limit20          # a fifth of 16 MB's ~3500 shared frames
    if ratio:
        assert c["fs.dirty.limit"] == limit20 and c["fs.dirty.max"] <= c["fs.dirty.limit"], c
        assert c["fs.dirty.throttled"] > 0 and c["fs.dirty.throttle_ms"] > 0, c
    else:
        assert c["fs.dirty.limit"] == 0 and c["fs.dirty.throttled"] == 0, c
    if bg and ratio and bg >= ratio:
        assert abs(c["fs.dirty.background"] - limit20 // 2) <= 1, c     # half the upper bound
    elif bg:
        assert abs(c["fs.dirty.background"] - limit20 * bg // 20) <= 2, c
    if bg:
        assert c["fs.dirty.scheduled"] > 0, c
    else:
        assert c["fs.dirty.background"] == 0, c
    if not bg and not ratio:
        assert c["fs.dirty.scheduled"] == 0 and c["fs.dirty.max"] > limit20 * 3 // 2, c
    assert c["fs.dirty.stalls"] == 0, c
    assert re.match(r"\d+ 12582912 /tmp/big", r.printed("cksum /tmp/big")), r
    assert "audit: ok" in r.printed("audit"), r



def negrows(text):
    lines = text.splitlines()
    assert lines and lines[0].startswith("seq time_ms asker"), lines[:3]
    return [l.split() for l in lines[1:]]


@pytest.mark.parametrize("wait_ms", [1000, 0])
def test_vm_ask_meeting_only_dirty_blocks_waits_for_a_clean_one(disk, wait_ms):
    """The cache capped at 2 MB and nine tenths filled with dirty blocks that nothing writes by
    age or bound (fewer than the cap: none is recycled); then memhog takes more than the free
    frames, so the VM asks the cache under a 120 s penalty. Once the few clean blocks are
    given, the cache's oldest are dirty: it answers busy and has them written
    (fs.writebacks.recycled), and the VM, waiting (neg.busy_wait_ms), gets their frames: a
    busy row is followed by the cache giving to the VM, and no ask gave up. With no wait
    (0, Sprite's way) the busy answers are the same but every one gives up at once."""
    lines = ["sysctl vm.penalty=120", "sysctl neg.busy_wait_ms=%d" % wait_ms, "sysctl fs.writeback_delay=3600",
             "sysctl fs.dirty_background_ratio=0", "sysctl fs.dirty_ratio=0", "sysctl fs.cache_max_kb=2048",
             "mkdata /tmp/d 1800K", "sysctl neg.reset=1", "vmstat -n fs.writebacks.recycled",
             "memhog 13", "vmstat neg", "vmstat -n fs.writebacks.recycled", "negtrace", "audit"]
    r = boot("\n".join(lines) + "\n", drive=drive(disk), mem=MEM, status=True, timeout=600)
    assert r.rc == 0, r
    assert r.printed("memhog 13") == "memhog: 13 MB ok\n", r
    neg = counters(r.printed("vmstat neg"))
    recycled = int(r.printed("vmstat -n fs.writebacks.recycled", 1)) - int(r.printed("vmstat -n fs.writebacks.recycled"))
    rows = negrows(r.printed("negtrace"))
    busy = [i for i, row in enumerate(rows) if row[2] == "vm" and row[6] == "busy"]
    assert neg["neg.busy"] > 0, (neg, rows[:20])
    assert recycled > 0, recycled
    if wait_ms:
        # Every busy answer was waited out, none given up: the VM got the written block's frame.
        assert neg["neg.busy_gave_up"] == 0 and neg["neg.busy_waited_ms"] > 0, neg
        # The trace is a window of the last asks, and the busy ones can scroll out of it behind
        # hundreds of refusals (memhog past all memory; so a fresh clone's make test once
        # found), with or without a wait: the rows are read only when one is still in it.
        # After a busy answer, the VM's next asks get the cache's frames, now clean.
        if busy:
            assert any(row[2] == "vm" and row[6] == "fs" for row in rows[busy[0] + 1:]), rows
    else:
        assert neg["neg.busy_gave_up"] == neg["neg.busy"] and neg["neg.busy_waited_ms"] == 0, neg
    assert "audit: ok" in r.printed("audit"), r
