"""cowlists [SEG]: the COW-COR rings (vm/cowcor.c), with each page's master and slaves."""
import gdb

from cmd_seg import ring
from kmem import parse_int
from kstate import SEG_TYPES, State
from ptdecode import entries


def seg_words(st, k):
    s = st.segments[k]
    who = st.seg_owner(k)
    return "seg %d (%s %s, deps %d, resident %d)" % (k, "pid %d %s" % who if who else "no process",
                                                     SEG_TYPES.get(s.type, "?"), s.cor_refs, s.resident)


def rings(st):
    """Every ring of more than one segment, each as its member indexes from the lowest."""
    seen, out = set(), []
    for k, s in enumerate(st.segments):
        if not s.used or k in seen or st.seg_index(s.cow_next) in (None, k):
            continue
        members = ring(st, k)
        seen.update(members)
        out.append(members)
    return out


def pages(st, members):
    """{va: (master index or None, present/ondisk state, [slaves])}: who holds each page COW
    and whose COR entries name it."""
    masters, slaves = {}, {}
    for k in members:
        for va, e in entries(st, k):
            if e.cow:
                masters.setdefault(va, []).append((k, e))
            if e.state == "cor":
                slaves.setdefault(va, []).append((k, e.master))
    out = {}
    for va in sorted(set(masters) | set(slaves)):
        ms = masters.get(va, [])
        out[va] = (ms, slaves.get(va, []))
    return out


class Cowlists(gdb.Command):
    """cowlists [SEG]: each COW-COR ring, and for each page its master and its slaves.

A ring is the segments of one fork family (a heap's, or a stack's: cow_next in struct
segment). For each: its segments (process, type, DEPS = cor_refs, the COR entries naming it,
and resident pages), then one line per page that someone holds copy-on-write: the master
(the segment whose entry has PTE_COW; present with its frame, or on backing store) and the
slaves (the segments whose entry is copy-on-reference naming that master). A COR entry naming
a segment that holds no COW page there is flagged: the audit would call it damage. With SEG,
only the ring holding segment SEG."""

    def __init__(self):
        super().__init__("cowlists", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = [arg.strip()] if arg.strip() else []      # one expression: cowlists s - segtab
        st = State()
        all_rings = rings(st)
        if args:
            k = parse_int(args[0], "cowlists")
            if k >= len(st.segments) or not st.segments[k].used:
                raise gdb.GdbError("cowlists: segment %d is not in use" % k)
            all_rings = [r for r in all_rings if k in r] or [[k]]
        if not all_rings:
            gdb.write("no COW-COR rings (no segment shares pages with another)\n")
            return
        for members in all_rings:
            gdb.write("ring: %s\n" % "  ".join(seg_words(st, k) for k in members))
            for va, (ms, sl) in pages(st, members).items():
                if ms:
                    k, e = ms[0]
                    where = "frame %d" % e.frame if e.frame is not None else \
                        "on backing store" if e.state == "ondisk" else e.state
                    master = "master seg %d (%s)" % (k, where)
                else:
                    master = "master: none holds it COW"
                named = {m for _, m in sl}
                bad = [m for m in named if m not in [k for k, _ in ms]]
                slaves = " ".join("seg %d" % s for s, _ in sl) or "none"
                gdb.write("  0x%08x  %s  slaves: %s%s\n" % (
                    va, master, slaves,
                    "  (COR entries name seg %s, which holds no COW page here)" % ", ".join(map(str, bad))
                    if bad else ""))


Cowlists()
