"""Convenience functions for gdb expressions, so that a breakpoint's commands can name what
the kernel is about to work on without reading tables by eye:

  $seg_pid(SEG)          the pid of the process whose heap or stack segment SEG is (-1: none)
  $cor_slave(SEG, VA)    the segment cow_fault will give master SEG's page at VA to: the first
                         on SEG's ring, from cow_next on, whose entry at VA is copy-on-reference
                         naming SEG (find_slave in vm/cowcor.c); -1 when none is
"""
import gdb

from kstate import State
from ptdecode import Entry


class SegPid(gdb.Function):
    """$seg_pid(SEG): the pid of the process owning segment SEG, or -1."""

    def __init__(self):
        super().__init__("seg_pid")

    def invoke(self, seg):
        st = State()
        who = st.seg_owner(int(seg)) if 0 <= int(seg) < len(st.segments) else None
        return who[0] if who else -1


class CorSlave(gdb.Function):
    """$cor_slave(SEG, VA): the slave that gets master SEG's page at VA on a COW fault, or -1."""

    def __init__(self):
        super().__init__("cor_slave")

    def invoke(self, seg, va):
        st = State()
        m, va = int(seg), int(va) & ~0xFFF
        if not 0 <= m < len(st.segments):
            return -1
        u = st.seg_index(st.segments[m].cow_next)
        seen = 0
        while u is not None and u != m and seen < len(st.segments):
            e = st.pte(u, va)
            if e is not None and Entry(e).state == "cor" and Entry(e).master == m:
                return u
            u = st.seg_index(st.segments[u].cow_next)
            seen += 1
        return -1


SegPid()
CorSlave()
