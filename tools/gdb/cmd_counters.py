"""counters [PREFIX]: every kernel counter, as vmstat prints it, read from memory.

The registry (kernel/stats.c) holds for each counter either the address of a variable, read
here as it is, or a function that computes it. A stopped kernel cannot safely be made to call
one (it may take a lock the interrupted code holds), so each such function is repeated below
by its name and file; a function missing here prints '?' with its name, and the test that
compares this command with the kernel's own stat_format at the same instant fails until it is
added (tests/qemu/test_gdb.py).
"""
import gdb

import kconst as K
from kmem import Layout, cstring, describe_address, u32, value, var_u32
from kstate import State


def _pool(name):
    return lambda st: st.pool_counts()[name]


def _scheduled(st):
    """fs/flushd.c cache_scheduled(): blocks of files on the write-back queue, and blocks under I/O."""
    n = sum(cf.nsched for cf in st.cfiles() if cf.used)
    return n + sum(1 for b in st.headers() if st.block_busy(b))


def _learned_bias(st):
    """kernel/mem/negotiate_rule.c neg_learned_bias() on kernel/mem/refault.c's learned: the bias set
    by the last evidence, halved for every whole quiet period since."""
    l = value("learned", "kernel/mem/refault.c")
    bias, when = int(l["bias_ms"]), int(l["evidence_ms"])
    if bias == 0:
        return 0
    halvings = ((st.now - when) & 0xFFFFFFFF) // (2 * bias + K.NEG_GRACE_MS)
    return 0 if halvings >= 32 else bias >> halvings


def _oldest_ms(st):
    v = st.next_victim()
    return 0 if v < 0 else (st.now - st.frames[v].lastref) & 0xFFFFFFFF


def _in_use(var, file, member, field):
    """How many entries of the array var.member (a static table) have field non-zero."""
    arr = value(var, file)[member]
    n = arr.type.range()[1] + 1
    return sum(1 for e in Layout(arr.type.target()).read_array(int(arr.address), n) if getattr(e, field))


def _dirty_bound(background):
    """fs/dirtybound.c upper_blocks() and background_blocks(): the bounds on dirty blocks."""
    def get(st):
        ratio = var_u32("dirty_ratio", "fs/dirtybound.c")
        bg = var_u32("background_ratio", "fs/dirtybound.c")
        pools = st.pool_counts()
        shared = pools["cache"] + pools["vm"] + pools["free"]
        if not background:
            return max(shared * ratio // 100, K.MIN_LIMIT) if ratio else 0
        r = ratio // 2 if ratio and bg >= ratio else bg
        return max(shared * r // 100, K.SLACK) if r else 0
    return get


# (file, function) -> how to compute it from a State
COMPUTED = {
    ("kernel/mem/coremap.c", "frames_total"): lambda st: sum(st.pool_counts()[p] for p in ("free", "kernel", "cache", "vm")),
    ("kernel/mem/coremap.c", "frames_free"): _pool("free"),
    ("kernel/mem/coremap.c", "frames_kernel"): _pool("kernel"),
    ("kernel/mem/coremap.c", "frames_cache"): _pool("cache"),
    ("kernel/mem/coremap.c", "frames_vm"): _pool("vm"),
    ("vm/vm.c", "frames_vm"): _pool("vm"),
    ("vm/oldest.c", "vm_oldest_ms"): _oldest_ms,
    ("kernel/mem/refault.c", "bias_ms"): _learned_bias,
    ("fs/cache.c", "min_held_kb"): lambda st: var_u32("st_min_held", "fs/cache.c") * (K.FS_BSIZE // 1024),
    ("fs/cache.c", "max_held_kb"): lambda st: var_u32("st_max_held", "fs/cache.c") * (K.FS_BSIZE // 1024),
    ("fs/flushd.c", "cache_scheduled"): _scheduled,
    ("fs/dirtybound.c", "upper_blocks"): _dirty_bound(False),
    ("fs/dirtybound.c", "background_blocks"): _dirty_bound(True),
    ("fs/alloc.c", "shown_free_blocks"): lambda st: (
        int(value("fs_sb")["free_blocks"]) + var_u32("st_pending_blocks", "fs/alloc.c")),
    ("fs/alloc.c", "shown_free_descs"): lambda st: (
        int(value("fs_sb")["free_descs"]) + var_u32("st_pending_descs", "fs/alloc.c")),
    ("drivers/virtio_blk.c", "disk_inflight"): lambda st: var_u32("inflight", "drivers/virtio_blk.c"),
    ("drivers/virtio_blk.c", "busy_ms"): lambda st: (var_u32("st_busy_ms", "drivers/virtio_blk.c") + (
        (st.now - var_u32("busy_since", "drivers/virtio_blk.c")) & 0xFFFFFFFF
        if var_u32("inflight", "drivers/virtio_blk.c") else 0)) & 0xFFFFFFFF,
    ("kernel/mem/negotiate.c", "untraded_tsc_avg"): lambda st: (
        int(value("untraded_tsc", "kernel/mem/negotiate.c")) // var_u32("st_untraded", "kernel/mem/negotiate.c")
        if var_u32("st_untraded", "kernel/mem/negotiate.c") else 0),
    ("kernel/proc.c", "slots_used"): lambda st: len(st.procs),
    ("kernel/time.c", "uptime_ms"): lambda st: st.now,
    ("vm/segment.c", "seg_count_used"): lambda st: sum(1 for s in st.segments if s.used),
    ("fs/file.c", "files_open"): lambda st: _in_use("ftable", "fs/file.c", "file", "ref"),
    ("fs/inode.c", "inodes_used"): lambda st: _in_use("icache", "fs/inode.c", "inode", "ref"),
    ("vm/cowcor.c", "copies_saved"): lambda st: max(
        0, var_u32("st_cor_marked", "vm/cowcor.c") - var_u32("st_cowcor_copies", "vm/cowcor.c")),
}


def function_named(pc):
    """(file, name) of the function at pc. By the symbol table and the line table: at -O2 a
    function only ever called through a pointer may have no block of its own in the debug
    information."""
    name = describe_address(pc) or "0x%x" % pc
    sal = gdb.find_pc_line(pc)
    return (sal.symtab.filename if sal and sal.symtab else None), name


def read_counters(st=None):
    """[(name, value or None, how)] in the registry's order; how names the function for the
    computed ones."""
    st = st or State()
    table = value("stats", "kernel/stats.c")
    n = var_u32("nstats", "kernel/stats.c")
    lay = Layout(table.type.target())
    out = []
    for e in lay.read_array(int(table.address), n):
        name = cstring(e.name)
        if not e.get:
            out.append((name, u32(e.value), None))
            continue
        key = function_named(e.get)
        how = COMPUTED.get(key)
        out.append((name, how(st) if how else None, "%s (%s)" % (key[1], key[0])))
    return out


class Counters(gdb.Command):
    """counters [PREFIX]: the kernel's counters, as vmstat prints them, read from memory.

Each line is "name value", in the registry's order (kernel/stats.c); PREFIX keeps the
counters whose names start with it (counters neg. , counters fs.cache). Counters the kernel
computes with a function are computed here the same way; one this command does not know
prints "?" and the function's name."""

    def __init__(self):
        super().__init__("counters", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if len(args) > 1:
            raise gdb.GdbError("usage: counters [PREFIX]")
        prefix = args[0] if args else ""
        rows = [r for r in read_counters() if r[0].startswith(prefix)]
        if not rows:
            raise gdb.GdbError("counters: none starts with %r" % prefix)
        out = []
        for name, v, how in rows:
            out.append("%s %s" % (name, v if v is not None else "?  (computed by %s: not known to counters)" % how))
        gdb.write("\n".join(out) + "\n")


Counters()
