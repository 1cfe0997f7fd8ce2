"""seg PID and pt PID [VA]: a process's segments (vm/vm.h struct segment) and their page-table
entries, decoded."""
import gdb

import kconst as K
from kmem import parse_int, table
from kstate import SEG_TYPES, State
from ptdecode import Entry, entries


def ring(st, k):
    """The segment indexes on k's COW-COR ring, k first."""
    out, cur = [k], st.seg_index(st.segments[k].cow_next)
    while cur is not None and cur != k and len(out) <= len(st.segments):
        out.append(cur)
        cur = st.seg_index(st.segments[cur].cow_next)
    return out


def segment_row(st, t, k):
    s = st.segments[k]
    counts = {"present": 0, "ondisk": 0, "cor": 0, "intransit": 0}
    cow = 0
    for _, e in entries(st, k):
        if e.state in counts:
            counts[e.state] += 1
        cow += e.cow
    others = ring(st, k)[1:]
    backing = "-" if s.type == 0 else "%d%s%s" % (s.swapblocks, " lazy" if s.lazy else "",
                                                  " noswap" if s.noswap else "")
    return [k, t, "0x%08x-0x%08x" % (s.start, s.end), (s.end - s.start) >> K.PGSHIFT, s.resident,
            counts["present"], counts["ondisk"], counts["intransit"], cow, counts["cor"], s.cor_refs,
            backing, s.refs, " ".join("seg %d" % o for o in others) or "-"]


class Seg(gdb.Command):
    """seg PID: the process's segments, one a line (vm/vm.h struct segment).

Columns: SEG (its index in segtab: cowlists, pt and the corrupt program use it), TYPE, RANGE
(the pages that exist, [start, end)), PAGES, RESIDENT (its count: pages with a frame),
PRESENT, ONDISK, INTRANS (entries in each state, counted in its page tables), COW (pages it
holds copy-on-write as a master), COR (its entries naming a master), DEPS (cor_refs: COR
entries anywhere naming it), BACKING (blocks reserved in its backing file; lazy: not yet
reserved, the VM daemon will), REFS, RING (the other segments of its COW-COR ring)."""

    def __init__(self):
        super().__init__("seg", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = [arg.strip()] if arg.strip() else []      # one expression: seg current->pid
        if len(args) != 1:
            raise gdb.GdbError("usage: seg PID")
        st = State()
        p = st.proc(parse_int(args[0], "seg"))
        segs = st.proc_segments(p)
        if not segs:
            raise gdb.GdbError("seg: pid %d (%s) has no user memory (a kernel thread)" % (p.pid, p.name))
        rows = [segment_row(st, t, k) for t, k in segs]
        gdb.write("pid %d (%s)\n" % (p.pid, p.name))
        gdb.write(table(["SEG", "TYPE", "RANGE", "PAGES", "RESIDENT", "PRESENT", "ONDISK", "INTRANS", "COW",
                         "COR", "DEPS", "BACKING", "REFS", "RING"], rows))


def entry_row(st, k, va, e):
    s = st.segments[k]
    frame = master = block = disk = "-"
    if e.frame is not None:
        frame = str(e.frame)
    if e.master is not None:
        who = st.seg_owner(e.master) if e.master < len(st.segments) else None
        master = "seg %d%s" % (e.master, " (pid %d %s)" % who if who else "")
    if s.type != 0 and e.state in ("ondisk", "present", "intransit"):
        b = st.seg_block(k, va)
        if b < s.swapblocks:
            block = str(b)
            d = st.swap_addr(k, b)
            disk = str(d) if d is not None else "?"
    what = {"present": "present", "none": "none (zero fill or the executable)", "ondisk": "on backing store",
            "intransit": "in transit (frame busy under I/O)", "cor": "copy-on-reference"}[e.state]
    return ["0x%08x" % va, k, SEG_TYPES.get(s.type, "?"), what, frame, " ".join(e.bits) or "-", master,
            block, disk]


class Pt(gdb.Command):
    """pt PID [VA]: the process's page-table entries, decoded (vm/vm.h).

Without VA, every entry that is not 0 in each of its segments; with VA, that page's entry
alone, 0 included. Columns: VA, SEG (the segment's index), TYPE, STATE (present; none: zero
fill or loaded from the executable on the next touch; on backing store; in transit: its frame
busy under I/O; copy-on-reference), FRAME (present or in transit), BITS (W U A D as the
hardware keeps them, COW for a master's copy-on-write page), MASTER (a COR entry's master
segment and its process), BLOCK (the page's block in the segment's backing file, when
reserved) and DISK (the disk block recorded for it at reservation)."""

    def __init__(self):
        super().__init__("pt", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if len(args) not in (1, 2):
            raise gdb.GdbError("usage: pt PID [VA]")
        st = State()
        p = st.proc(parse_int(args[0], "pt"))
        segs = st.proc_segments(p)
        if not segs:
            raise gdb.GdbError("pt: pid %d (%s) has no user memory (a kernel thread)" % (p.pid, p.name))
        rows = []
        if len(args) == 2:
            va = parse_int(args[1], "pt") & ~0xFFF
            hit = [k for _, k in segs if st.segments[k].lo <= va < st.segments[k].hi]
            if not hit:
                raise gdb.GdbError("pt: 0x%x is in none of pid %d's segments" % (va, p.pid))
            e = st.pte(hit[0], va)
            if e is None:
                gdb.write("0x%08x: no page table for it in seg %d (never touched)\n" % (va, hit[0]))
                return
            rows.append(entry_row(st, hit[0], va, Entry(e)))
        else:
            for _, k in segs:
                rows += [entry_row(st, k, va, e) for va, e in entries(st, k)]
        gdb.write("pid %d (%s)\n" % (p.pid, p.name))
        gdb.write(table(["VA", "SEG", "TYPE", "STATE", "FRAME", "BITS", "MASTER", "BLOCK", "DISK"], rows,
                        right=["FRAME", "BLOCK", "DISK"]))


Seg()
Pt()
