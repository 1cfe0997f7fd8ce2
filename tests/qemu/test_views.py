"""Modes and views held against the kernel's own figures, in the guest.

- The stepped penalty (vm.penalty_mode=stepped, kernel/mem/negotiate_rule.c): every negotiation's
  penalty, as negtrace prints it, is vm.penalty times the whole tenths of the shared frames
  the cache held, computed here from that row's own pool sizes, and its verdict is what the
  rule gives for the row's ages and that penalty. A penalty computed from the wrong pool's
  frames, or recorded but not applied, fails.
- The reference trace's modified bit (vm/trace.c) with epochs longer than the aging sweep's
  pass (2 s): the sweep sees a written page's dirty bit first and folds it into the frame
  (VMF_DIRTY), and the page must still be marked modified in the epoch it was written; pages
  only read are never marked so.
- gdb's frames, pt and seg (tools/gdb) against SYS_vmpages (scaffold/vm_view.c), stopped where the
  kernel has walked a process's page tables: each page's frame, pool, owner, page, accessed
  and dirty bits, COW and age; gdb's lru and frames cache against SYS_incore, stopped where
  the cache has answered for a file's blocks: which are held and which dirty.
- gdb's idea of the VM's next victim (frames' last line) against oldest_victim's return.
- gdb's negbreak in its vm-asks mode and alone (every negotiation), each stop's prediction
  against neg_decide's return; gdb's ps against the kernel's own ^P dump at the same moment:
  states, what each sleeper waits on and the function that called sleep().
- Settings whose modes ran only on the host or were only read back, or only at their default:
  vm.policy=aging, vm.clock_rate, vm.cluster, vm.spt_epoch_ms, fs.backing_reserve (2048 and 0
  on a disk a user filled), fs.cache_min_kb, each seen to take effect in the guest.
Each guard is shown failing on a planted bug (tests/mutants/catalog.txt, docs/testing.md).
"""
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, ROOT, boot, fsck
from gdbsession import DEBUG_KERNEL, KERNEL, errors, session

MEM = 16


# --- the stepped penalty ------------------------------------------------------------------------

PENALTY_S = 3


def stepped_ms(cache, vm, free, penalty_s=PENALTY_S):
    """kernel/mem/negotiate_rule.c's rule, written again: penalty_s for each whole tenth of the
    frames the cache, the VM and the free pool share that the cache holds."""
    per_group = (cache + vm + free) // 10
    units = cache // per_group if per_group else 0
    return units * penalty_s * 1000


def verdict(asker, fs, vm, time_ms, penalty_ms):
    """neg_decide for a negtrace row: 'own', 'other' or 'none' (the kernel asks as the cache)."""
    def offer(age):
        if age == "refuse":
            return True, 0
        # "<=N": the pool was not asked, N its bound's age: the rule, given the oldest page the
        # pool could have had, must keep the asker's own (kernel/mem/negotiate_rule.c, neg_keeps_own)
        return False, 0 if age == "free" else time_ms - int(age.lstrip("<="))
    f, v = offer(fs), offer(vm)
    own, other = (v, f) if asker == "vm" else (f, v)
    if other[0]:
        return "none" if own[0] else "own"
    if own[0]:
        return "other"
    own_t, other_t = own[1], other[1]
    if asker == "vm":
        own_t += penalty_ms
    else:
        other_t += penalty_ms
    return "other" if other_t < own_t else "own"


def negrows(r, line, nth=0):
    out = r.printed(line, nth).splitlines()
    assert out and out[0] == "seq time_ms asker fs_age_ms vm_age_ms penalty_s gave cache_frames vm_frames free_frames vm_refaults vm_saved evidence_age_ms", out
    return [row.split() for row in out[1:]]


def test_stepped_penalty_is_charged_for_the_caches_share(disk):
    """The cache fills most of 16 MB with a file read; memhogs of 2, 6 and 10 MB then take it
    back a tenth at a time (the VM asks), and a read of the file with a sleeping toucher
    holding 6 MB has the cache ask the VM. Every row's penalty is the stepped one for that
    row's own pool sizes, the penalties seen span several steps, and every verdict is the
    rule's for the row's ages and penalty."""
    lines = ["sysctl vm.penalty_mode=stepped", "sysctl vm.penalty=%d" % PENALTY_S, "mklines /tmp/big 20M", "sync",
             "cksum /tmp/big", "sysctl neg.reset=1", "memhog 2", "negtrace -n 64", "memhog 6", "negtrace -n 64",
             "memhog 10", "negtrace -n 64", "toucher -m 6 -s 600 -n 1 -q &", "sleep 6", "sysctl neg.reset=1",
             "cksum /tmp/big", "negtrace", "sysctl vm.penalty_mode", "audit"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=MEM, status=True, timeout=600)
    assert r.rc == 0, r
    assert "vm.penalty_mode = stepped" in r.printed("sysctl vm.penalty_mode"), r
    assert "audit: ok" in r.printed("audit"), r
    rows = []
    for nth in range(3):
        got = negrows(r, "negtrace -n 64", nth)
        assert len(got) == 64, r
        rows += got
    cksum = negrows(r, "negtrace")
    assert len(cksum) > 64, r
    rows += cksum
    steps, checked, fs_asks = set(), 0, 0
    for seq, t, asker, fs, vm, pen_s, gave, cache, vmf, free, _, _, _ in rows:
        cache, vmf, free, t = int(cache), int(vmf), int(free), int(t)
        # 16 MB: about 3500 frames shared; the row's own figures say what it was charged
        assert 3000 <= cache + vmf + free <= 4096, (seq, cache, vmf, free)
        want = stepped_ms(cache, vmf, free)
        assert int(pen_s) * 1000 == want, ("penalty", seq, pen_s, want, cache, vmf, free)
        steps.add(want)
        if gave != "none":
            v = verdict(asker, fs, vm, t, want)
            own = "fs" if asker in ("fs", "kernel") else "vm"
            assert (v == "own") == (gave == own), ("verdict", seq, asker, fs, vm, want, gave, v)
            checked += 1
        fs_asks += asker == "fs"
    # the cache's share fell from about eight tenths to about four: several steps charged
    assert len(steps) >= 3, sorted(steps)
    assert checked > 200 and fs_asks > 0, (checked, fs_asks)


# The disk driver's watchdog (drivers/virtio_blk.c): in guest time with sleep=off the guest's
# clock runs on while it idles waiting for the host's disk, so on a slow host a request can
# take a guest second; the driver then polls and notifies again (harmless) and says so.
DISK_WATCHDOG = re.compile(r"^virtio-blk: no completion for \d+ s \(\d+ in flight\): polled, .*\n", re.M)


def printed_in_guest_time(r, line, nth=0):
    """What line printed, without the disk watchdog's notes, which a boot in guest time may
    interleave with it."""
    return DISK_WATCHDOG.sub("", r.printed(line, nth))


# --- the trace's modified bit, epochs longer than the aging sweep's pass --------------------------

EPOCH_MS = 4000
TOUCH = "trace -e %d -w slow -o /s.trace toucher -m 1 -s 4.5 -n 3 -q" % EPOCH_MS


def test_long_epochs_mark_written_pages_modified(disk):
    """The toucher writes the even pages of its 1 MB and reads the odd ones, one round every
    4.5 s; epochs are 4 s, so each of the first three holds one round 4, 3.5 and 3 s before
    the sample, and the aging sweep (a pass every 2 s) has taken every written page's dirty
    bit by then. Each such epoch must still mark the written pages modified, and the pages
    only read never. In guest time (-icount shift=3, sleep=off): the rounds, the epochs and
    the sweep's passes are counted by one clock that a loaded host does not slow or skew
    against each other. (A sleeping guest still costs real time: each of its 1000 ticks a
    second is work for QEMU's threads, which wait for the host's CPU when it is busy. Hence
    rounds only as far apart as the sweep needs, not 7 s.)"""
    lines = [TOUCH, "vmstat -n vm.age_lag_ms vm.clock.sweeps", "audit", "pages 999"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=MEM, status=True, timeout=400, icount=3, sleep_off=True)
    assert r.rc == 0, r
    c = r.cmd(TOUCH)
    assert c.status == 0 and ", 0 lost" in c.out, r
    lag, sweeps = [int(x) for x in printed_in_guest_time(r, "vmstat -n vm.age_lag_ms vm.clock.sweeps").split()]
    # a pass within the smallest gap (3 s), and passes all along the 13.5 s of rounds
    assert lag <= 2500 and sweeps >= 5, (lag, sweeps)
    assert "audit: ok" in r.printed("audit"), r
    c = r.cmd("pages 999")
    assert c.status == 1 and "pages: 999: no such process" in c.out, c
    text = subprocess.run([str(BUILD / "fsck"), str(disk), "--cat", "/s.trace"], stdout=subprocess.PIPE,
                          check=True, text=True).stdout
    assert text.startswith("# trace epoch_ms=%d workload=slow" % EPOCH_MS), text[:200]
    recs = [tuple(map(int, l.split())) for l in text.splitlines() if not l.startswith("#")]
    # the toucher's heap: the segment with the most pages
    pages = {}
    for e, seg, page, ref, mod in recs:
        pages.setdefault(seg, set()).add(page)
    heap = max(pages, key=lambda k: len(pages[k]))
    assert len(pages[heap]) >= 256, len(pages[heap])
    by_epoch = {}
    for e, seg, page, ref, mod in recs:
        if seg == heap:
            by_epoch.setdefault(e, {})[page] = (ref, mod)
    # the toucher's 1 MB: referenced in each of the first three epochs (a round in each);
    # the heap's first pages (the program's data) may be used less often
    core = set(pages[heap])
    for e in range(3):
        core &= {p for p, (ref, mod) in by_epoch.get(e, {}).items() if ref}
    assert len(core) >= 256, len(core)
    written = {p for p in core if by_epoch[0][p][1]}
    assert len(written) >= 128 and len(core - written) >= 127, (len(written), len(core - written))
    # every other page written (toucher: even pages written, odd ones read)
    assert sum(p + 1 in written for p in written) <= 2, sorted(written)
    for e in range(3):
        mods = {p for p in core if by_epoch[e][p][1]}
        assert mods == written, (e, len(mods), sorted(mods ^ written)[:8])


# --- gdb's frames, pt and seg against the kernel's own walk (SYS_vmpages) ------------------------

DUMP_PAGES = ("python exec(\"import gdb\\ninfo = gdb.parse_and_eval(\\\"'scaffold/vm_view.c'::info\\\")\\n"
              "print('now', int(info['now_ms']), int(info['count']))\\n"
              "for i in range(min(int(info['count']), 512)):\\n"
              " r = gdb.parse_and_eval(\\\"'scaffold/vm_view.c'::out[%d]\\\" % i)\\n"
              " print('vmpage', *[int(r[f]) for f in ('va', 'frame', 'pool', 'flags', 'type', 'seg', "
              "'owner_seg', 'owner_va', 'lastref_ms')])\")")
POOLS = {0: "none", 1: "free", 2: "kernel", 3: "cache", 4: "vm"}
TYPES = {0: "code", 1: "heap", 2: "stack"}
ACCESSED, DIRTY, COW, WRITE, BUSY = 0x1, 0x2, 0x4, 0x8, 0x10


def table_rows(text, first):
    lines = [l for l in text.splitlines() if l.strip()]
    start = next(i for i, l in enumerate(lines) if l.split()[0] == first)
    head = re.split(r"\s{2,}", lines[start].strip())
    return head, [re.split(r"\s{2,}", l.strip()) for l in lines[start + 1:] if not l.startswith("@@@")]


@pytest.mark.parametrize("kernel", [DEBUG_KERNEL, KERNEL], ids=["debug", "optimised"])
def test_frames_pt_seg_agree_with_the_kernels_walk(disk, kernel):
    """A toucher writes half of its 1 MB and reads the rest every second, so that at any
    moment some of its pages are accessed and some not, some dirty and some clean. gdb stops
    `pages PID` where the kernel has walked the toucher's page tables (vm_lock still held:
    nothing has moved since) and every page the kernel reported is held against what frames,
    pt and seg say of it: pool, owner and page, accessed, dirty, cow, busy, age, frame."""
    guest = [(None, "toucher -m 1 -s 1 -n 1000 -q &\n"),
             (r"^\[(\d+)\]$", lambda m: "sleep 3\npages %s\n" % m.group(1))]
    pid = 10                            # the toucher, as every boot makes it; checked below
    # stopped as the walk returns: vm_lock is still held, so nothing has changed since
    steps = ['break vmpages_walk if $_streq(current->name, "pages")', "continue", "delete", "finish", DUMP_PAGES,
             "frames vm", "pt %d" % pid, "seg %d" % pid, "kill"]
    r = session(disk, guest, steps, kernel=kernel)
    m = re.search(r"^\[(\d+)\]$", r.console, re.M)
    assert m and int(m.group(1)) == pid, r
    for c in steps[:-1]:
        assert not errors(r.of(c)), (c, r.of(c), r)
    dump = r.of(DUMP_PAGES).splitlines()
    now, count = [int(x) for x in next(l for l in dump if l.startswith("now ")).split()[1:]]
    kernel_pages = [list(map(int, l.split()[1:])) for l in dump if l.startswith("vmpage ")]
    assert len(kernel_pages) == count >= 256, (count, r)

    head, rows = table_rows(r.of("frames vm"), "FRAME")
    frames = {int(row[0]): row for row in rows if re.fullmatch(r"\d+", row[0])}
    head, rows = table_rows(r.of("pt %d" % pid), "VA")
    pt = {int(row[0], 16): dict(zip(head, row)) for row in rows}
    head, rows = table_rows(r.of("seg %d" % pid), "SEG")
    segs = {int(row[0]): dict(zip(head, row)) for row in rows}
    kinds = set()
    for va, frame, pool, flags, typ, seg, owner_seg, owner_va, lastref in kernel_pages:
        assert pool == 4 and owner_seg == seg and owner_va == va, (hex(va), frame, pool, owner_seg, hex(owner_va))
        row = frames.get(frame)
        assert row is not None, ("frames does not list", frame, hex(va))
        assert row[2] == POOLS[pool], row
        assert row[3] == "pid %d toucher %s seg %d page 0x%08x" % (pid, TYPES[typ], owner_seg, owner_va), (row, hex(va))
        words = row[5].split()
        for bit, word in ((ACCESSED, "accessed"), (DIRTY, "dirty"), (COW, "cow"), (BUSY, "busy")):
            assert (word in words) == bool(flags & bit), (word, hex(va), frame, flags, row)
        if lastref:
            assert abs(float(row[4]) - (now - lastref) / 1000.0) <= 0.051, (row, now, lastref)
        kinds.add((bool(flags & ACCESSED), bool(flags & DIRTY)))
        e = pt[va]
        assert e["STATE"] == "present" and int(e["FRAME"]) == frame and int(e["SEG"]) == seg, e
        bits = e["BITS"].split()
        assert ("A" in bits) == bool(flags & ACCESSED) and ("W" in bits) == bool(flags & WRITE), (e, flags)
        assert ("COW" in bits) == bool(flags & COW) and ("D" not in bits or flags & DIRTY), (e, flags)
    # the pages seen were of every kind: a command reading one bit for another shows it
    assert kinds == {(a, d) for a in (True, False) for d in (True, False)}, kinds
    for k, s in segs.items():
        mine = [p for p in kernel_pages if p[5] == k]
        assert int(s["PRESENT"]) == len(mine), (s, len(mine))


# --- gdb's lru and frames against the cache's own answer (SYS_incore) -----------------------------

INCORE_CATCH = "fs/sysfile.c:%d" % next(i + 1 for i, l in enumerate(open(ROOT / "fs/sysfile.c"))
                                        if "copy_to_user(vec + i, chunk, m)" in l)
DUMP_INCORE = ("python exec(\"import gdb\\nm = int(gdb.parse_and_eval('m'))\\n"
               "print('incore', *[int(gdb.parse_and_eval('chunk[%d]' % i)) for i in range(m)])\")")


@pytest.mark.parametrize("kernel", [DEBUG_KERNEL, KERNEL], ids=["debug", "optimised"])
def test_lru_and_frames_agree_with_incore(disk, kernel):
    """A 16-block file written and synced, then appended to: its last block dirty again, the
    others clean. gdb stops incore where the cache has answered which blocks it holds and which
    are dirty (cache_incore); lru's rows for the file, its dirty-files table and frames' cache
    rows must say the same of each block."""
    guest = "mkdata /d 65000\nsync\necho tail >> /d\nincore /d\n"
    steps = ['break %s if $_streq(current->name, "incore")' % INCORE_CATCH, "continue", DUMP_INCORE,
             "lru 0", "frames cache", "delete", "kill"]
    r = session(disk, guest, steps, kernel=kernel)
    for c in steps[:-2]:
        assert not errors(r.of(c)), (c, r.of(c), r)
    vec = [int(x) for x in next(l for l in r.of(DUMP_INCORE).splitlines() if l.startswith("incore ")).split()[1:]]
    assert len(vec) == 16 and all(v & 1 for v in vec), vec
    dirty = {i for i, v in enumerate(vec) if v & 2}
    assert dirty == {15}, vec                       # the append changed the last block only

    out = r.of("lru 0")
    head, rows = table_rows(out, "POS")
    mine = {int(row[2]): row for row in rows if len(row) == 8 and row[1] == "/d"}
    assert sorted(mine) == list(range(16)), (sorted(mine), out)
    for i, row in mine.items():
        assert (row[4] == "dirty") == (i in dirty), (i, row, vec[i])
    files = out.split("dirty files:", 1)[1]
    d = [l.split() for l in files.splitlines() if l.split()[:1] == ["/d"]]
    assert len(d) == 1 and int(d[0][1]) == len(dirty) and d[0][-1] == "15", files

    head, rows = table_rows(r.of("frames cache"), "FRAME")
    blocks = {}
    for row in rows:
        m = re.fullmatch(r"/d block (\d+)", row[3]) if len(row) > 5 else None
        if m:
            blocks[int(m.group(1))] = row[5].split()
    assert sorted(blocks) == list(range(16)), blocks
    for i, words in blocks.items():
        assert ("dirty" in words) == (i in dirty), (i, words)


# --- gdb's negbreak in the modes test_gdb does not run -------------------------------------------

NEGSTOP = (r"^Breakpoint \d+, neg_decide \(asker=(NEG_\w+).*\n(?:.*\n)*?negotiation (\d+): .*\n"
           r"  cache offers: (.*)\n  VM offers:    (.*)\n(?:.*\n)*?  neg_decide will return (NEG_\w+)")


@pytest.mark.parametrize("kernel", [DEBUG_KERNEL, KERNEL], ids=["debug", "optimised"])
def test_negbreak_vm_asks_and_every_negotiation(disk, kernel):
    """negbreak vm-asks (whenever the VM asks, whatever the verdict) and negbreak alone (every
    negotiation), which test_gdb's fs, vm and fs-asks leave out. The cache is fixed at 256 KB
    (fs.cache_fixed_kb: it never gives a frame away) and memhog 14 pages through a 16 MB
    machine: the VM asks again and again and recycles its own pages, never the cache's. So
    vm-asks stops at the VM's first ask, negbreak stops at the next negotiation, and what each
    predicted is what neg_decide returns (finish); negbreak vm, which stops only when the VM
    takes a cache page, never stops, and the kernel's own trace (negtrace) agrees: no
    negotiation gave the VM a cache frame."""
    steps = ["negbreak vm-asks", "continue", "negbreak off", "finish", "negbreak", "continue", "negbreak off",
             "finish", "negbreak vm", "continue", "kill"]
    # negbreak vm's conditional breakpoint stops gdb at every negotiation of memhog's thousands
    # to test its condition: beside a CPU hog that outran the default 150 s (run16), and
    # the session's end interrupted memhog. Ten times an idle run's time.
    r = session(disk, "memhog 14\nnegtrace\n", steps, cmdline="fs.cache_fixed_kb=256", kernel=kernel, timeout=600)
    for c in steps[:-2]:
        assert not errors(r.of(c)), (c, r.of(c), r)
    seqs = []
    for nth in range(2):
        m = re.search(NEGSTOP, r.of("continue", nth), re.M)
        assert m, (nth, r.of("continue", nth), r)
        asker, seq, cache, vm, verdict = m.groups()
        assert asker == "NEG_VM" and cache.startswith("refuses"), (nth, r.of("continue", nth))
        assert re.search(r"Value returned is \$\d+ = %s$" % verdict, r.of("finish", nth), re.M), \
            (verdict, r.of("finish", nth))
        seqs.append(int(seq))
    assert seqs[1] == seqs[0] + 1, seqs            # negbreak alone: the very next negotiation
    # The last continue ends when the guest powers off: only a stop *at* the breakpoint means
    # negbreak vm stopped (a stop elsewhere in neg_decide, where gdb spends its time testing the
    # condition, was most likely gdb reading a late reply as another's: test_gdb's stalled-QEMU test).
    assert not re.search(r"^Breakpoint \d+, neg_decide", r.of("continue", 2), re.M), r
    assert "memhog: 14 MB ok" in r.console, r
    trace = r.console.split("$ negtrace\n", 1)[1].splitlines()
    assert trace[0].startswith("seq time_ms asker"), trace[:2]
    rows = [l.split() for l in trace[1:] if re.match(r"\d+ \d+ ", l)]
    assert len(rows) > 100 and {row[2] for row in rows} == {"vm"}, rows[:4]
    assert {row[6] for row in rows} <= {"vm", "none"} and {row[3] for row in rows} == {"refuse"}, rows[:4]


# --- gdb's idea of the VM's next victim against the kernel's own choice ------------------------------

def test_frames_names_the_victim_the_kernel_chooses(disk):
    """frames ends with the VM's oldest page, the one its offer to the negotiation reports and
    it gives up next (vm/oldest.c's oldest_victim, written again in tools/gdb/kstate.py: the
    page-out daemon's ready list first, then the last scan's batch while it is this tick's,
    else a new scan of every frame). gdb stops at oldest_victim's entry (its caller holds
    vm_lock: nothing changes until it returns) while a toucher sleeps and memhog reads 14 MB
    of fresh pages in 16, twice (pages only read: nothing to launder, the ready list stays
    empty and the batch and the scan decide), four times far apart, and the frame frames names must be what the kernel's
    function returns (finish). At the last two stops gdb first marks the batch stale, so that
    both must scan anew. The debug kernel only, the one make qemu-gdb boots: the optimised
    one inlines oldest_victim into its callers, and its value is gone."""
    # (the breakpoint deleted before each finish, so that no other call stops it first)
    steps = []
    for n, stale in ((300, False), (700, False), (700, True), (700, True)):
        steps += ["break oldest_victim", "ignore $bpnum %d" % n, "continue"]
        steps += ["set var 'vm/oldest.c'::oldest_tick = 0"] if stale else []
        steps += ["frames vm", "delete", "finish"]
    steps += ["kill"]
    r = session(disk, "toucher -m 6 -s 3 -n 3 -q -d 0 &\nmemhog -z 14\nmemhog -z 14\n", steps, kernel=DEBUG_KERNEL)
    for c in steps[:-1]:
        assert not errors(r.of(c)), (c, r.of(c), r)
    for nth in range(4):
        said = re.search(r"^policy \w+; the VM's oldest page \(its offer\): frame (\d+) \(pid \d+ (\w+) ",
                         r.of("frames vm", nth), re.M)
        got = re.search(r"^Value returned is \$\d+ = (-?\d+)$", r.of("finish", nth), re.M)
        assert said and got, (nth, r.of("frames vm", nth)[-400:], r.of("finish", nth))
        assert int(said.group(1)) == int(got.group(1)), (nth, said.group(0), got.group(0))


# --- gdb's ps against the kernel's own ^P dump --------------------------------------------------

DUMPED = re.compile(r"^  pid (\d+) ppid (\d+) (\w+) (\S+)( killed)?( kthread)?"
                    r"(?: wchan (\S+)(?: (0x[0-9a-f]+))? from (\w+)\+0x([0-9a-f]+)(?: \((.*)\))?)?$", re.M)
DUMP_STATES = {"sleep": "sleep", "runnable": "runnable", "run": "running", "zombie": "zombie", "embryo": "embryo"}


def inlined_at(elf, pc):
    """The functions at code address pc, innermost first, as the host's addr2line names them
    (more than one where the compiler inlined one function into another)."""
    tool = shutil.which("i686-linux-gnu-addr2line") or shutil.which("addr2line")
    out = subprocess.run([tool, "-f", "-i", "-e", str(elf), "0x%x" % pc], stdout=subprocess.PIPE, text=True,
                         check=True).stdout.splitlines()
    return out[0::2]


@pytest.mark.parametrize("kernel", [DEBUG_KERNEL, KERNEL], ids=["debug", "optimised"])
def test_ps_agrees_with_the_kernels_dump(disk, kernel):
    """gdb's ps against what the kernel itself prints on ^P (kernel/dump.c), at the same moment:
    gdb stops as state_dump returns, in the console's interrupt, so nothing has run since. A
    COW-COR family blocked on its pipe (one child holding the pipe's sleep lock, the others
    waiting for it or on the pipe), the shell reading the console, init waiting for a child,
    the kernel threads on their channels. For every process: pid, parent, state, name, kernel
    thread; for a sleeper what it waits on (the lock and its holder, a child's exit, a busy
    frame, the channel) and the function that called sleep(), which the kernel names by the
    symbol holding that address and gdb by the function there, inlined or not: the host's
    addr2line must find gdb's innermost and the kernel's outermost at that address."""
    fam = r"family: master (\d+) slaves (\d+) (\d+)"
    guest = [(None, "corrupt family 2 4 &\n"), (fam, "\x10")]
    steps = ["break state_dump", "continue", "delete", "finish", "ps", "kill"]
    r = session(disk, guest, steps, kernel=kernel)
    for c in steps[:-1]:
        assert not errors(r.of(c)), (c, r.of(c), r)
    dump = r.console[r.console.index("--- ^P dump"):r.console.index("--- busy frames")]
    procs = {int(m.group(1)): m.groups() for m in DUMPED.finditer(dump)}
    assert len(procs) >= 12 and len(procs) == len(re.findall(r"^  pid ", dump, re.M)), dump
    head, rows = table_rows(r.of("ps"), "PID")
    assert head[:10] == ["PID", "PPID", "PGID", "STATE", "SIZE", "PAGEIN", "PAGEOUT", "NAME", "SEGS", "WAITS"], head
    shown = {int(row[0]): row for row in rows if re.fullmatch(r"\d+", row[0])}
    assert sorted(shown) == sorted(procs), (sorted(shown), sorted(procs))
    symbols = {}
    for line in subprocess.run(["nm", str(kernel)], stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            symbols.setdefault(parts[2], int(parts[0], 16))
    kinds = set()
    for pid, (_, ppid, state, name, killed, kthread, wchan, addr, fn, off, why) in procs.items():
        row = shown[pid] + [""] * (10 - len(shown[pid]))
        assert [int(row[1]), row[3], row[7].rstrip("*")] == [int(ppid), DUMP_STATES[state], name], (row, procs[pid])
        assert (row[8] == "kthread") == bool(kthread), (row, procs[pid])
        assert row[7].endswith("*") == (state == "run"), (row, procs[pid])
        if state != "sleep":
            assert row[9] == "", row
            continue
        m = re.fullmatch(r"(.*) in (\S+)", row[9])
        assert m, row
        what, where = m.groups()
        if why and why.startswith("sleep lock"):
            lock, holder = re.fullmatch(r'sleep lock "(.*)" held by pid (\d+)', why).groups()
            assert what == "sleep lock %s held by pid %s" % (lock, holder), (row, why)
            kinds.add("lock")
        elif why == "a child's exit":
            assert what == why, (row, why)
            kinds.add("child")
        elif why:
            assert what.startswith("frame %s (" % why.split(",")[0].split()[1]), (row, why)
        elif addr:
            assert what == addr, (row, addr)        # a channel outside the kernel's image
            kinds.add("address")
        else:                                       # a kernel variable, or a field of one
            assert what == wchan or what.startswith(re.split(r"[.\-\[]", wchan)[0] + "+"), (row, wchan)
        chain = inlined_at(kernel, symbols[fn] + int(off, 16))
        assert chain[0] == where and chain[-1] == fn, (row, fn, off, chain)
    assert kinds == {"lock", "child", "address"}, kinds
    assert ("(the CPU was idle)" in dump) == (not any(row[7].endswith("*") for row in shown.values())), dump


# --- settings' modes not exercised in the guest elsewhere ------------------------------------------

KEEP = "memhog -k 64 8"
def test_aging_policy_clock_rate_and_cluster_in_the_guest(disk):
    """vm.policy=aging (the lab's model solution, otherwise run only by the host's grader):
    memory twice over comes back intact under it, and a 64 KB working set read after every
    fresh page stays resident (its history of use outweighs pages used once). vm.clock_rate:
    at 2048 frames a second the aging sweep's pass over an 8 MB machine's 2048 frames takes
    1 s, and back at 0 (auto) 2 s (vm.age_lag_ms, the last pass's length; each read after
    the rest of the pass under way and a whole one at the rate set).
    vm.cluster: clusterlru keeps the working set with one cluster of all memory, not with
    clusters of one frame. In guest time (-icount shift=3, sleep=off): a pass's length is the
    guest's clock's, which a loaded host does not stretch (1000 and 2000 ms, idle or not), and
    the sleeps cost only the guest's timer ticks. (Those still cost real time on a busy host:
    hence a rate whose pass is shorter than auto's, not one four times longer.)"""
    lines = ["sysctl vm.policy", "memhog 16 3", KEEP, "audit", "sysctl vm.clock_rate=2048", "sleep 2.5",
             "vmstat -n vm.age_lag_ms", "sysctl vm.clock_rate=0", "sleep 5", "vmstat -n vm.age_lag_ms",
             "sysctl vm.policy=clusterlru", "sysctl vm.cluster=4096", KEEP, "sysctl vm.cluster=1", KEEP,
             "sysctl vm.cluster=16", "audit"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=8, cmdline="vm.policy=aging", status=True, timeout=600,
             icount=3, sleep_off=True)
    assert r.rc == 0, r
    assert [c.status for c in r.cmds] == [0] * len(r.cmds), r.cmds
    assert r.printed("sysctl vm.policy") == "vm.policy = aging\n", r
    assert printed_in_guest_time(r, "memhog 16 3") == "memhog: 16 MB ok\n", r
    m = re.fullmatch(r"memhog: kept 64 KB: (\d+) page-ins, (\d+) evictions in passes 2-3\n", printed_in_guest_time(r, KEEP))
    assert m and int(m.group(1)) == 0 and int(m.group(2)) > 2048, r.printed(KEEP)
    assert "audit: ok" in r.printed("audit"), r
    fast, auto = (int(printed_in_guest_time(r, "vmstat -n vm.age_lag_ms", n)) for n in (0, 1))
    assert 900 <= fast <= 1300 and 1800 <= auto <= 2300, (fast, auto)
    # vm.cluster: clusterlru with one cluster of all memory is a global LRU and keeps the set;
    # with clusters of one frame it takes frames in turn, whatever their use, and loses it
    whole, single = (re.fullmatch(r"memhog: kept 64 KB: (\d+) page-ins, \d+ evictions in passes 2-3\n",
                                  printed_in_guest_time(r, KEEP, i)) for i in (1, 2))
    assert whole and single, r
    assert int(whole.group(1)) == 0 and int(single.group(1)) > 0, (r.printed(KEEP, 1), r.printed(KEEP, 2))



SPT_TOUCH = "toucher -m 6 -d 100 -s 2 -n 6"
SPT_PAGES = 6 * 256


def test_spt_epoch_decides_what_is_periodic(disk):
    """vm.spt_epoch_ms: SPT calls a page periodic once it comes back after more than 6 idle
    epochs, and then evicts by expected next use, as MIN does. A toucher of 6 MB in an 8 MB
    machine (about 5.4 MB for it) touches every page once a round, a round every 2 s: a loop
    larger than memory, where LRU faults on every page of every round. With 100 ms epochs a
    period is 20 of them: the pages are periodic, the ones just touched (due in a whole period)
    go first, and a round pages in only what memory lacks. With 5 s epochs a period is less
    than one: no page is ever periodic, SPT is LRU and every round pages in all 1,536. In guest
    time (-icount shift=3, sleep=off): the rounds and the epochs are counted by one clock that a
    loaded host does not slow, and the 24 s of rounds take about 10 of real time."""
    lines = ["sysctl vm.policy=spt", "sysctl vm.spt_epoch_ms=100", SPT_TOUCH, "sysctl vm.spt_epoch_ms=5000",
             SPT_TOUCH, "sysctl vm.spt_epoch_ms", "audit"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=8, status=True, timeout=600, icount=3, sleep_off=True)
    assert r.rc == 0, r
    assert [c.status for c in r.cmds] == [0] * len(r.cmds), r.cmds
    assert r.printed("sysctl vm.spt_epoch_ms") == "vm.spt_epoch_ms = 5000\n", r
    assert "audit: ok" in r.printed("audit"), r
    short, long_ = ([int(p) for p in re.findall(r"^touch (?:\d+) \d+ ms, (\d+) page-ins$", r.printed(SPT_TOUCH, i), re.M)]
                    for i in (0, 1))
    assert len(short) == len(long_) == 6, (short, long_)
    # round 1 follows the first fill, before any page has shown a period: rounds 2-6 count
    # (in real time a loaded host once made a round page in a tenth less: 1,405 of 1,536; an
    # epoch that is ignored pages in about 200, as with 100 ms; 100 ms epochs ignored, every
    # round pages in more: 476 to 1,538)
    assert sum(n >= SPT_PAGES * 60 // 100 for n in long_[1:]) >= 4, ("5 s epochs: every page every round", long_)
    assert sum(n <= SPT_PAGES // 4 for n in short[1:]) >= 4, ("100 ms epochs: what memory lacks", short)


def phase_free(r, nth):
    return [int(x) for x in r.printed("vmstat -n fs.disk.blocks.free vm.pageouts", nth).split()]


def test_backing_reserve_keeps_room_for_backing_store(make_disk):
    """fs.backing_reserve: the last blocks of the disk are for backing files only (fs/alloc.c),
    which every new heap, stack and forked segment needs before it may page. A user fills a
    32 MB disk (exhaust disk -k) three times: under the default reserve (1/32 of the disk),
    the disk stops that many blocks short and a forked child (exhaust forklater) gets its
    backing store and lives; under 2048 blocks, it stops 2048 short and memhog pages 7 MB
    through the reserve in an 8 MB machine; under 0 it takes every block, and the same
    programs get the design's answers: memhog's sbrk fails with ENOSWAP and the child is
    killed with the kernel's message, never a panic or a hang, and a file synced before
    is intact throughout."""
    disk = make_disk(size_mb=32)
    fill = ["exhaust disk -k", "vmstat -n fs.disk.blocks.free vm.pageouts"]
    empty = ["exhaust clean", "sync"]
    lines = ["vmstat -n fs.disk.blocks.total", "sysctl fs.backing_reserve", "mkdata /keep 300000", "sync",
             "cksum /keep"] + fill + ["exhaust forklater 0"] + empty + \
        ["sysctl fs.backing_reserve=2048"] + fill + ["memhog 7", "vmstat -n vm.pageouts"] + empty + \
        ["sysctl fs.backing_reserve=0"] + fill + ["memhog 7", "exhaust forklater 0", "cksum /keep"] + empty + \
        ["cksum /keep", "audit"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=8, status=True, timeout=400)
    assert r.rc == 0 and "panic" not in r.out, r
    total = int(r.printed("vmstat -n fs.disk.blocks.total"))
    default = min(max(128, total // 32), 2048)
    assert r.printed("sysctl fs.backing_reserve") == "fs.backing_reserve = %d\n" % default, r
    for nth in range(3):
        assert r.cmd("exhaust disk -k", nth).status == 0, r
        assert re.search(r"^exhaust: disk: \d+ KB, then ENOSPC$", r.printed("exhaust disk -k", nth), re.M), r
    (free_default, _), (free_2048, outs0), (free_0, _) = (phase_free(r, n) for n in range(3))
    # each fill stopped where the reserve begins: the disk's last free blocks differ by it
    # (what is left under 0 is what exhaust's own backing store gave back as it exited)
    assert free_0 <= 64, free_0
    assert abs(free_default - free_0 - default) <= 8 and abs(free_2048 - free_0 - 2048) <= 8, \
        (free_default, free_2048, free_0, default)
    # with the reserve: a child forked on the full disk lives; 7 MB page through it
    c = r.cmd("exhaust forklater 0", 0)
    assert c.status == 0 and "exhaust: forklater: child status 0" in c.out, c
    assert r.cmd("memhog 7", 0).status == 0 and r.printed("memhog 7", 0) == "memhog: 7 MB ok\n", r
    assert int(r.printed("vmstat -n vm.pageouts")) - outs0 >= 1000, r
    # without: the clear error, and the child killed by the kernel, with its reason
    c = r.cmd("memhog 7", 1)
    assert c.status == 1 and c.out == "memhog: cannot get 7 MB: No space left for the backing store (disk full)\n", c
    c = r.cmd("exhaust forklater 0", 1)
    assert c.status == 1 and re.search(r"^vm: no backing store for pid \d+ \(the disk is full\): killed$", c.out, re.M) \
        and "exhaust: forklater: child status 137" in c.out, c
    assert len(re.findall(r"killed", r.out)) == 1, r
    sums = {r.printed("cksum /keep", n) for n in range(3)}
    assert len(sums) == 1 and sums.pop().endswith(" 300000 /keep\n"), r
    assert "audit: ok" in r.printed("audit"), r
    assert [c.status for c in r.cmds if not c.line.startswith(("memhog 7", "exhaust forklater"))] == \
        [0] * (len(r.cmds) - 4), r.cmds
    st, out = fsck(disk)
    assert st == 0, out


def test_cache_min_kb_is_the_floor_memory_pressure_meets(disk):
    """fs.cache_min_kb at other than its default (64 KB, the floor test_negotiation meets): a
    file read fills most of 16 MB with cache, then memhog 14 takes memory back. With the floor
    at 2 MB the cache gives frames down to it and no further (fs.cache.held_min_kb, the least it
    held since neg.reset); back at 64 KB the same memhog takes it down to about 64 KB."""
    lines = ["mklines /tmp/big 8M", "sync", "cksum /tmp/big", "sysctl fs.cache_min_kb=2048", "sysctl neg.reset=1",
             "memhog 14", "vmstat -n fs.cache.held_min_kb", "cksum /tmp/big", "sysctl fs.cache_min_kb=64",
             "sysctl neg.reset=1", "memhog 14", "vmstat -n fs.cache.held_min_kb", "audit"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=MEM, status=True, timeout=600)
    assert r.rc == 0, r
    assert [c.status for c in r.cmds] == [0] * len(r.cmds), r.cmds
    assert r.printed("memhog 14", 0) == r.printed("memhog 14", 1) == "memhog: 14 MB ok\n", r
    assert r.printed("cksum /tmp/big", 0) == r.printed("cksum /tmp/big", 1), r
    held, low = (int(r.printed("vmstat -n fs.cache.held_min_kb", n)) for n in (0, 1))
    assert 2048 <= held <= 2048 + 64 and 64 <= low <= 64 + 64, (held, low)
    assert "audit: ok" in r.printed("audit"), r
