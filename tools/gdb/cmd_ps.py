"""ps: the process table (kernel/proc.c), with each process's segments and what it waits for."""
import gdb

from kmem import Layout, cstring, describe_address, enum_values, function_at, table
from kstate import State

STATE_NAMES = {"EMBRYO": "embryo", "SLEEPING": "sleep", "RUNNABLE": "runnable", "RUNNING": "running",
               "ZOMBIE": "zombie"}


def waits_for(st, p):
    """What a sleeping process sleeps on, in words, as the ^P dump says it (kernel/dump.c)."""
    chan = p.chan
    if not chan:
        return ""
    if p.waitlock and p.waitlock == chan:
        lk = Layout("struct sleeplock").read(chan)
        return "sleep lock %s held by pid %d" % (cstring(lk.name), lk.pid)
    frame_size = Layout("struct frame").size
    if st.coremap_addr <= chan < st.coremap_addr + st.nframes * frame_size:
        i = (chan - st.coremap_addr) // frame_size
        return "frame %d (%s, busy)" % (i, st.pool_name.get(st.frames[i].pool, "?"))
    for q in st.procs:
        if q._addr == chan:
            return "a child's exit"
    return describe_address(chan) or "0x%x" % chan


def rows(st):
    """One row per process, the columns of the guest's ps first (PID .. NAME)."""
    states = {v: STATE_NAMES.get(k, k.lower()) for k, v in enum_values("enum procstate").items()}
    cur = st.current()
    out = []
    for p in st.procs:
        size = 0
        segs = st.proc_segments(p)
        for _, k in segs:
            if k is not None:
                size += st.segments[k].resident * 4096
        wait = waits_for(st, p) if states.get(p.state) == "sleep" else ""
        if wait and p.wpc:
            wait += " in " + function_at(p.wpc).split(" (")[0]
        out.append([p.pid, p.ppid, p.pgid, states.get(p.state, "?"), size, p.pageins, p.pageouts,
                    p.name + ("*" if cur is p else ""),
                    " ".join("%s=%d" % (t, k) for t, k in segs) or ("kthread" if p.kthread else "-"),
                    wait])
    return out


class Ps(gdb.Command):
    """ps: every process: the columns of the guest's ps, then its segments and its wait.

PID PPID PGID STATE SIZE PAGEIN PAGEOUT NAME as the ps program prints them (SYS_ps); a * after
the name marks the process running when the machine stopped. SEGS gives the segtab index of
its code, heap and stack segments (seg K and pt PID show them); WAITS what a sleeping process
sleeps on (a sleep lock and its holder, a busy frame, a child's exit, or a kernel variable)
and the function that called sleep()."""

    def __init__(self):
        super().__init__("ps", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("usage: ps (no arguments)")
        st = State()
        gdb.write(table(["PID", "PPID", "PGID", "STATE", "SIZE", "PAGEIN", "PAGEOUT", "NAME", "SEGS", "WAITS"],
                        rows(st)))


Ps()
