"""Crash states from a recorded write log (tools/crash/nbdlog.py), as dm-log-writes and CrashMonkey
build them.

A disk with a volatile write cache, at a power cut, keeps every write that came before the
last completed flush; of the writes after it, any subset may have reached the medium, in any
order (for two writes to one block, whichever landed last wins). Each 4 KB block of a write
is its own unit here: the disk may keep some blocks of a multi-block request and not others
(QEMU merges neighbouring guest requests). A tear inside one 4 KB block is not modelled.

The states of one recording, in a fixed order (so that index N means the same state on every
run with the same seed):
  - flush m, for every m = 0 .. F: every write before the m-th flush (m = 0: the disk as it
    was); a power cut right after that flush, losing everything in flight;
  - per epoch (the writes between flush m and flush m+1, or after the last flush: the tail
    in flight at the kill), up to `per_epoch` random states: an in-order prefix (a disk that
    does not reorder), or a random subset of a random prefix applied in a random order;
  - "end": everything QEMU wrote before it was killed;
  - with targeted_from=S, then, per epoch from S on with two or more blocks in flight, the
    states that tear exactly what a flush orders: for each block, the whole epoch but that
    block ("drop", in issue order). A missing or early flush, or a write issued
    before what it depends on is durable, puts a block and the block it depends on into one
    epoch; dropping the one depended on while the rest lands is what such a bug lets through,
    and random subsets find it only by chance;
  - and per request of N >= 2 blocks in such an epoch, the request torn while the rest of the
    epoch lands: "torn", the request cut after each of its blocks k = 0 .. N-2 (a disk writes
    a request front to back; k = 0 loses it whole, unless it is all the epoch: that is the
    flush state), and, for N <= TORN_ALL, "torn-subset", every other set of its blocks that
    may land (the sets that lack one block alone are drop states already). A request of N
    blocks is N writes that land or not independently: the kernel sends one block per request
    today, but QEMU merges neighbouring ones into one NBD write, and a clustered write path
    will send several itself. Beyond TORN_ALL blocks the 2^N sets are too many; its prefixes
    and single holes are the tears a disk makes.
Random choices come from random.Random(seed), so a state is reproducible from (recording,
seed, index).

A real disk is not zeros where nothing was written: its free blocks hold whatever was there
before. A fresh image would hide every bug that lets a pointer reach the disk before the block
it names (the file would read zeros, which a crash may show). So in every state, each data
block the recording writes at some time, free in the initial image and not yet written in this
state, holds stale bytes that name no file ("stale block N"): a file that shows them was given
a block its data never reached.
"""
import itertools, os, random

from nbdlog import read_log

BSIZE = 4096
TORN_ALL = 4        # requests of up to this many blocks are torn every possible way


class Recording:
    def __init__(self, logpath, initial):
        self.initial = initial
        self.size = os.path.getsize(initial)
        self.blocks = []        # (block number, 4 KB of data, log record index, host time)
        self.flush_pieces = []  # per flush: blocks written before it
        self.flush_recs = []    # per flush: write records before it
        self.flush_times = []
        self.requests = []      # per write record: (index of its first block, its blocks)
        nrec = 0
        for kind, off, data, t in read_log(logpath):
            if kind == "F":
                self.flush_pieces.append(len(self.blocks))
                self.flush_recs.append(nrec)
                self.flush_times.append(t)
                continue
            self.requests.append((len(self.blocks), len(data) // BSIZE))
            for k in range(0, len(data), BSIZE):
                chunk = data[k:k + BSIZE]
                if (off + k) % BSIZE or len(chunk) != BSIZE:
                    raise ValueError("write at %d is not in whole 4 KB blocks" % (off + k))
                self.blocks.append(((off + k) // BSIZE, chunk, nrec, t))
            nrec += 1
        self.nrecs = nrec
        self._base_m, self._base = 0, {}

    def epoch(self, m):
        """The blocks written after flush m (m = 0: from the start) and before flush m+1."""
        lo = self.flush_pieces[m - 1] if m else 0
        hi = self.flush_pieces[m] if m < len(self.flush_pieces) else len(self.blocks)
        return lo, hi

    def states(self, seed, per_epoch, targeted_from=None, torn=True):
        """[(kind, m, [block indices in the order they land])]; torn=False leaves the torn
        requests out of the targeted states (the drop states stay); torn="edges" keeps, of each
        request's tears, the two at its ends only (lost whole, and all but its last block)."""
        rng = random.Random(seed)
        out = []
        F = len(self.flush_pieces)
        for m in range(targeted_from or 0, F + 1):     # a targeted run's setup is not worth cutting
            out.append(("flush", m, []))
        for m in range(F + 1):
            lo, hi = self.epoch(m)
            n = hi - lo
            if n == 0:
                continue
            seen = set()
            for _ in range(per_epoch):
                c = rng.randint(1, n)
                if rng.random() < 0.3:
                    order, kind = list(range(lo, lo + c)), "prefix"
                else:
                    order = [i for i in range(lo, lo + c - 1) if rng.random() < 0.5] + [lo + c - 1]
                    rng.shuffle(order)
                    kind = "subset"
                key = tuple(order)
                if key in seen or (kind == "prefix" and c == n and m < F):
                    continue        # the same as another state (a full epoch is flush m+1)
                seen.add(key)
                out.append((kind if m < F else "tail-" + kind, m, order))
        out.append(("end", F, list(range(*self.epoch(F)))))
        if targeted_from is not None:
            out += self.targeted(targeted_from, torn)
        return out

    def targeted(self, start, torn=True):
        out = []
        for m in range(start, len(self.flush_pieces) + 1):
            lo, hi = self.epoch(m)
            if hi - lo < 2:
                continue
            for i in range(lo, hi):
                out.append(("drop", m, [j for j in range(lo, hi) if j != i]))
            for first, n in self.requests if torn else []:
                if lo <= first < hi and n >= 2:
                    forms = torn_forms(n)
                    if torn == "edges":
                        forms = [f for f in forms if f[0] == "torn" and len(f[1]) in (0, n - 2)]
                    for kind, landed in forms:
                        gone = set(range(first, first + n)) - {first + k for k in landed}
                        order = [j for j in range(lo, hi) if j not in gone]
                        if order:       # else the request was the epoch: the flush state
                            out.append((kind, m, order))
        return out

    def base(self, m):
        """{block: data} of every write before flush m (the last write of a block wins)."""
        if m < self._base_m:
            self._base_m, self._base = 0, {}
        hi = self.flush_pieces[m - 1] if m else 0
        lo = self.flush_pieces[self._base_m - 1] if self._base_m else 0
        for i in range(lo, hi):
            self._base[self.blocks[i][0]] = self.blocks[i][1]
        self._base_m = m
        return self._base

    def where(self, m, order):
        """(records on the disk up to: P, lower bound of the cut's host time) for a state: the
        cut came after every write it holds and after flush m."""
        P = self.flush_recs[m - 1] if m else 0
        t = self.flush_times[m - 1] if m else 0.0
        for i in order:
            P = max(P, self.blocks[i][2] + 1)
            t = max(t, self.blocks[i][3])
        return P, t

    def stale_blocks(self, initial_blocks, data_start):
        """The data blocks this recording writes that were zero (free) in the initial image."""
        return sorted({b for b, _, _, _ in self.blocks if b >= data_start and b not in initial_blocks})

    def image_blocks(self, m, order, floor):
        """{block: data} of state (m, order)'s image, every other block zeros: floor (floor()),
        then the writes before flush m, then order."""
        want = dict(floor)
        want.update(self.base(m))
        for i in order:
            want[self.blocks[i][0]] = self.blocks[i][1]
        return want

    @staticmethod
    def floor(initial_blocks, stale=()):
        """What every state's image holds where it keeps no write: the initial disk's blocks,
        and stale bytes in the blocks `stale` (stale_blocks)."""
        floor = {b: stale_data(b) for b in stale}
        floor.update(initial_blocks)
        return floor

    def write_image(self, path, m, order, initial_blocks, stale=()):
        """Writes the state's image whole (image_blocks)."""
        blocks = self.image_blocks(m, order, self.floor(initial_blocks, stale))
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.ftruncate(fd, self.size)
            for b, data in blocks.items():
                os.pwrite(fd, data, b * BSIZE)
        finally:
            os.close(fd)


class StateImage:
    """One file that holds state after state of a recording, for a checker that checks many.

    A state's image is the initial disk, stale bytes in the blocks the recording will write, and
    the writes the state keeps: for the Ace run about 26 MB, and writing it whole for each state
    cost more than repairing and checking it. Neighbouring states differ in a few blocks, so
    the file is rewritten from one state to the next only where the two differ and where the
    last state's repair wrote. The repair names every block it writes in a file (KFS_WRITTEN,
    tests/host/kfs/hostio.c), given here by repaired(); until it is, the file is not trusted
    and the next write() makes it whole (a repair that failed, or QEMU's, says nothing)."""

    def __init__(self, rec, path, initial_blocks, stale=()):
        self.rec, self.path = rec, path
        self.floor = rec.floor(initial_blocks, stale)    # computed once: the Ace run's is ~26 MB
        self.held = {}          # {block: data} the file holds, the rest zeros
        self.changed = None     # blocks changed since held was written; None: unknown

    def write(self, m, order):
        """Makes the file state (m, order)'s image; returns the blocks written."""
        want = self.rec.image_blocks(m, order, self.floor)
        zero = bytes(BSIZE)
        whole = self.changed is None
        if whole:
            todo = sorted(want)
        else:
            todo = {b for b, d in want.items() if self.held.get(b) != d}
            todo = sorted(todo | {b for b in self.held if b not in want} | self.changed)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if whole else 0), 0o644)
        try:
            if whole:
                os.ftruncate(fd, self.rec.size)
            for b in todo:
                os.pwrite(fd, want.get(b, zero), b * BSIZE)
        finally:
            os.close(fd)
        self.held, self.changed = want, None    # unknown again until repaired() says
        return todo

    def repaired(self, blocks):
        """The repair of the state just written wrote these blocks, and no others."""
        self.changed = set(blocks)


def written_blocks(path):
    """The blocks named in a KFS_WRITTEN file ("offset bytes" a line); a missing file names none."""
    out = set()
    try:
        lines = open(path).read().split("\n")
    except FileNotFoundError:
        return out
    for line in lines:
        if line:
            off, n = map(int, line.split())
            out.update(range(off // BSIZE, (off + max(n, 1) - 1) // BSIZE + 1))
    return out


def stale_data(b):
    """What a free block held before: bytes that name no file, and its own number."""
    line = b"stale block %08d\n" % b
    return (line * (BSIZE // len(line) + 1))[:BSIZE]


def torn_forms(n):
    """[(kind, blocks of the request that land, as offsets in it)] of a request of n >= 2
    blocks torn, less the forms that lack one block alone (the drop states)."""
    out = [("torn", tuple(range(k))) for k in range(n - 1)]
    if n <= TORN_ALL:
        for size in range(1, n - 1):
            out += [("torn-subset", c) for c in itertools.combinations(range(n), size)
                    if c != tuple(range(size))]
    return out


def nonzero_blocks(path):
    """{block: data} of the blocks of an image that are not all zero."""
    out = {}
    zero = bytes(BSIZE)
    with open(path, "rb") as f:
        b = 0
        while True:
            data = f.read(BSIZE)
            if not data:
                break
            if data != zero:
                out[b] = data
            b += 1
    return out
