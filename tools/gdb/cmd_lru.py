"""lru [N]: the file cache's lists (fs/cache.c): the LRU list oldest first, the free list, the
dirty files and their dirty blocks."""
import gdb

import kconst as K
from fsnames import Names
from kmem import parse_int, table, var_u32
from kstate import State


def ranges(nums):
    """'0-3 7 9-10' for [0, 1, 2, 3, 7, 9, 10]."""
    out, start, prev = [], None, None
    for n in nums:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = prev = n
    if start is not None:
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return " ".join(out)


def dirty_files(st):
    """[(cfile, [blocks on its dirty list, in order])] of files with dirty blocks."""
    out = []
    for cf in st.cfiles():
        if not cf.used or not cf.ndirty:
            continue
        blocks, b = [], cf.dhead
        while b and len(blocks) <= cf.ndirty:
            blk = st.cblock(b)
            blocks.append(blk)
            b = blk.dnext
        out.append((cf, blocks))
    return out


class Lru(gdb.Command):
    """lru [N]: the file cache's LRU list, oldest first (the next to be recycled on top).

N rows (20; 0 for all). Columns: POS (0 is the oldest), FILE (a path when its directory is in
the cache, else its descriptor number; dev for blocks named by disk address, with what they
are), BLOCK, AGE (seconds since last use), DIRTY, SCHED (scheduled for write-back), HELD (its
reference count) and BUSY (under disk I/O). Then the list's length against fs.cache.blocks
(the free list's blocks, with a frame and no identity, make up the difference), the headers
waiting for a frame, the cache's size settings, and each file with dirty blocks: its dirty
blocks in the order they became dirty, how many are scheduled, and whether a cleaner has it."""

    def __init__(self):
        super().__init__("lru", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = [arg.strip()] if arg.strip() else []
        n = parse_int(args[0], "lru") if args else 20
        st = State()
        names = Names(st)
        lru = st.cache_list("lru")
        shown = lru if n <= 0 else lru[:n]
        rows = []
        for pos, b in enumerate(shown):
            file, block = names.block(b)
            rows.append([pos, file, block, "%.1f" % (((st.now - b.lastref) & 0xFFFFFFFF) / 1000.0),
                         "dirty" if b.flags & K.CB_DIRTY else "-",
                         "sched" if b.flags & K.CB_SCHED else "-", b.refcnt,
                         "busy" if st.block_busy(b) else "-"])
        gdb.write(table(["POS", "FILE", "BLOCK", "AGE", "DIRTY", "SCHED", "HELD", "BUSY"], rows,
                        right=["AGE", "BLOCK"]))
        if len(shown) < len(lru):
            gdb.write("... %d more (lru 0 shows them all)\n" % (len(lru) - len(shown)))
        free = st.cache_list("freelist")
        spare = st.cache_list("spare")
        held = var_u32("nframes_held", "fs/cache.c")
        s = st.cache_settings()
        gdb.write("lru: %d blocks, free list: %d, fs.cache.blocks %d (%s)\n"
                  % (len(lru), len(free), held,
                     "= lru + free" if len(lru) + len(free) == held else
                     "%+d against lru + free: blocks between lists" % (held - len(lru) - len(free))))
        gdb.write("spare headers (no frame): %d; fs.cache_min_kb %d, max_kb %d, fixed_kb %d\n"
                  % (len(spare), s["min_kb"], s["max_kb"], s["fixed_kb"]))
        files = dirty_files(st)
        if not files:
            gdb.write("dirty files: none\n")
            return
        rows = []
        for cf, blocks in files:
            name = names.file(cf.fileid) if cf.fileid != K.CACHE_DEV else "dev"
            state = "cleaning" if cf.cleaning else "queued" if cf.queued else "-"
            rows.append([name, cf.ndirty, cf.nsched, state,
                         ranges(sorted(b.blockno for b in blocks)) if cf.fileid != K.CACHE_DEV
                         else " ".join(str(b.blockno) for b in sorted(blocks, key=lambda b: b.blockno))])
        gdb.write("dirty files:\n")
        gdb.write(table(["FILE", "DIRTY", "SCHED", "CLEANER", "BLOCKS"], rows))


Lru()
