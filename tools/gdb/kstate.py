"""One look at the kernel's memory system, as the gdb commands see it.

A command runs while the machine is stopped, so everything it reads belongs to one instant;
State reads each table once (the core map, the segment table, the process table, the cache's
headers, page tables as they are asked for) and answers the questions the kernel itself asks
of them: which segment and page a frame holds, what a page-table entry says, which page the VM
offers the negotiation (pol_candidate and oldest_victim, as in vm/aging.c and vm/oldest.c), which block the cache would give up (cache_offer in fs/cache.c). Those
answers are the kernel's algorithms repeated in Python, so the tests compare them with what
the kernel decides at the same instant (tests/qemu/test_gdb*.py).
"""
import gdb

import kconst as K
from kmem import Layout, addr, cstring, enum_values, now_ms, u32, u32s, value, var_u32

SEG_TYPES = {0: "code", 1: "heap", 2: "stack"}


class State:
    def __init__(self):
        self.now = now_ms()
        self._cache = {}
        self._pt = {}
        pools = enum_values("enum frame_pool")
        self.pool_name = {v: k[len("POOL_"):].lower() for k, v in pools.items() if k != "NPOOL"}
        self.pool_id = {n: v for v, n in self.pool_name.items()}

    def _once(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    # --- the core map (kernel/mem/coremap.c) --------------------------------------------------------
    @property
    def nframes(self):
        return self._once("nframes", lambda: var_u32("nframes"))

    @property
    def coremap_addr(self):
        return self._once("coremap", lambda: int(value("coremap")))

    @property
    def frames(self):
        return self._once("frames", lambda: Layout("struct frame").read_array(self.coremap_addr, self.nframes))

    def frame_index(self, ptr):
        return (ptr - self.coremap_addr) // Layout("struct frame").size

    def pool_counts(self):
        """pool_count[] of kernel/mem/coremap.c: the core map's own counts, by pool name."""
        n = len(self.pool_name)
        counts = u32s(addr("pool_count", "kernel/mem/coremap.c"), n)
        return {self.pool_name[i]: counts[i] for i in range(n)}

    # --- segments (vm/segment.c) -------------------------------------------------------------
    @property
    def segtab_addr(self):
        return self._once("segtab", lambda: addr("segtab"))

    @property
    def segments(self):
        return self._once("segments", lambda: Layout("struct segment").read_array(
            self.segtab_addr, var_u32("nsegtab")))

    def seg_index(self, ptr):
        """The segtab index of a segment pointer, or None if it points elsewhere."""
        if not ptr:
            return None
        off = ptr - self.segtab_addr
        size = Layout("struct segment").size
        if off < 0 or off % size or off // size >= len(self.segments):
            return None
        return off // size

    def seg_owner(self, k):
        """The process whose heap or stack segment k is: (pid, name), or None (code segments
        belong to every process running their program: the first one found is named)."""
        procs = self.procs_by_as()
        s = self.segments[k]
        if s.as_ in procs:
            p = procs[s.as_]
            return p.pid, p.name
        for p in self.procs:
            if p.as_ and self.addrspace(p.as_).seg[s.type] == self.segtab_addr + k * Layout("struct segment").size:
                return p.pid, p.name
        return None

    def seg_label(self, k):
        s = self.segments[k]
        owner = self.seg_owner(k)
        who = "pid %d %s" % owner if owner else "no process"
        return "seg %d (%s %s)" % (k, who, SEG_TYPES.get(s.type, "?"))

    def pt_page(self, k, i):
        """Page table i of segment k (1024 entries), or None."""
        key = (k, i)
        if key not in self._pt:
            s = self.segments[k]
            ptr = u32(s.pts + 4 * i) if s.pts else 0
            self._pt[key] = u32s(ptr, 1024) if ptr else None
        return self._pt[key]

    def pte(self, k, va):
        """The page-table entry for va in segment k (seg_walk without create), or None."""
        s = self.segments[k]
        if not s.used or not s.pts or not (s.lo <= va < s.hi):
            return None
        pt = self.pt_page(k, (va - s.lo) // K.PTSPAN)
        return None if pt is None else pt[(va >> K.PGSHIFT) & 0x3FF]

    def seg_block(self, k, va):
        s = self.segments[k]
        if s.type == 2:
            return (s.hi - K.PGSIZE - va) >> K.PGSHIFT
        return (va - s.lo) >> K.PGSHIFT

    def swap_addr(self, k, block):
        """The disk block recorded for backing block `block` of segment k, or None."""
        s = self.segments[k]
        if block >= s.swapblocks or not s.swapaddr:
            return None
        page = u32(s.swapaddr + 4 * (block // 1024))
        return u32(page + 4 * (block % 1024)) if page else None

    # --- address spaces and processes (kernel/proc.c) ----------------------------------------
    def addrspace(self, ptr):
        return self._once(("as", ptr), lambda: Layout("struct addrspace").read(ptr))

    @property
    def procs(self):
        """The live process-table entries (state not UNUSED), each with ppid added."""
        def make():
            table = addr("ptable", "kernel/proc.c")
            lay = Layout("struct proc")
            states = enum_values("enum procstate")
            rows = lay.read_array(table, K.NPROC)
            by_addr = {r._addr: r for r in rows}
            live = []
            for r in rows:
                if r.state == states["UNUSED"]:
                    continue
                r.ppid = by_addr[r.parent].pid if r.parent in by_addr else 0
                live.append(r)
            return live
        return self._once("procs", make)

    def procs_by_as(self):
        return self._once("procs_by_as", lambda: {p.as_: p for p in self.procs if p.as_})

    def proc(self, pid):
        for p in self.procs:
            if p.pid == pid:
                return p
        raise gdb.GdbError("no process %d (ps lists them)" % pid)

    def current(self):
        ptr = var_u32("current", "kernel/proc.c")
        return next((p for p in self.procs if p._addr == ptr), None)

    def proc_segments(self, p):
        """[(type name, segment index)] of a process's address space."""
        if not p.as_:
            return []
        a = self.addrspace(p.as_)
        return [(SEG_TYPES[t], self.seg_index(a.seg[t])) for t in range(3) if a.seg[t]]

    # --- what a VM frame holds (vm/aging.c, vm/oldest.c, vm/pageout.c) ------------------------------------------------
    def frame_page(self, i):
        """(segment index, virtual address) of VM frame i's page, or None (owned by nobody)."""
        f = self.frames[i]
        k = self.seg_index(f.owner)
        if k is None:
            return None
        return k, self.segments[k].lo + (f.index << K.PGSHIFT)

    def frame_pte(self, i):
        page = self.frame_page(i)
        return None if page is None else self.pte(*page)

    def candidate(self, i):
        """pol_candidate: frame i holds a VM page that may be replaced now."""
        f = self.frames[i]
        if self.pool_name.get(f.pool) != "vm" or f.flags & K.FRAME_BUSY or not f.owner \
                or f.pflags & K.VMF_LAUNDRY:
            return False
        page = self.frame_page(i)
        if page is None:
            return False
        k, va = page
        s = self.segments[k]
        if s.refs <= 0 or (s.type != 0 and self.seg_block(k, va) >= s.swapblocks):
            return False
        e = self.pte(k, va)
        return e is not None and bool(e & K.PTE_P) and (e & ~0xFFF) == i << K.PGSHIFT

    def accessed(self, i):
        e = self.frame_pte(i)
        return e is not None and bool(e & K.PTE_A)

    # --- the replacement policy (vm/policy_*.c) ----------------------------------------------
    def policy_name(self):
        p = int(value("policy", "vm/pageout.c"))
        return cstring(u32(p)) if p else "?"

    def policy_hand(self):
        """(name, frame) of the policy's own position in the core map, or None."""
        name = self.policy_name()
        if name == "clock":
            return "clock hand", var_u32("clock_hand", "vm/policy_clock.c")
        if name == "clusterlru":
            return "next cluster", var_u32("cluster", "vm/policy_clusterlru.c")
        return None

    def next_victim(self):
        """vm/oldest.c's oldest_victim: the frame whose age vm_offer reports, or -1. A page the
        page-out daemon has cleaned first; then the first of the last scan's batch (kept for
        the tick) that is still a candidate, not accessed, with the same stamp; else what a
        new scan would find: the oldest such page by time of last reference, the lower frame
        number on a tie."""
        ready = addr("ready", "vm/pageout.c")
        link = Layout("struct frame")
        f = u32(ready + link.offset("next"))
        seen = 0
        while f != ready and seen <= self.nframes:
            i = self.frame_index(f)
            if self.candidate(i) and not self.accessed(i):
                return i
            f = self.frames[i].next
            seen += 1

        def still(i, stamp):
            return self.candidate(i) and not self.accessed(i) and self.frames[i].lastref == stamp

        if var_u32("oldest_tick", "vm/oldest.c") == (var_u32("vm_ticks", "vm/vm.c") + 1) & 0xFFFFFFFF:
            n = var_u32("noldest", "vm/oldest.c")
            batch = u32s(addr("oldest", "vm/oldest.c"), n) if n else ()
            stamps = u32s(addr("oldest_lastref", "vm/oldest.c"), n) if n else ()
            for i, stamp in zip(batch, stamps):
                if still(i, stamp):
                    return i
        cands = [i for i in range(self.nframes)
                 if self.pool_name.get(self.frames[i].pool) == "vm" and self.candidate(i) and not self.accessed(i)]
        return _oldest(cands, lambda f: (self.now - self.frames[f].lastref) & 0xFFFFFFFF)

    def vm_at_floor(self):
        counts = self.pool_counts()
        total = counts["free"] + counts["kernel"] + counts["cache"] + counts["vm"]
        return counts["vm"] <= total // 16

    # --- the file cache (fs/cache.c) ---------------------------------------------------------
    def cache_list(self, head_name):
        """The blocks on one of the cache's lists (lru, freelist, spare), first to last."""
        head = addr(head_name, "fs/cache.c")
        lay = Layout("struct cblock")
        nxt = lay.offset("next")
        out = []
        b = u32(head + nxt)
        limit = self.nframes + 4096
        while b != head and b and len(out) < limit:
            out.append(self.cblock(b))
            b = out[-1].next
        return out

    def cblock(self, ptr):
        return self._once(("cb", ptr), lambda: Layout("struct cblock").read(ptr))

    def block_busy(self, b):
        return bool(b.frame) and bool(self.frames[self.frame_index(b.frame)].flags & K.FRAME_BUSY)

    def cache_settings(self):
        return {n: var_u32(n, "fs/cache.c") for n in ("min_kb", "max_kb", "fixed_kb", "nframes_held")}

    def cache_candidate(self, giving):
        """cache_offer(giving) repeated: ('refuse', None), ('free', None) for a block on the free
        list (age 0: older than anything), or ('block', cblock): asked to give, the oldest clean
        one, else the oldest dirty one (the offer is then busy: it goes once written)."""
        s = self.cache_settings()
        per = K.FS_BSIZE // 1024
        min_blocks = s["min_kb"] // per
        kb = s["fixed_kb"] or s["max_kb"]
        cap = max(kb // per, min_blocks) if kb else 0
        must_grow = s["nframes_held"] < (cap if s["fixed_kb"] else min_blocks)
        if (s["fixed_kb"] or s["nframes_held"] <= min_blocks) if giving else must_grow:
            return "refuse", None
        if self.cache_list("freelist"):
            return "free", None
        dirty = None
        for b in self.cache_list("lru"):
            if b.refcnt > 0 or self.block_busy(b):
                continue
            if giving and b.flags & K.CB_DIRTY:
                dirty = dirty or b
                continue
            return "block", b
        return ("block", dirty) if dirty else ("refuse", None)

    def cfiles(self):
        return self._once("cfiles", lambda: Layout("struct cfile").read_array(
            addr("cfiles", "fs/writeback.c"), int(value("cfiles", "fs/writeback.c").type.range()[1]) + 1))

    def headers(self):
        """Every block header, page by page (hpages)."""
        def make():
            out = []
            lay = Layout("struct cblock")
            hp = var_u32("hpages", "fs/cache.c")
            hdr = Layout("struct hpage")
            while hp:
                h = hdr.read(hp)
                base = hp + hdr.offset("b")
                out.extend(lay.read_array(base, h.n))
                hp = h.next
            return out
        return self._once("headers", make)


def _oldest(frames, age):
    best, best_age = -1, 0
    for f in frames:
        a = age(f)
        if best < 0 or a > best_age:
            best, best_age = f, a
    return best
