"""What a page-table entry of a user segment says (vm/vm.h, the comment at its top).

  present                 frame, and the hardware's W U A D bits; COW on a master's page
  0                       never touched, or dropped clean: zero fill, or the executable again
  PTE_ONDISK              on the segment's backing file, at block seg_block(s, va)
  frame | PTE_INTRANS     its frame is busy under I/O (paged in or out)
  master << 12 | PTE_COR  copy-on-reference: segment `master` holds the page COW
PTE_COW rides along in the on-disk and in-transit states too.
"""
import kconst as K


class Entry:
    """A decoded entry: state (present, none, ondisk, intransit, cor), frame, master, bits."""
    def __init__(self, e):
        self.raw = e
        self.frame = self.master = None
        self.cow = bool(e & K.PTE_COW)
        self.bits = []
        if e & K.PTE_P:
            self.state = "present"
            self.frame = e >> K.PGSHIFT
            for bit, name in ((K.PTE_W, "W"), (K.PTE_U, "U"), (K.PTE_A, "A"), (K.PTE_D, "D")):
                if e & bit:
                    self.bits.append(name)
        elif e & K.PTE_INTRANS:
            self.state = "intransit"
            self.frame = e >> K.PGSHIFT
        elif e & K.PTE_COR:
            self.state = "cor"
            self.master = e >> K.PGSHIFT
        elif e & K.PTE_ONDISK:
            self.state = "ondisk"
        else:
            self.state = "none"
        if self.cow:
            self.bits.append("COW")


def entries(st, k, lo=None, hi=None):
    """[(va, Entry)] of segment k's non-zero entries in [lo, hi) (default: its pages)."""
    s = st.segments[k]
    lo = s.start if lo is None else lo
    hi = s.end if hi is None else hi
    out = []
    va = lo & ~0xFFF
    while va < hi:
        pt = st.pt_page(k, (va - s.lo) // K.PTSPAN) if s.pts else None
        span_end = min(hi, s.lo + ((va - s.lo) // K.PTSPAN + 1) * K.PTSPAN)
        if pt is None:
            va = span_end
            continue
        while va < span_end:
            e = pt[(va >> K.PGSHIFT) & 0x3FF]
            if e:
                out.append((va, Entry(e)))
            va += K.PGSIZE
    return out
