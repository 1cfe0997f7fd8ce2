"""The VM audit shown to fail: every check it makes catches the damage it is there for.

`corrupt` (user/corrupt.c, SYS_vmcorrupt in vm/corrupt.c, allowed only with debug.corrupt=1)
changes one word of the VM's bookkeeping: a page-table or page-directory entry, a core-map
entry, a segment's field, a pool's count. For each check below a case makes the damage that
check is there for, runs `audit`, and expects exit status 1 and exactly the listed lines, each
naming what was damaged (frame, segment, address), as parsed from what the audit printed; then
`corrupt restore`, and the audit is clean again (status 0). Some damage is inherently seen by
more than one check (a frame moved to another pool also changes two pools' counts); the case
then lists every line it must produce, and no other line may appear.

The checks (vm/coremap.c coremap_audit, vm/page.c vm_audit, vm/cowcor.c cowcor_audit,
vm/segment.c as_audit), and the case that makes each fail:

  core map   frame has no pool ....................................... no_pool
             frame on the free list is in another pool ............... free_frame_in_pool
             the free list comes back to a frame (a cycle) ........... free_list_cycle
             a free frame is not on the free list .................... free_list_cut
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

The last five of "pages" were added with this test (the audit did not notice those kinds of
damage), and so were the free list's cycle and cut frames (only the counts were compared).
The processes damaged sit blocked in the kernel (`corrupt family`, `sleep`), so nothing runs
over the damage; the VM daemon stands still while anything is damaged."""
import os
import re
import subprocess
import sys
import threading
import time

from conftest import BUILD, ROOT, _new_log

MEM = 64
P, W, U, COR, ONDISK, INTRANS, COW = 0x1, 0x2, 0x4, 0x100, 0x200, 0x400, 0x800
PROMPT = re.compile(r"(?m)^\$ ")


class Guest:
    """A booted kernel driven one command at a time: each line is sent once the shell prompts,
    and a command's output is what the guest printed between the echo of its line and the
    next prompt (never the echo itself)."""

    def __init__(self, disk, cmdline=""):
        self.log = open(_new_log(), "wb")
        args = [sys.executable, str(ROOT / "tools/runqemu.py"), "--mem", str(MEM), "--timeout", "300",
                "--kernel", str(BUILD / "kernel.elf"), "--disk", str(disk), "--append", cmdline]
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
    start = g.mark
    g.run(line + " &")
    return g.wait(re.compile(rx), start)


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
