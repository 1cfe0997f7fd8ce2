"""frames [POOL]: the core map (kernel/mem/coremap.h), one frame a line, and where the clock hands are."""
import gdb

import kconst as K
from fsnames import Names
from kmem import table, var_u32
from kstate import SEG_TYPES, State

POOLS = ("free", "kernel", "cache", "vm")


def age(st, lastref):
    return "-" if not lastref else "%.1f" % (((st.now - lastref) & 0xFFFFFFFF) / 1000.0)


def vm_owner(st, i):
    f = st.frames[i]
    page = st.frame_page(i)
    if page is None:
        return "nobody yet (in hand: being filled)" if f.flags & K.FRAME_BUSY else "nobody"
    k, va = page
    s = st.segments[k]
    who = st.seg_owner(k)
    proc = "pid %d %s" % who if who else "no process"
    return "%s %s seg %d page 0x%08x" % (proc, SEG_TYPES.get(s.type, "?"), k, va)


def vm_flags(st, i):
    f = st.frames[i]
    words = []
    e = st.frame_pte(i)
    if e is not None and e & K.PTE_P:
        if e & K.PTE_A:
            words.append("accessed")
        if e & K.PTE_D or f.pflags & K.VMF_DIRTY:
            words.append("dirty")
        if e & K.PTE_COW:
            words.append("cow")
    elif e is not None and e & K.PTE_INTRANS:
        words.append("in-transit")
        if f.pflags & K.VMF_DIRTY:
            words.append("dirty")
    elif f.pflags & K.VMF_DIRTY:
        words.append("dirty")
    for bit, word in ((K.VMF_BACKED, "backed"), (K.VMF_LAUNDRY, "laundry"), (K.VMF_READY, "ready")):
        if f.pflags & bit:
            words.append(word)
    return words


def cache_owner(st, names, i):
    f = st.frames[i]
    if not f.owner:
        return "nobody (moving between pools)", []
    b = st.cblock(f.owner)
    words = []
    if not b.hashed:
        return "free list (no identity)", words
    file, block = names.block(b)
    for bit, word in ((K.CB_DIRTY, "dirty"), (K.CB_SCHED, "scheduled"), (K.CB_RECYCLE, "recycle")):
        if b.flags & bit:
            words.append(word)
    if not b.flags & K.CB_VALID:
        words.append("invalid")
    if b.refcnt:
        words.append("held %d" % b.refcnt)
    return "%s block %s" % (file, block), words


def hands(st):
    """[(what, frame)]: the aging clock's sweep (vm/aging.c age_hand) and the policy's own hand."""
    out = [("aging hand", var_u32("age_hand", "vm/aging.c"))]
    h = st.policy_hand()
    if h:
        out.append(h)
    return out


def frame_rows(st, pools):
    names = Names(st)
    marks = {}
    for what, i in hands(st):
        marks.setdefault(i, []).append("<- " + what)
    rows = []
    for i, f in enumerate(st.frames):
        pool = st.pool_name.get(f.pool, "none")
        if pool not in pools:
            continue
        flags = []
        if f.flags & K.FRAME_BUSY:
            flags.append("busy")
        if f.flags & K.FRAME_WANTED:
            flags.append("wanted")
        if pool == "vm":
            owner = vm_owner(st, i)
            flags += vm_flags(st, i)
        elif pool == "cache":
            owner, more = cache_owner(st, names, i)
            flags += more
        else:
            owner = "-"
        rows.append([i, "0x%08x" % (i << K.PGSHIFT), pool, owner,
                     age(st, f.lastref) if pool in ("vm", "cache") else "-",
                     " ".join(flags) or "-", " ".join(marks.get(i, []))])
    return rows


class Frames(gdb.Command):
    """frames [POOL]: the core map, one physical frame a line, and where the clock hands are.

POOL is free, kernel, cache, vm or all; without it, the cache's and the VM's frames. Columns:
FRAME (its number: physical address >> 12), PA, POOL, OWNER (a VM frame: its process, segment
type, segment index and page; a cache frame: the file -- a path when its directory is in the
cache, else its descriptor number -- and block, or the cache's free list), AGE (seconds since
its time of last reference, the age the negotiation compares), FLAGS (busy: under I/O; for a
VM page its entry's accessed and dirty bits, cow, in-transit, and the VM's own backed, laundry,
ready; for a block dirty, scheduled, recycle, held N), HAND (the aging clock's sweep,
vm/aging.c age_hand, and the policy's hand, vm/policy_clock.c clock_hand). The last lines count
the frames of each pool and say where each hand is."""

    def __init__(self):
        super().__init__("frames", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if len(args) > 1 or (args and args[0] not in POOLS + ("all",)):
            raise gdb.GdbError("usage: frames [free|kernel|cache|vm|all]")
        pools = POOLS if args and args[0] == "all" else (args[0],) if args else ("cache", "vm")
        st = State()
        gdb.write(table(["FRAME", "PA", "POOL", "OWNER", "AGE", "FLAGS", "HAND"], frame_rows(st, pools),
                        right=["AGE"]))
        counts = {p: 0 for p in POOLS}
        for f in st.frames:
            name = st.pool_name.get(f.pool)
            if name in counts:
                counts[name] += 1
        gdb.write("pools: %s (frames in each, counted in the core map)\n"
                  % ", ".join("%s %d" % (p, counts[p]) for p in POOLS))
        for what, i in hands(st):
            pool = st.pool_name.get(st.frames[i].pool, "none") if i < st.nframes else "none"
            gdb.write("%s: frame %d (%s)\n" % (what, i, pool))
        gdb.write("policy %s; the VM's oldest page (its offer): %s\n" % (st.policy_name(), _victim(st)))


def _victim(st):
    v = st.next_victim()
    if v is None:
        return "unknown for this policy"
    if v < 0:
        return "none"
    return "frame %d (%s)" % (v, vm_owner(st, v))


Frames()
