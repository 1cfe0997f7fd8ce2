"""The VM audit shown to fail: every check it makes catches the damage it is there for.

`corrupt` (user/corrupt.c, SYS_vmcorrupt in scaffold/vm_corrupt.c, allowed only with debug.corrupt=1)
changes one word of the VM's bookkeeping: a page-table or page-directory entry, a core-map
entry, a segment's field, a pool's count. For each check below a case makes the damage that
check is there for, runs `audit`, and expects exit status 1 and exactly the listed lines, each
naming what was damaged (frame, segment, address), as parsed from what the audit printed; then
`corrupt restore`, and the audit is clean again (status 0). Some damage is inherently seen by
more than one check (a frame moved to another pool also changes two pools' counts); the case
then lists every line it must produce, and no other line may appear.

The checks (kernel/mem/coremap.c coremap_audit, vm/audit.c vm_audit with vm/pageout.c pageout_audit
and vm/oldest.c oldest_audit, vm/cowcor.c cowcor_audit, vm/segment.c as_audit), and the case that
makes each fail:

  core map   frame has no pool ....................................... no_pool
             frame on the free list is in another pool ............... free_frame_in_pool
             the free list comes back to a frame (a cycle) ........... free_list_cycle
             a free frame is not on the free list .................... free_list_cut, used_frame_marked_free
             a pool holds n frames but counts m ...................... pool_count
             n frames on the free list, m counted free ............... free_list_cut
  pages      VM frame has no live segment ............................ owner_none
             VM frame is not mapped at its page ...................... index_moved
             an entry maps a frame its segment does not own .......... other_process_frame
             an entry in transit whose frame is not busy ............. intrans_not_busy
             a strange entry (no state bit) .......................... strange_entry
             a present entry with the COR bit ........................ present_cor
             a COR entry with the on-disk bit ........................ cor_ondisk
             a page outside the segment's [start, end) ............... page_outside
             resident count differs from the entries ................. resident_count
             fewer backing blocks than pages ......................... backing_blocks
             pages on backing store beyond the blocks ................ ondisk_beyond_blocks
             VM frame count differs from the core map's .............. vm_count (with the pool count)
             a present entry without the user bit .................... no_user_bit
             a code page mapped writable ............................. code_writable
             a page-directory entry naming another page table ........ pde_other_table
  COW-COR    ring links inconsistent ................................. ring_link
             ring holds a segment of another kind (or unused) ........ ring_other_kind
             ring does not close ..................................... ring_open
             code segment on a ring .................................. code_on_ring
             COW page mapped writable ................................ cow_writable
             COW entry holds no page ................................. cow_no_page
             COR entry names no master ............................... cor_self
             COR entry's master dead or not on the ring .............. cor_foreign_master
             COR entry's master does not hold the page COW ........... cor_sibling, master_not_cow
             segment has COW pages but no dependants ................. cor_refs_zero
             dependants count differs from the COR entries ........... cor_refs_count

The processes damaged sit blocked in the kernel (`corrupt family`, `sleep`), so nothing runs
over the damage; the VM daemon stands still while anything is damaged."""
import os
import re
import subprocess
import threading
import time

from conftest import BUILD, _new_log, runqemu

MEM = 64
P, W, U, COR, ONDISK, INTRANS, COW = 0x1, 0x2, 0x4, 0x100, 0x200, 0x400, 0x800
PROMPT = re.compile(r"(?m)^\$ ")


class Guest:
    """A booted kernel driven one command at a time: each line is sent once the shell prompts,
    and a command's output is what the guest printed between the echo of its line and the
    next prompt (never the echo itself)."""

    def __init__(self, disk, cmdline=""):
        self.log = open(_new_log(), "wb")
        args = runqemu.command(mem=MEM, timeout=300, kernel=BUILD / "kernel.elf", disk=disk, append=cmdline)
        self.log.write(("# %s\n" % " ".join(args)).encode())
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.text = ""
        self.cv = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.mark = self.wait(PROMPT, 0, 120).end()

    def _read(self):
        while True:
            b = self.p.stdout.read1(65536)
            self.log.write(b)
            self.log.flush()
            with self.cv:
                if not b:
                    self.done = True
                    self.cv.notify_all()
                    return
                self.text += b.decode("utf-8", "replace").replace("\r", "")
                self.cv.notify_all()

    def wait(self, rx, start, timeout=60):
        end = time.time() + timeout
        with self.cv:
            while True:
                m = rx.search(self.text, start)
                if m:
                    return m
                if getattr(self, "done", False) or time.time() > end:
                    raise AssertionError("guest never printed %r; see %s; last output:\n%s"
                                         % (rx.pattern, self.log.name, self.text[-1500:]))
                self.cv.wait(1)

    def run(self, line):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()
        echo = self.wait(re.compile(re.escape(line) + "\n"), self.mark)
        self.echoed = echo.end()
        prompt = self.wait(PROMPT, echo.end())
        self.mark = prompt.end()
        return self.text[echo.end():prompt.start()]

    def status(self, line):
        """(output, exit status) of line."""
        out = self.run(line + '; echo "?=$?"')
        m = re.search(r"(?m)^\?=(\d+)\n?\Z", out)
        assert m, "no status after %r: %r" % (line, out)
        return out[:m.start()], int(m.group(1))

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(120)
        self.reader.join(10)
        self.log.close()
        return rc


def show(g, pid):
    """corrupt show PID: the process's segment numbers, and per segment its fields and entries."""
    out, st = g.status("corrupt show %d" % pid)
    assert st == 0, out
    segs, info, entries = {}, {}, {}
    for line in out.splitlines():
        w = line.split()
        if w[:1] == ["pid"]:
            segs = {w[i]: int(w[i + 1]) for i in range(2, len(w), 2)}
        elif w[:1] == ["segment"]:
            info[int(w[1])] = {w[i]: int(w[i + 1], 0) for i in range(3, len(w), 2)}
            entries[int(w[1])] = {}
        elif w[:1] == ["entry"]:
            entries[int(w[1])][int(w[2], 16)] = int(w[3], 16)
    return segs, info, entries


def background(g, line, rx):
    """Starts line in the background; returns the match of rx once it printed it."""
    g.run(line + " &")
    return g.wait(re.compile(rx), g.echoed)


class Cases:
    """Runs damage / audit / restore / audit for each case; collects what went wrong."""

    def __init__(self, g):
        self.g, self.failed, self.ran = g, [], []

    def case(self, name, damage, expect):
        """damage: corrupt commands; expect: regexes, or (regex, predicate of the match), each
        matching at least one of the audit's lines, which must all be matched."""
        g, why = self.g, []
        self.ran.append(name)
        for cmd in damage:
            out, st = g.status("corrupt " + cmd)
            if st != 0 or "corrupt: " not in out:
                why.append("%r failed: %r" % (cmd, out))
        out, st = g.status("audit")
        lines = [l for l in out.splitlines() if l.startswith("audit: ") and l != "audit: ok"
                 and not re.fullmatch(r"audit: \d+ problems", l)]
        summary = re.search(r"(?m)^audit: (\d+) problems$", out)
        if st != 1:
            why.append("audit exit status %d, not 1" % st)
        if not summary or int(summary.group(1)) != len(lines):
            why.append("the summary does not count the %d lines" % len(lines))
        matched = set()
        for e in expect:
            rx, pred = (e, None) if isinstance(e, str) else e
            hits = [i for i, l in enumerate(lines) if re.fullmatch(rx, l) and (not pred or pred(re.fullmatch(rx, l)))]
            if not hits:
                why.append("no line matches %r" % rx)
            matched.update(hits)
        why += ["unexpected line %r" % lines[i] for i in range(len(lines)) if i not in matched]
        out, st = g.status("corrupt restore")
        if st != 0 or not re.search(r"corrupt: restored %d\b" % len(damage), out):
            why.append("restore: %r" % out)
        out, st = g.status("audit")
        if st != 0 or out.strip() != "audit: ok":
            why.append("after restoring, audit says (status %d): %r" % (st, out))
        if why:
            self.failed.append("%s:\n    %s\n    audit printed: %r" % (name, "\n    ".join(why), lines))

    def finish(self, *kill):
        """Kills the test's processes, checks the audit once more, powers off cleanly."""
        g = self.g
        for pid in kill:
            g.status("kill %d" % pid)
        out, st = g.status("audit")
        if st != 0:
            self.failed.append("after killing the processes: %r" % out)
        rc = g.close()
        if rc != 0:
            self.failed.append("exit status %d (not a clean power-off); see %s" % (rc, g.log.name))
        assert not self.failed, "%d of %d cases failed:\n%s" % (len(self.failed), len(self.ran),
                                                                 "\n".join(self.failed))


def family(g, n):
    m = background(g, "corrupt family %d" % n, r"family: master (\d+) slaves((?: \d+)+)\n")
    return int(m.group(1)), [int(x) for x in m.group(2).split()]


def test_refused_unless_enabled_then_coremap_checks(disk):
    g = Guest(disk)
    out, st = g.status("corrupt info")
    assert st == 1 and "refused" in out and "debug.corrupt=1" in out, out
    out, st = g.status("corrupt frame 0 pool =9")
    assert st == 1 and "refused" in out, out
    out, st = g.status("sysctl debug.corrupt=1")
    assert st == 0, out
    out, st = g.status("corrupt seg 0 used =0")      # the next fork would take the slot
    assert st == 1 and "Invalid argument" in out, out
    out, st = g.status("corrupt -h")
    assert st == 0 and out.startswith("usage: corrupt COMMAND"), out
    out, st = g.status("corrupt info")
    assert st == 0, out
    info = dict(re.findall(r"([a-z-]+) (\d+)", out))
    tail, before, none = int(info["free-tail"]), int(info["before-tail"]), int(info["none-frame"])
    c = Cases(g)
    c.case("no_pool", ["frame %d pool =9" % none], [r"audit: frame %d has no pool \(9\)" % none])
    c.case("free_frame_in_pool", ["frame %d pool =kernel" % tail], [
        r"audit: frame %d on the free list is in pool 2" % tail,
        (r"audit: pool 1 holds (\d+) frames but counts (\d+)", lambda m: int(m[1]) + 1 == int(m[2])),
        (r"audit: pool 2 holds (\d+) frames but counts (\d+)", lambda m: int(m[1]) == int(m[2]) + 1)])
    c.case("pool_count", ["frame %d pool =kernel" % none], [
        (r"audit: pool 2 holds (\d+) frames but counts (\d+)", lambda m: int(m[1]) == int(m[2]) + 1)])
    c.case("free_list_cut", ["frame %d next =none" % before], [
        r"audit: free frame %d is not on the free list" % tail,
        (r"audit: (\d+) frames on the free list, (\d+) counted free", lambda m: int(m[1]) + 1 == int(m[2]))])
    c.case("free_list_cycle", ["frame %d next =%d" % (tail, before)],
           [r"audit: the free list comes back to frame %d" % before])
    c.case("vm_count", ["count vm +1"], [
        (r"audit: pool 4 holds (\d+) frames but counts (\d+)", lambda m: int(m[1]) + 1 == int(m[2])),
        (r"audit: (\d+) VM frames, the core map counts (\d+)", lambda m: int(m[1]) + 1 == int(m[2]))])
    c.finish()


def frame_of(e):
    return e >> 12


def test_page_table_checks(disk):
    g = Guest(disk, "debug.corrupt=1")
    a, b, c = (int(background(g, "sleep 1000", r"\[(\d+)\]\n").group(1)) for _ in range(3))
    out, st = g.status("sysctl vm.pageout=%d" % b)
    assert st == 0, out
    sa, info, ent = show(g, a)
    stk, code = sa["stack"], sa["code"]
    top = 0xc0000000 - 0x1000
    e1 = ent[stk][top]
    f1 = frame_of(e1)
    assert e1 & P and info[stk]["start"] == top - 0x1000 and ent[stk][top - 0x1000] & P, (info, ent)
    hole = next(va for va in range(info[code]["start"], info[code]["end"], 0x1000) if va not in ent[code])
    sb, infob, entb = show(g, b)
    assert all(e & ONDISK for e in entb[sb["stack"]].values()) and entb[sb["stack"]], entb
    sc, _, entc = show(g, c)
    g1 = frame_of(entc[sc["stack"]][top])
    at = "segment %d va 0x%x" % (stk, top)

    k = Cases(g)
    k.case("owner_none", ["frame %d owner =none" % f1], [
        r"audit: VM frame %d has no live segment" % f1,
        r"audit: %s maps frame 0x%x it does not own" % (at, f1 << 12)])
    k.case("used_frame_marked_free", ["frame %d pool =free" % f1], [
        r"audit: free frame %d is not on the free list" % f1,
        (r"audit: pool 1 holds (\d+) frames but counts (\d+)", lambda m: int(m[1]) == int(m[2]) + 1),
        (r"audit: pool 4 holds (\d+) frames but counts (\d+)", lambda m: int(m[1]) + 1 == int(m[2])),
        (r"audit: (\d+) VM frames, the core map counts (\d+)", lambda m: int(m[1]) + 1 == int(m[2])),
        r"audit: %s maps frame 0x%x it does not own" % (at, f1 << 12)])
    k.case("index_moved", ["frame %d index -1" % f1], [
        r"audit: VM frame %d \(segment %d, va 0x%x\) is not mapped there" % (f1, stk, top - 0x1000),
        r"audit: %s maps frame 0x%x it does not own" % (at, f1 << 12)])
    k.case("other_process_frame", ["pte %d stack 0x%x frame %d" % (a, top, g1)], [
        r"audit: %s maps frame 0x%x it does not own" % (at, g1 << 12),
        r"audit: VM frame %d \(segment %d, va 0x%x\) is not mapped there" % (f1, stk, top)])
    k.case("intrans_not_busy", ["pte %d stack 0x%x =0x%x" % (a, top, (e1 & ~P) | INTRANS)], [
        r"audit: %s in transit but its frame is not busy" % at,
        r"audit: VM frame %d \(segment %d, va 0x%x\) is not mapped there" % (f1, stk, top)])
    k.case("strange_entry", ["pte %d code 0x%x =0x2" % (a, hole)],
           [r"audit: segment %d va 0x%x has a strange entry 0x2" % (code, hole)])
    k.case("present_cor", ["pte %d stack 0x%x cor" % (a, top)],
           [r"audit: %s: present entry with the COR bit 0x%x" % (at, e1 | COR)])
    k.case("page_outside", ["seg %d start +4096" % stk],
           [r"audit: segment %d has a page at 0x%x outside \[0x%x, 0xc0000000\)" % (stk, top - 0x1000, top)])
    k.case("resident_count", ["seg %d resident +1" % stk],
           [r"audit: segment %d counts 3 resident pages but maps 2" % stk])
    k.case("backing_blocks", ["seg %d swapblocks -1" % stk],
           [r"audit: segment %d has 2 pages but 1 backing blocks \(type 2, .*" % stk])
    k.case("ondisk_beyond_blocks", ["seg %d swapblocks -1" % sb["stack"]], [
        r"audit: segment %d has 2 pages but 1 backing blocks \(type 2, .*" % sb["stack"],
        r"audit: segment %d has pages on backing store beyond its 1 blocks" % sb["stack"]])
    k.case("no_user_bit", ["pte %d stack 0x%x user" % (a, top)],
           [r"audit: %s: present entry without the user bit 0x%x" % (at, e1 & ~U)])
    k.case("code_writable", ["pte %d code 0x400000 writable" % a],
           [r"audit: segment %d va 0x400000: code page mapped writable 0x[0-9a-f]+" % code])
    k.case("pde_other_table", ["pde %d 0x%x like %d" % (a, top, c)],
           [r"audit: pid %d: page directory entry for 0xbfc00000 \(0x[0-9a-f]+\) is not segment %d's page table"
            % (a, stk)])
    k.finish(a, b, c)


def test_cowcor_checks(disk):
    g = Guest(disk, "debug.corrupt=1")
    m, slaves = family(g, 3)
    ga, (gb,) = family(g, 1)
    lone = int(background(g, "sleep 1000", r"\[(\d+)\]\n").group(1))
    sm, info, ent = show(g, m)
    hm = sm["heap"]
    s = [show(g, p) for p in slaves]
    hs = [x[0]["heap"] for x in s]
    for x in s:
        info.update(x[1])
        ent.update(x[2])
    # A page the master holds COW, resident, off which every slave's entry copies on reference.
    cor = COR | hm << 12
    va = next(v for v, e in sorted(ent[hm].items())
              if e & (P | COW) == P | COW and all(ent[h].get(v) == cor for h in hs))
    zero = next(v for v in range(info[hm]["start"], info[hm]["end"], 0x1000) if v not in ent[hm])
    refs = info[hm]["cor_refs"]
    ring = [hm]
    while info[ring[-1]]["next"] != hm:
        ring.append(info[ring[-1]]["next"])
    assert sorted(ring) == sorted([hm] + hs), (ring, hs)
    ha, hb = show(g, ga)[0]["heap"], show(g, gb)[0]["heap"]
    lone_segs = show(g, lone)[0]
    h1, h2 = hs[0], hs[1]
    at = "segment %d va 0x%x" % (h1, va)
    fewer = (r"audit: cowcor: segment %d counts %d dependants, the entries say (\d+)" % (hm, refs),
             lambda mt: int(mt[1]) < refs)
    one_less = r"audit: cowcor: segment %d counts %d dependants, the entries say %d" % (hm, refs, refs - 1)

    k = Cases(g)
    prev = info[hm]["prev"]
    k.case("ring_link", ["seg %d cow_prev =%d" % (hm, hm)], [
        r"audit: cowcor: segment %d: list links inconsistent" % hm,
        r"audit: cowcor: segment %d: list links inconsistent" % prev, fewer])
    k.case("ring_other_kind", ["seg %d type =2" % hb], [
        r"audit: cowcor: segment %d: list holds segment %d \(unused or of another kind\)" % (ha, hb),
        r"audit: cowcor: segment %d: list holds segment %d \(unused or of another kind\)" % (hb, ha)])
    r1, r2, r3 = ring[1], ring[2], ring[3]
    k.case("ring_open", ["seg %d cow_next =%d" % (r2, r1)], [
        r"audit: cowcor: segment %d: list does not close" % hm,
        r"audit: cowcor: segment %d: list links inconsistent" % r2,
        r"audit: cowcor: segment %d: list links inconsistent" % r3,
        r"audit: cowcor: segment %d va 0x[0-9a-f]+: master %d is dead or not on its list" % (r1, hm), fewer])
    cf, cl = sm["code"], lone_segs["code"]
    k.case("code_on_ring", ["seg %d cow_next =%d" % (cf, cl), "seg %d cow_prev =%d" % (cf, cl),
                            "seg %d cow_next =%d" % (cl, cf), "seg %d cow_prev =%d" % (cl, cf)], [
        r"audit: cowcor: code segment %d on a COW-COR list" % cf,
        r"audit: cowcor: code segment %d on a COW-COR list" % cl])
    k.case("cow_writable", ["pte %d heap 0x%x writable" % (m, va)],
           [r"audit: cowcor: segment %d va 0x%x: COW page mapped writable" % (hm, va)])
    k.case("cow_no_page", ["pte %d heap 0x%x =0x800" % (m, zero)], [
        r"audit: cowcor: segment %d va 0x%x: COW entry 0x800 holds no page" % (hm, zero),
        r"audit: segment %d va 0x%x has a strange entry 0x800" % (hm, zero)])
    k.case("cor_self", ["pte %d heap 0x%x =0x%x" % (slaves[0], va, COR | h1 << 12)], [
        r"audit: cowcor: %s: COR entry names no master \(0x%x\)" % (at, COR | h1 << 12), one_less])
    hl = lone_segs["heap"]
    k.case("cor_foreign_master", ["pte %d heap 0x%x =0x%x" % (slaves[0], va, COR | hl << 12)], [
        r"audit: cowcor: %s: master %d is dead or not on its list" % (at, hl), one_less,
        r"audit: cowcor: segment %d counts 0 dependants, the entries say 1" % hl])
    k.case("cor_sibling", ["pte %d heap 0x%x =0x%x" % (slaves[0], va, COR | h2 << 12)], [
        r"audit: cowcor: %s: master %d does not hold the page COW \(0x%x\)" % (at, h2, ent[h2][va]), one_less,
        r"audit: cowcor: segment %d counts 0 dependants, the entries say 1" % h2])
    k.case("master_not_cow", ["pte %d heap 0x%x cow" % (m, va)], [
        r"audit: cowcor: segment %d va 0x%x: master %d does not hold the page COW \(0x%x\)"
        % (h, va, hm, ent[hm][va] & ~COW) for h in hs])
    k.case("cor_ondisk", ["pte %d heap 0x%x ondisk" % (slaves[0], va)],
           [r"audit: %s: COR entry with the on-disk bit 0x%x" % (at, cor | ONDISK)])
    k.case("cor_refs_zero", ["seg %d cor_refs =0" % hm], [
        r"audit: cowcor: segment %d has COW pages but no dependants" % hm,
        r"audit: cowcor: segment %d counts 0 dependants, the entries say %d" % (hm, refs)])
    k.case("cor_refs_count", ["seg %d cor_refs +1" % hm],
           [r"audit: cowcor: segment %d counts %d dependants, the entries say %d" % (hm, refs + 1, refs)])
    k.finish(-m, -ga, lone)
