"""The gdb commands (tools/gdb, `make gdb`) against the kernel they describe, in batch mode.

Each test stops the kernel where it computes an answer itself -- SYS_ps filling its table,
SYS_kstat formatting the counters -- lets that finish, and compares it with what the gdb
command reads from memory at that same instant: the machine is stopped in between, so every
column must agree exactly. Commands whose answer the kernel never prints are checked against
independent counts (the LRU list against fs.cache.blocks, the core map's pools against
mem.frames.*)."""
import re

import pytest

from conftest import ROOT as ROOT_DIR
from gdbsession import DEBUG_KERNEL, KERNEL, session, errors

# The commands read the kernel's variables through its debug information: both builds.
BUILDS = pytest.mark.parametrize("kernel", [DEBUG_KERNEL, KERNEL], ids=["debug", "optimised"])

STATES = {1: "sleep", 2: "runnable", 3: "running", 4: "zombie"}

# Prints the SYS_ps table proc_list just filled ($pout, $pn), one process a line.
DUMP_PROCINFO = ("python exec(\"import gdb\\nn = int(gdb.parse_and_eval('$pn'))\\n"
                 "for i in range(n):\\n p = gdb.parse_and_eval('$pout[%d]' % i)\\n"
                 " print('procinfo', int(p['pid']), int(p['ppid']), int(p['pgid']), int(p['state']), "
                 "int(p['size']), int(p['pageins']), int(p['pageouts']), p['name'].string())\")")


def table_rows(text, first="PID"):
    """The rows of a command's table: lists of cells split on runs of two or more spaces."""
    lines = [l for l in text.splitlines() if l.strip()]
    start = next(i for i, l in enumerate(lines) if l.split()[0] == first)
    head = re.split(r"\s{2,}", lines[start].strip())
    return head, [re.split(r"\s{2,}", l.strip()) for l in lines[start + 1:] if not l.startswith("@@@")]


@BUILDS
def test_counters_and_ps_agree_with_the_kernel(disk, kernel):
    guest = "corrupt family 2 4 &\nsleep 1\nps\nvmstat\n"
    steps = ['break proc_list if $_streq(current->name, "ps")', "continue", "set $pout = out", "delete", "finish", "set $pn = $", DUMP_PROCINFO, "ps",
             "delete", 'break stat_format if $_streq(current->name, "vmstat")', "continue", "set $kbuf = buf", "delete", "finish", 'printf "%s", $kbuf',
             "counters", "counters neg.", "help counters", "help ps", "kill"]
    r = session(disk, guest, steps, kernel=kernel)
    for c in steps:
        assert not errors(r.of(c)), (c, r.of(c), r)

    # ps: every process SYS_ps reported, column for column, and nothing more.
    kernel = {}
    for line in r.of(DUMP_PROCINFO).splitlines():
        if line.startswith("procinfo "):
            pid, ppid, pgid, state, size, pin, pout, name = line.split()[1:9]
            kernel[int(pid)] = [int(ppid), int(pgid), STATES[int(state)], int(size), int(pin), int(pout), name]
    assert len(kernel) >= 12, r          # init, 7 kernel threads, sh, the family of 3, ps
    head, rows = table_rows(r.of("ps"))
    assert head[:10] == ["PID", "PPID", "PGID", "STATE", "SIZE", "PAGEIN", "PAGEOUT", "NAME", "SEGS", "WAITS"], head
    shown = {}
    for row in rows:
        pid = int(row[0])
        state = "runnable" if row[3] == "embryo" else row[3]
        shown[pid] = [int(row[1]), int(row[2]), state, int(row[4]), int(row[5]), int(row[6]), row[7].rstrip("*")]
    assert shown == kernel, (shown, kernel, r)
    current = [row for row in rows if row[7].endswith("*")]
    assert len(current) == 1 and current[0][7] == "ps*", r
    family = [row for row in rows if row[7] == "corrupt"]
    assert len(family) == 3 and all(re.fullmatch(r"code=\d+ heap=\d+ stack=\d+", row[8]) for row in family), r
    # the two children wait for the pipe's lock their parent holds, or on the pipe
    assert any("sleep lock" in " ".join(row[9:]) or "piperead" in " ".join(row[9:]) for row in family), r

    # counters: what stat_format wrote, name for name and value for value.
    def parse(text):
        return [tuple(l.split(" ", 1)) for l in text.splitlines() if re.fullmatch(r"[a-z_.]+ \S+", l)]
    kernel = parse(r.of('printf "%s", $kbuf'))
    ours = parse(r.of("counters"))
    assert len(kernel) > 60, r
    assert ours == kernel, ([(a, b) for a, b in zip(ours, kernel) if a != b], r)
    assert [n for n, _ in parse(r.of("counters neg."))] == [n for n, _ in kernel if n.startswith("neg.")], r
    assert "counters [PREFIX]" in r.of("help counters") and "PAGEIN" in r.of("help ps"), r


def test_make_gdb_without_qemu_says_so_at_once(tmp_path):
    """No QEMU waiting (no port file, or one left by a QEMU that is gone): one line, at once."""
    import os, subprocess, sys
    from conftest import ROOT
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    for stale in (None, "27999 999999999 %s\n" % (tmp_path / "kernel.elf")):
        if stale:
            (tmp_path / "gdb.port").write_text(stale)
        p = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "gdb", "DB=%s" % tmp_path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=60)
        out = p.stdout.decode()
        assert p.returncode != 0 and "no QEMU is waiting for gdb" in out and "make qemu-gdb" in out, out
        # What make gdb runs says so at once: it never starts gdb, which would retry the port
        # for seconds. Checked by a gdb first on PATH that leaves a mark, not by a clock,
        # which a loaded machine slows.
        fake = tmp_path / "fakebin"
        fake.mkdir(exist_ok=True)
        (fake / "gdb").write_text("#!/bin/sh\ntouch %s\nexit 9\n" % (tmp_path / "gdb-ran"))
        (fake / "gdb").chmod(0o755)
        p = subprocess.run([sys.executable, str(ROOT / "tools/gdb/rungdb.py"), str(tmp_path / "gdb.port")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                           env=dict(os.environ, PATH="%s:%s" % (fake, os.environ["PATH"])))
        assert p.returncode == 1 and "no QEMU is waiting" in p.stdout.decode(), p.stdout
        assert not (tmp_path / "gdb-ran").exists(), "make gdb started gdb with no QEMU waiting"


def test_two_qemus_waiting_for_gdb_get_two_ports(tmp_path):
    """Two `make qemu-gdb` on one machine (runqemu --gdb auto): each its own port, printed."""
    import os, signal, subprocess, sys, time
    from conftest import runqemu
    from gdbsession import DEBUG_KERNEL
    runs = []
    for name in ("a", "b"):
        f = tmp_path / (name + ".port")
        p = subprocess.Popen(runqemu.command(kernel=DEBUG_KERNEL, gdb="auto", gdb_file=f, timeout=60),
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=open(tmp_path / (name + ".err"), "w"))
        runs.append((p, f))
    # started together: both may first pick the same port; the one that loses takes the next
    deadline = time.time() + 30
    while not all(f.exists() for _, f in runs) and time.time() < deadline:
        time.sleep(0.05)
    try:
        ports = []
        for p, f in runs:
            port, pid, kernel = f.read_text().split()
            ports.append(int(port))
            assert kernel == str(DEBUG_KERNEL)
        assert ports[0] != ports[1], ports
    finally:
        for p, f in runs:
            if f.exists():
                os.kill(int(f.read_text().split()[1]), signal.SIGKILL)     # the QEMU it started
            p.wait(timeout=30)
    for (p, f), port in zip(runs, ports):
        err = (f.parent / (f.name[0] + ".err")).read_text()
        assert "QEMU waits for gdb on localhost:%d" % port in err, err
        assert not f.exists()


def decode(e):
    """A raw page-table entry as the kernel's `corrupt show` prints it, decoded independently
    of tools/gdb (vm/vm.h): (state, frame or master, cow)."""
    cow = bool(e & 0x800)
    if e & 0x1:
        return "present", e >> 12, cow
    if e & 0x400:
        return "in transit", e >> 12, cow
    if e & 0x100:
        return "copy-on-reference", e >> 12, cow
    if e & 0x200:
        return "on backing store", None, cow
    return "none", None, cow


@BUILDS
def test_frames_lru_seg_pt_cowlists_describe_a_fork_family(disk, kernel):
    """A COW-COR family (corrupt family: a master and 2 slaves, blocked) pushed to backing store
    by vm.pageout=0; the kernel prints their raw page-table entries (corrupt show), then gdb
    stops in vmstat and every command is held against those entries and the counters."""
    fam = r"family: master (\d+) slaves (\d+) (\d+)"
    guest = [(None, "corrupt family 2 4 &\n"),
             (fam, lambda m: "sleep 1\nsysctl vm.pageout=0\n%s\nvmstat\n"
              % "\n".join("corrupt show %s" % pid for pid in m.groups()))]
    steps = ['break stat_format if $_streq(current->name, "vmstat")', "continue",
             "frames all", "lru 0", "counters", "ps", "cowlists", "print 'vm/aging.c'::age_hand",
             "print 'vm/policy_clock.c'::clock_hand", "help frames", "help lru", "help seg", "help pt",
             "help cowlists"]
    pids = [10, 11, 12]                 # as every boot makes them; checked against "family:" below
    for pid in pids:
        steps += ["seg %d" % pid, "pt %d" % pid]
    steps += ["pt %d 0x10003000" % pids[1], "pt %d 0x7000" % pids[1], "seg 99", "kill"]
    r = session(disk, guest, steps, cmdline="debug.corrupt=1", kernel=kernel)
    m = re.search(fam, r.console)
    assert m and [int(x) for x in m.groups()] == pids, r
    for c in steps[:-4]:
        assert not errors(r.of(c)), (c, r.of(c), r)
    assert "is in none of pid 11's segments" in r.of("pt 11 0x7000"), r
    assert "no process 99" in r.of("seg 99"), r

    counters = dict(l.split(" ", 1) for l in r.of("counters").splitlines() if re.fullmatch(r"[a-z_.]+ \d+", l))
    counters = {k: int(v) for k, v in counters.items()}

    # ps: the segments of each process, by index
    _, rows = table_rows(r.of("ps"))
    segs = {int(row[0]): dict(x.split("=") for x in row[8].split()) for row in rows if "heap=" in row[8]}

    # The kernel's own entries (corrupt show), one dict a process: va -> raw entry.
    kernel = {}
    for pid in pids:
        out = r.console.split("$ corrupt show %d\n" % pid, 1)[1]
        kernel[pid] = {int(va, 16): int(e, 16) for k, va, e in re.findall(r"^entry (\d+) (0x[0-9a-f]+) (0x[0-9a-f]+)$",
                                                                          out.split("\n$ ", 1)[0], re.M)}
        assert kernel[pid], r
    master_heap = int(segs[pids[0]]["heap"])
    disks = {}
    for pid in pids:
        head, prow = table_rows(r.of("pt %d" % pid), first="VA")
        assert head == ["VA", "SEG", "TYPE", "STATE", "FRAME", "BITS", "MASTER", "BLOCK", "DISK"], head
        shown = {int(row[0], 16): row for row in prow}
        assert set(shown) == set(kernel[pid]), (pid, sorted(shown), sorted(kernel[pid]))
        for va, e in kernel[pid].items():
            row = shown[va]
            state, n, cow = decode(e)
            assert row[3].startswith(state), (pid, hex(va), hex(e), row)
            assert ("COW" in row[5].split()) == cow, (pid, hex(va), hex(e), row)
            if state in ("present", "in transit"):
                assert int(row[4]) == n, (pid, hex(va), row)
            if state == "copy-on-reference":
                # a child's COR entries name its parent's heap (or stack) segment
                assert row[6].startswith("seg %d (pid %d" % (n, pids[0])), (pid, hex(va), row)
                if va < 0x80000000:
                    assert n == master_heap, (pid, hex(va), row)
            if state == "on backing store":
                disks.setdefault(int(row[8]), []).append((pid, va))
                assert int(row[7]) >= 0
    # vm.pageout=0 pushed the family's pages out: on backing store, each at a block of its own
    assert len(disks) >= 10 and all(len(v) == 1 for v in disks.values()), disks
    assert "copy-on-reference" in r.of("pt %d 0x10003000" % pids[1]), r

    # seg: the ring of the master's heap holds its two children's heaps; COR and DEPS agree.
    seg_rows = {}
    for pid in pids:
        head, rows = table_rows(r.of("seg %d" % pid), first="SEG")
        assert head[:5] == ["SEG", "TYPE", "RANGE", "PAGES", "RESIDENT"], head
        for row in rows:
            seg_rows[int(row[0])] = dict(zip(head, row))
    # ... each segment as the kernel itself printed it (corrupt show), and its entries as pt shows them
    for k, typ, start, end, resident, swapblocks, refs, cor_refs, nxt, prv in re.findall(
            r"^segment (\d+) (\w+) pid \d+ start (0x[0-9a-f]+) end (0x[0-9a-f]+) resident (\d+) swapblocks (\d+) "
            r"lazy \d+ refs (\d+) cor_refs (\d+) next (\d+) prev (\d+)$", r.console, re.M):
        row = seg_rows[int(k)]
        assert row["TYPE"] == typ and row["RANGE"] == "0x%08x-0x%08x" % (int(start, 16), int(end, 16)), (k, row)
        assert (int(row["RESIDENT"]), int(row["DEPS"])) == (int(resident), int(cor_refs)), row
        # (a code segment's references changed: corrupt show ran the same program)
        assert typ == "code" or int(row["REFS"]) == int(refs), row
        assert typ == "code" or int(row["BACKING"].split()[0]) == int(swapblocks), row
        assert int(row["PAGES"]) == (int(end, 16) - int(start, 16)) >> 12, row
        ring_members = set(re.findall(r"seg (\d+)", row["RING"]))
        assert {nxt, prv} - {k} <= ring_members, (k, nxt, prv, row)
    for pid in pids:
        _, prow = table_rows(r.of("pt %d" % pid), first="VA")
        for k in {int(row[1]) for row in prow}:
            mine = [row for row in prow if int(row[1]) == k]
            seg = seg_rows[k]
            for col, state in (("PRESENT", "present"), ("ONDISK", "on backing store"), ("COR", "copy-on-reference"),
                               ("INTRANS", "in transit")):
                assert int(seg[col]) == sum(row[3].startswith(state) for row in mine), (col, seg, mine)
            assert int(seg["COW"]) == sum("COW" in row[5].split() for row in mine), (seg, mine)
    slave_heaps = {int(segs[p]["heap"]) for p in pids[1:]}
    assert set(re.findall(r"seg (\d+)", seg_rows[master_heap]["RING"])) == {str(k) for k in slave_heaps}, seg_rows
    cor_total = sum(int(seg_rows[k]["COR"]) for k in slave_heaps)
    assert cor_total == int(seg_rows[master_heap]["DEPS"]) > 0, seg_rows

    # cowlists: the heap ring, each page mastered by the parent's heap with both children as slaves
    cl = r.of("cowlists")
    ring_line = next(l for l in cl.splitlines() if l.startswith("ring:") and "seg %d " % master_heap in l)
    assert set(int(k) for k in re.findall(r"seg (\d+) \(", ring_line)) == slave_heaps | {master_heap}, cl
    block = cl.split(ring_line, 1)[1].split("ring:", 1)[0]
    pages = re.findall(r"^  (0x[0-9a-f]+)  master seg (\d+) \(.*?\)  slaves: (.*)$", block, re.M)
    cor_vas = {va for va, e in kernel[pids[1]].items() if decode(e)[0] == "copy-on-reference" and va < 0x80000000}
    assert {int(va, 16) for va, _, _ in pages} == cor_vas, (cl, cor_vas)
    for va, master, slaves in pages:
        assert int(master) == master_heap, cl
        assert set(int(k) for k in re.findall(r"seg (\d+)", slaves)) == slave_heaps, cl

    # frames: pool counts against the core map's counters; every VM frame where pt says it is
    fr = r.of("frames all")
    head, rows = table_rows(fr, first="FRAME")
    assert head[:6] == ["FRAME", "PA", "POOL", "OWNER", "AGE", "FLAGS"], head
    pools = {}
    for row in rows:
        if re.fullmatch(r"\d+", row[0]):
            pools[row[2]] = pools.get(row[2], 0) + 1
            assert int(row[1], 16) == int(row[0]) << 12, row
    for pool in ("free", "kernel", "cache", "vm"):
        assert pools.get(pool, 0) == counters["mem.frames." + pool], (pool, pools, counters)
    assert "pools: free %d, kernel %d, cache %d, vm %d" % tuple(
        counters["mem.frames." + p] for p in ("free", "kernel", "cache", "vm")) in fr, fr
    vm_pages = {}
    for row in rows:
        m = re.fullmatch(r"pid (\d+) \S+ (\w+) seg (\d+) page (0x[0-9a-f]+)", row[3]) if row[2:3] == ["vm"] else None
        if m:
            vm_pages[(int(m.group(3)), int(m.group(4), 16))] = int(row[0])
    for pid in pids:
        _, prow = table_rows(r.of("pt %d" % pid), first="VA")
        for row in prow:
            if row[3] == "present":
                assert vm_pages.get((int(row[1]), int(row[0], 16))) == int(row[4]), (pid, row)
    hand = int(re.search(r"= (\d+)", r.of("print 'vm/aging.c'::age_hand")).group(1))
    assert re.search(r"^aging hand: frame %d \(" % hand, fr, re.M), fr
    hand = int(re.search(r"= (\d+)", r.of("print 'vm/policy_clock.c'::clock_hand")).group(1))
    assert re.search(r"^clock hand: frame %d \(" % hand, fr, re.M), fr

    # lru: the list and the free list make fs.cache.blocks; oldest first; dirty files' blocks dirty
    out = r.of("lru 0")
    head, rows = table_rows(out, first="POS")
    assert head == ["POS", "FILE", "BLOCK", "AGE", "DIRTY", "SCHED", "HELD", "BUSY"], head
    lru = [row for row in rows if re.fullmatch(r"\d+", row[0]) and len(row) == 8]
    free = int(re.search(r"free list: (\d+)", out).group(1))
    assert len(lru) + free == counters["fs.cache.blocks"], (len(lru), free, counters["fs.cache.blocks"])
    assert [int(row[0]) for row in lru] == list(range(len(lru)))
    ages = [float(row[3]) for row in lru]
    assert ages == sorted(ages, reverse=True), ages
    assert any(row[1] == "/bin/corrupt" for row in lru), out       # named through /bin's block
    for h, usage in (("frames", "frames [POOL]"), ("lru", "lru [N]"), ("seg", "seg PID"), ("pt", "pt PID [VA]"),
                     ("cowlists", "cowlists [SEG]")):
        assert r.of("help " + h).startswith(usage + ":"), r.of("help " + h)


NEG_CATCH = "kernel/sysmem.c:%d" % next(i + 1 for i, l in enumerate(open(ROOT_DIR / "kernel/sysmem.c"))
                                       if "copy_to_user(ubuf, out" in l)
DUMP_NEGS = ("python exec(\"import gdb\\nn = int(gdb.parse_and_eval('n'))\\n"
             "for i in range(n):\\n r = gdb.parse_and_eval('out[%d]' % i)\\n"
             " print('negrecord', *[int(r[f]) for f in ('seq', 'time_ms', 'asker', 'gave', 'flags', "
             "'fs_lastref_ms', 'vm_lastref_ms', 'penalty_ms', 'cache_frames', 'vm_frames', 'free_frames', 'vm_early', 'vm_saved', 'evidence_ms')])\")")


@BUILDS
def test_negbreak_stops_at_a_negotiation_and_negs_reads_the_trace(make_disk, tmp_path, kernel):
    """IFS in small, without a penalty: a toucher holds 10 of 16 MB and sleeps, wc reads a 12 MB
    file. negbreak fs stops when the cache takes a VM page; what it predicts is what neg_decide
    returns (finish); negbreak vm stops when the VM asks; negs is the kernel's own copy of its
    trace (sys_negtrace, stopped once it has copied the ring)."""
    big = tmp_path / "big"
    big.write_bytes(bytes(range(256)) * (12 * 4096))
    disk = make_disk([big])
    # (wc twice: the VM takes a cache page only once the toucher's pages are gone, near the
    # end of the first; the second gives the cache's asks with a penalty)
    guest = [(None, "toucher -m 10 -s 5 -n 100 &\n"), (r"touch 1 \d+", "wc -c /big\nwc -c /big\nnegtrace -n 8\n")]
    steps = ["negbreak fs", "continue", "info breakpoints", "negbreak off", "finish", "negbreak vm", "continue", "negbreak off", "finish",
             "set var 'kernel/mem/negotiate.c'::penalty_s = 120", "negbreak fs-asks", "continue", "negbreak off", "finish",
             "set var 'kernel/mem/negotiate.c'::verify_unasked = 1", "negbreak fs-asks", "continue", "continue", "negbreak off",
             "set var 'kernel/mem/negotiate.c'::verify_unasked = 0",
             'break %s if $_streq(current->name, "negtrace")' % NEG_CATCH, "continue",
             DUMP_NEGS, "negs 8", "negs 0", "negbreak bogus", "help negs", "help negbreak", "kill"]
    r = session(disk, guest, steps, cmdline="vm.penalty=0", kernel=kernel)
    for c in steps:
        if c != "negbreak bogus":
            assert not errors(r.of(c)), (c, r.of(c), r)
    assert "usage: negbreak [fs|vm|fs-asks|vm-asks|off]" in r.of("negbreak bogus"), r

    def stop(text, asker):
        """The negotiation negbreak described, and the verdict it predicted."""
        assert re.search(r"^Breakpoint \d+, neg_decide \(asker=%s" % asker, text, re.M), text
        m = re.search(r"^negotiation \d+: .*\n  cache offers: (.*)\n  VM offers:    (.*)\n  penalty: (\d+) ms"
                      r"(?:.*\n)*?  neg_decide will return (NEG_\w+)", text, re.M)
        assert m, text
        return m.groups()

    cache, vm, pen, verdict = stop(r.of("continue", 0), "NEG_FS")
    assert pen == "0" and verdict == "NEG_OTHER", r.of("continue", 0)
    # both candidates named, their times the offers' own
    assert re.search(r"last used \d+\.\d{3} s ago", cache) and "differs" not in cache, cache
    assert re.match(r"frame \d+, pid \d+ \w+ (heap|stack|code) seg \d+ page 0x[0-9a-f]{8}, last referenced", vm), vm
    assert "differs" not in vm, vm
    assert "the VM's page is older" in r.of("continue", 0), r
    assert "Value returned is $1 = NEG_OTHER" in r.of("finish", 0), r
    assert re.search(r"breakpoint\s+keep\s+y.*neg_decide", r.of("info breakpoints")), r

    cache, vm, pen, verdict = stop(r.of("continue", 1), "NEG_VM")
    assert verdict == "NEG_OTHER", r.of("continue", 1)        # the VM takes a cache page
    assert "Value returned is $2 = NEG_OTHER" in r.of("finish", 1), r.of("finish", 1)
    # a penalty (set from gdb): the VM's time is biased by it, and the prediction still holds
    cache, vm, pen, verdict = stop(r.of("continue", 2), "NEG_FS")
    assert pen == "120000" and verdict == "NEG_OWN", r.of("continue", 2)     # the penalty keeps the VM's pages
    # ...so surely that the VM is not asked: even a page as old as its bound (no VM page was
    # used before it, and the uptime is less than the penalty) would stay (neg_keeps_own)
    assert re.match(r"not asked: none of its pages was last used before t=\d+ ms", vm), vm
    assert "so it is not asked" in r.of("continue", 2), r.of("continue", 2)
    assert re.search(r"Value returned is \$3 = %s" % verdict, r.of("finish", 2)), (verdict, r.of("finish", 2))
    assert "negbreak: off" in r.of("negbreak off"), r
    # neg.verify_unasked (set from gdb): the VM, not asked, is asked all the same once the
    # verdict is made, and neg_decide stops again, with the VM's real offer: its oldest page,
    # no older than the bound, and the verdict unchanged
    cache, vm, pen, verdict = stop(r.of("continue", 3), "NEG_FS")
    assert verdict == "NEG_OWN" and vm.startswith("not asked"), r.of("continue", 3)
    bound = int(re.match(r"not asked: none of its pages was last used before t=(\d+) ms", vm).group(1))
    cache, vm, pen, verdict = stop(r.of("continue", 4), "NEG_FS")
    assert pen == "120000" and verdict == "NEG_OWN", r.of("continue", 4)
    m = re.match(r"frame \d+, pid \d+ \w+ (heap|stack|code) seg \d+ page 0x[0-9a-f]{8}, last referenced .*\(t=(\d+) ms\)", vm)
    assert m and int(m.group(2)) >= bound, (bound, vm)
    for i in range(5):
        assert "differs" not in r.of("continue", i), r.of("continue", i)     # the pages behind the offers

    # negs: the records sys_negtrace copied, column for column
    kernel = [list(map(int, l.split()[1:])) for l in r.of(DUMP_NEGS).splitlines() if l.startswith("negrecord ")]
    assert len(kernel) == 8, r
    head, rows = table_rows(r.of("negs 8"), first="SEQ")
    assert head == ["SEQ", "TIME", "ASKER", "FS_AGE", "VM_AGE", "PENALTY", "VM_BIASED", "GAVE", "CACHE", "VM", "FREE",
                    "REFAULTS", "SAVED", "EVIDENCE"], head
    rows = [row for row in rows if re.fullmatch(r"\d+", row[0])]
    who = {0: "fs", 1: "vm", 2: "kernel", 3: "none"}
    assert len(rows) == 8
    for (seq, t, asker, gave, flags, fs_t, vm_t, pen, cache, vmf, free, early, saved, ev_t), row in zip(kernel, rows):
        fs_age = "refuse" if flags & 1 else "free" if flags & 4 else str(t - fs_t)
        unasked = "<=" if flags & 0x40 else ""      # NEGT_VM_UNASKED: vm_t is the VM's bound
        vm_age = "refuse" if flags & 2 else "free" if flags & 8 else unasked + str(t - vm_t)
        assert row[:6] == [str(seq), str(t), who[asker], fs_age, vm_age, str(pen // 1000)], (row, seq)
        assert row[7] == who[gave] and row[8:11] == [str(cache), str(vmf), str(free)], row
        assert row[11:] == [str(early), str(saved), str(t - ev_t) if ev_t else "-"], row
        if vm_age.lstrip("<=").isdigit():
            assert row[6] == unasked + str(t - vm_t - pen), row
    assert "no negotiation" not in r.of("negs 0") and "neg.fs_asks_vm=" in r.of("negs 0"), r
    satisfied = int(re.search(r"neg\.fs_asks_vm_satisfied=(\d+)", r.of("negs 8")).group(1))
    assert satisfied > 0, r
    assert r.of("help negs").startswith("negs [N]:") and r.of("help negbreak").startswith("negbreak [fs|vm|")


def test_usym_follows_a_system_call_back_into_user_code(disk):
    """Stopped in echo's write system call: usym loads echo's symbols, names where it entered
    the kernel (as the host's addr2line names that address in build/user/bin/echo) and its
    user call chain up to main; the breakpoint it proposes stops back in user code, where gdb's
    own bt and finish work."""
    import shutil, subprocess
    from conftest import BUILD
    steps = ['break sys_write if $_streq(current->name, "echo")', "continue", "usym nosuch", "usym sort", "usym", "delete",
             "tbreak *$ueip if 'kernel/proc.c'::current->pid == $upid", "continue", "bt", "finish",
             "help usym", "kill"]
    r = session(disk, "echo hello world\n", steps)
    for c in steps:
        if c != "usym nosuch":
            assert not errors(r.of(c)), (c, r.of(c), r)
    assert "build/user/bin/nosuch does not exist" in r.of("usym nosuch"), r
    assert "runs echo, not sort" in r.of("usym sort"), r
    out = r.of("usym")
    m = re.search(r"^  0x([0-9a-f]{8}) (\w+) \(([\w/.]+):(\d+)\)", out, re.M)
    assert m, out
    eip = int(m.group(1), 16)
    tool = shutil.which("i686-linux-gnu-addr2line") or shutil.which("addr2line")
    host = subprocess.run([tool, "-f", "-e", str(BUILD / "user/bin/echo"), "0x%x" % eip], stdout=subprocess.PIPE,
                          text=True).stdout.split()
    assert host[0] == m.group(2) and host[1].endswith("%s:%s" % (m.group(3), m.group(4))), (host, out)
    main = re.search(r"^  called from 0x[0-9a-f]{8} main \(user/echo\.c:(\d+)\)$", out, re.M)
    assert main, out
    assert "printf" in open(ROOT_DIR / "user/echo.c").read().splitlines()[int(main.group(1)) - 1], out
    # back in user code, at that very address
    assert re.search(r"^Temporary breakpoint \d+, .*\b%s\b" % m.group(2), r.of("continue", 1), re.M), r
    assert "$pc" not in r.of("bt") and re.search(r"^#\d+ .* main \(argc=3, argv=0x[0-9a-f]+\) at user/echo\.c:%s$"
                                                  % main.group(1), r.of("bt"), re.M), r.of("bt")
    # finish leaves the frame it stopped in for its caller, in user code: out of the inline check
    # gdb lands in write, or (its step out of the inline frame taking the return too) in write_all
    assert re.search(r"^(write_all \(.*\) at user/lib/rwall\.c|write \(.*\) at user/lib/syscall\.c):\d+$",
                     r.of("finish"), re.M), r
    assert r.of("help usym").startswith("usym [PROGRAM]:"), r


def test_a_cow_fault_hands_the_page_to_the_slave(disk):
    """docs/gdb.md's COW walkthrough, checked: stopped in cow_fault where a slave depends on the
    page ($cor_slave), the slave's entry is COR naming the master and the master's is present
    and COW; after the fault the slave holds a frame of its own and the master's page is
    writable, and cowlists no longer lists that slave for the page."""
    steps = ['break cow_fault if $_streq(current->name, "forktree") && $cor_slave(s - segtab, va) >= 0',
             "continue", "set $seg = s - segtab", "set $va = va", "set $slave = $cor_slave($seg, $va)",
             "print $slave", "print $seg_pid($slave)", "print $seg", "print/x $va", "cowlists $seg",
             "pt current->pid $va", "pt $seg_pid($slave) $va", "delete", "finish", "cowlists $seg",
             "pt $seg_pid($slave) $va", "pt current->pid $va", "print $cor_slave($seg, $va)", "kill"]
    r = session(disk, "forktree -k 16 -d 1 -w 2\n", steps)
    for c in steps:
        assert not errors(r.of(c)), (c, r.of(c), r)

    def val(c):
        return int(re.search(r"= (0x[0-9a-f]+|-?\d+)", r.of(c)).group(1), 0)
    slave, slave_pid, seg, va = val("print $slave"), val("print $seg_pid($slave)"), val("print $seg"), val("print/x $va")
    assert slave >= 0 and slave_pid > 0, r

    def entry(c, nth):
        head, rows = table_rows(r.of(c, nth), first="VA")
        assert len(rows) == 1 and int(rows[0][0], 16) == va, r.of(c, nth)
        return dict(zip(head, rows[0]))
    master = entry("pt current->pid $va", 0)
    before = entry("pt $seg_pid($slave) $va", 0)
    assert int(master["SEG"]) == seg and master["STATE"] == "present" and "COW" in master["BITS"] \
        and "W" not in master["BITS"].split(), master
    assert int(before["SEG"]) == slave and before["STATE"] == "copy-on-reference", before
    assert before["MASTER"].startswith("seg %d (pid" % seg), before
    line = next(l for l in r.of("cowlists $seg", 0).splitlines() if l.startswith("  0x%08x" % va))
    assert "master seg %d " % seg in line and "seg %d" % slave in line.split("slaves:")[1], line

    after = entry("pt $seg_pid($slave) $va", 1)
    master_after = entry("pt current->pid $va", 1)
    assert after["STATE"] == "present" and "W" in after["BITS"].split() and after["FRAME"] != master["FRAME"], after
    assert after["MASTER"] == "-" and "COW" not in after["BITS"], after
    assert re.search(r"Value returned is \$\d+ = 0", r.of("finish")), r
    if val("print $cor_slave($seg, $va)") < 0:      # it was the only slave: the master may write
        assert "W" in master_after["BITS"].split() and "COW" not in master_after["BITS"], master_after
        assert not any(l.startswith("  0x%08x" % va) for l in r.of("cowlists $seg", 1).splitlines()), r


def test_a_session_outlasts_a_qemu_that_stalls(disk):
    """gdb waits for a slow reply (tools/gdb/rungdb.py: remotetimeout). A loaded host leaves
    QEMU's gdb stub unscheduled for seconds; with gdb's default 2 s, gdb gave up on a reply,
    read it late as the answer to its next packet, and a session reported "Invalid hex digit",
    garbage memory or a stop by SIGINT (runs 19 and 21 beside a CPU hog). Planted here: QEMU
    stopped for 3 s, three times, while negbreak's breakpoint reads memory at every negotiation
    of memhog's; the session must end as an undisturbed one does."""
    import os, signal, sys, threading, time
    sys.path.insert(0, str(ROOT_DIR / "tools" / "fuzz"))
    from repeat_test import descendants, is_qemu      # its --jitter stops QEMUs the same way

    def our_qemus():
        return [p for p in descendants([os.getpid()]) if is_qemu(p)]

    def stall():
        for _ in range(3):
            time.sleep(1)
            qemus = our_qemus()
            for q in qemus:
                os.kill(q, signal.SIGSTOP)
            time.sleep(3)
            for q in qemus:
                os.kill(q, signal.SIGCONT)
            stalls.append(qemus)

    def start_stalling(m):
        threading.Thread(target=stall, daemon=True).start()
        return ""

    stalls = []
    steps = ["negbreak vm", "continue", "kill"]
    r = session(disk, [(None, "memhog 14\n"), (r"^\$ memhog 14$", start_stalling)], steps,
                cmdline="fs.cache_fixed_kb=256", timeout=600)
    assert len(stalls) == 3 and all(stalls), (stalls, r)
    assert not errors(r.of("continue")) and "Invalid" not in r.of("continue"), r
    assert "SIGINT" not in r.of("continue"), r
    assert "memhog: 14 MB ok" in r.console, r
