"""usym [PROGRAM]: a user program's symbols, to follow a system call back into user code."""
import os

import gdb

import kconst as K
from kmem import Layout, function_at, read
from kstate import State

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loaded = None          # the user program whose symbols are loaded now


def program_path(name):
    if os.sep in name:
        return os.path.abspath(name)
    return os.path.join(ROOT, "build", "user", "bin", name)


def user_chain(tf, limit=16):
    """[pc] of the user code the process was running when it entered the kernel: the eip in its
    trap frame, then the return addresses up its frame-pointer chain (user programs keep frame
    pointers too), read from its memory, which is the current page directory's."""
    out = [tf.eip]
    ebp = tf.ebp
    for _ in range(limit):
        if not ebp or ebp >= K.KERNBASE or ebp % 4:
            break
        try:
            frame = read(ebp, 8)
        except gdb.GdbError:
            break               # a page not present (paged out): the chain ends here
        nxt, ret = int.from_bytes(frame[:4], "little"), int.from_bytes(frame[4:], "little")
        if not ret or ret >= K.KERNBASE:
            break
        out.append(ret)
        if nxt <= ebp:
            break
        ebp = nxt
    return out


def inlined_into(pc):
    """The functions the code at pc was inlined into, innermost first (gdb's blocks)."""
    try:
        b = gdb.block_for_pc(pc)
    except RuntimeError:
        return []
    names = []
    while b is not None and b.function is None:
        b = b.superblock
    b = b.superblock if b is not None else None
    while b is not None:
        if b.function is not None:
            names.append(b.function.name)
        b = b.superblock
    return names


class Usym(gdb.Command):
    """usym [PROGRAM]: load a user program's symbols at its addresses, to step from a system call
back into user code.

PROGRAM is a name in build/user/bin (or a path); without it, the program of the process running
when the machine stopped. The symbols of the program loaded before are dropped first (every
program sits at the same addresses). When that process entered the kernel from user mode (a
system call, a fault), it shows where: the user eip in its trap frame and its user call chain,
with functions and lines, and the breakpoint that stops when it is back there:
    tbreak *EIP if 'kernel/proc.c'::current->pid == PID
(code is shared by every process running the program, hence the condition; usym also sets
$ueip and $upid to those two), then continue; bt, next, step and finish then work in the user
program."""

    def __init__(self):
        super().__init__("usym", gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        global _loaded
        args = gdb.string_to_argv(arg)
        if len(args) > 1:
            raise gdb.GdbError("usage: usym [PROGRAM]")
        st = State()
        cur = st.current()
        if args:
            name = args[0]
        elif cur is None or cur.kthread or not cur.as_:
            raise gdb.GdbError("usym: no user process was running (%s): name the program" %
                               ("a kernel thread, %s" % cur.name if cur else "the CPU was idle"))
        else:
            name = cur.name
        path = program_path(name)
        if not os.path.exists(path):
            raise gdb.GdbError("usym: %s does not exist (make programs builds build/user/bin)" % path)
        if _loaded:
            gdb.execute("remove-symbol-file %s" % _loaded, to_string=True)
            _loaded = None
        gdb.execute("add-symbol-file %s" % path, to_string=True)
        _loaded = path
        gdb.write("usym: symbols of %s loaded\n" % os.path.relpath(path))
        if cur is None or cur.kthread or not cur.tf:
            return
        tf = Layout("struct trapframe").read(cur.tf)
        if tf.cs & 3 != 3:
            return
        if os.path.basename(path) != cur.name:
            gdb.write("(pid %d runs %s, not %s: its user code is not described by these symbols)\n"
                      % (cur.pid, cur.name, os.path.basename(path)))
            return
        chain = user_chain(tf)
        gdb.write("pid %d (%s) entered the kernel (trap %d%s) from user code:\n"
                  % (cur.pid, cur.name, tf.trapno, ", a system call" if tf.trapno == 0x80 else ""))
        for i, pc in enumerate(chain):
            at = pc - (1 if i else 0)          # a return address: the call before it
            inl = inlined_into(at)
            gdb.write("  %s0x%08x %s%s\n" % ("" if i == 0 else "called from ", pc, function_at(at),
                                             " inlined in " + " < ".join(inl) if inl else ""))
        gdb.set_convenience_variable("ueip", tf.eip)
        gdb.set_convenience_variable("upid", cur.pid)
        gdb.write("back in user code: tbreak *0x%x if 'kernel/proc.c'::current->pid == %d, then continue\n"
                  "(or: tbreak *$ueip if 'kernel/proc.c'::current->pid == $upid)\n" % (tf.eip, cur.pid))


Usym()
