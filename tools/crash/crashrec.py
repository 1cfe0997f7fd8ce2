#!/usr/bin/env python3
"""Records a workload on a disk that logs every write and flush (tools/crash/nbdlog.py), for the
crash-state checker (tools/crash/crashcheck.py).

The host drives the guest's shell one command at a time: it sends a command line ending in
`echo A''CK n` (the quotes keep the console's echo of the typed line from matching), and the
next one only once it has read "ACK n". For each step the manifest keeps the NBD log's
position (writes, flushes, host time) when it was sent and when its acknowledgement was read.
That is what makes the checks sound:
  - a step's effects on the disk all come after its "sent" position (it had not started);
  - when "ACK n" (or renamer's "renamed N") is read, any fsync or sync it waited for has
    completed, and its flush is among the first ack.flushes flushes of the log.
QEMU is killed (SIGKILL: nothing synced, nothing flushed) at the end of the workload, or at a
seeded random moment after a chosen number of acknowledgements.

Workloads (deterministic from the seed; file contents name their file, so the checker can
tell whose data a block holds):
  mix      the issue's mix, per round R: `mkdata -s /d/aR SIZE SEED` (acknowledged), an
           unsynced `mkdata /d/uR 40000 SEED`, `fsstress /s/rR 3 SEED`, `rm` of the previous
           round's unsynced file, `sync` every 7th round, `mv` of an acknowledged file to /m
           every 5th round;
  rename   `renamer /r/t ROUNDS BYTES` (safe replacement by rename, "renamed N" after each;
           BYTES differs per step, so each version names its step), unsynced files and rm
           between them, `mv` of acknowledged files back and forth;
  ace      Ace-style (CrashMonkey): sequences of one to three operations from create,
           create+fsync, create of a file with an indirect block, unlink, rename within and
           across directories, mkdir, overwrite, append, truncate, rmdir, fsync of a file and
           of a directory, a directory's second block and sync, over each sequence's own
           directories, including delete-then-create (ace_sequences); ROUNDS 1-4 picks
           the set: 1 is crashtest --quick's, 2-4 the full run's;
  daemon   unsynced creates, removes and renames with no write-back delay, each round ended by
           two whole scans of the write-back daemon (daemon_steps), which must leave them on
           stable storage as a sync would.

    crashrec.py --workload mix --rounds 20 --seed 1 --out build/crash/mix1
writes OUT/initial.img (the disk before), OUT/disk.log, OUT/manifest.json, OUT/console.txt.
"""
import argparse, json, os, random, re, select, signal, subprocess, sys, time, zlib
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbdlog import LogServer
# The one launcher of QEMU (tools/runqemu.py), as the tests and the benchmarks boot through.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import runqemu  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
FS_DIRENTS_PER_BLOCK = 128      # fs/layout.h: 4096-byte blocks of 32-byte entries


def file_seed(name, runseed):
    """The mkdata seed of a file: from its base name, so a moved file keeps its identity."""
    return (zlib.crc32(("%s/%d" % (name, runseed)).encode()) & 0x7FFFFFFF) | 1


def mix_steps(rounds, seed):
    rng = random.Random(seed)
    steps = [dict(kind="mkdir", cmd="mkdir /d /s /m", paths=["/d", "/s", "/m"]),
             dict(kind="sync", cmd="sync")]
    acked = []
    for r in range(rounds):
        a, u = "a%d" % r, "u%d" % r
        size = rng.randint(1, 60000)
        steps.append(dict(kind="mkdata", path="/d/" + a, size=size, seed=file_seed(a, seed), fsync=True))
        acked.append("/d/" + a)
        steps.append(dict(kind="mkdata", path="/d/" + u, size=40000, seed=file_seed(u, seed), fsync=False))
        steps.append(dict(kind="fsstress", path="/s/r%d" % r, n=3, seed=r + 1))
        if r > 0:
            steps.append(dict(kind="rm", path="/d/u%d" % (r - 1)))
        if r % 7 == 6:
            steps.append(dict(kind="sync"))
        if rng.random() < 0.4:
            steps.append(dict(kind="sleep", secs=rng.randint(1, 3)))   # let write-back run
        if r % 5 == 4 and len(acked) > 2:
            src = acked.pop(rng.randrange(len(acked) - 1))
            steps.append(dict(kind="mv", src=src, dst="/m/" + src.rsplit("/", 1)[1]))
    return steps


def rename_steps(rounds, seed):
    rng = random.Random(seed)
    steps = [dict(kind="mkdir", paths=["/r", "/q"]), dict(kind="sync")]
    moved = []
    for r in range(rounds):
        steps.append(dict(kind="renamer", path="/r/t", rounds=rng.randint(3, 8), bytes=4000 + 997 * r))
        u = "u%d" % r
        steps.append(dict(kind="mkdata", path="/q/" + u, size=rng.randint(1000, 30000),
                          seed=file_seed(u, seed), fsync=False))
        if r > 0:
            steps.append(dict(kind="rm", path="/q/u%d" % (r - 1)))
        a = "a%d" % r
        steps.append(dict(kind="mkdata", path="/r/" + a, size=rng.randint(1, 20000),
                          seed=file_seed(a, seed), fsync=True))
        moved.append("/r/" + a)
        if rng.random() < 0.3:
            steps.append(dict(kind="sleep", secs=rng.randint(1, 3)))
        if r % 2 == 1:
            src = moved.pop(0)
            dst = ("/q/" if src.startswith("/r/") else "/r/") + src.rsplit("/", 1)[1]
            steps.append(dict(kind="mv", src=src, dst=dst))
            moved.append(dst)
    return steps


# Ace's operations (CrashMonkey's workload generator, bounded and exhaustive), over workload
# n's directories W/A and W/B (W = /w/n) and its files W/A/fN and W/B/hN (50000 bytes each: ten
# direct blocks and an indirect one, fsync'ed and synced before any workload runs). k tells a
# sequence's operations apart, so every name stays unique in the recording (the checker knows
# a file by the name it was created with). mkdata -s is Ace's fsync: create, write, fsync, close.
# The kernel has no ftruncate: O_TRUNC (mkdata on an existing name) is its truncate, to 0 and
# then, for an overwrite, grown again; an append is the shell's >>; fsync of a directory is
# mkdata's fsync of its standard output opened read-only on the directory.
ACE_OPS = {
    "create":        lambda W, n, k: dict(kind="mkdata", path="%s/A/c%d_%d" % (W, n, k), size=6000, fsync=False),
    "create-fsync":  lambda W, n, k: dict(kind="mkdata", path="%s/A/s%d_%d" % (W, n, k), size=6000, fsync=True),
    "create-fsync-b": lambda W, n, k: dict(kind="mkdata", path="%s/B/t%d_%d" % (W, n, k), size=6000, fsync=True),
    "create-big":    lambda W, n, k: dict(kind="mkdata", path="%s/B/g%d_%d" % (W, n, k), size=50000, fsync=True),
    "create-big-u":  lambda W, n, k: dict(kind="mkdata", path="%s/B/b%d_%d" % (W, n, k), size=50000, fsync=False),
    "unlink":        lambda W, n, k: dict(kind="rm", path="%s/A/f%d" % (W, n)),
    "rename-within": lambda W, n, k: dict(kind="mv", src="%s/A/f%d" % (W, n), dst="%s/A/r%d" % (W, n)),
    "rename-across": lambda W, n, k: dict(kind="mv", src="%s/A/f%d" % (W, n), dst="%s/B/f%d" % (W, n)),
    "mkdir":         lambda W, n, k: dict(kind="mkdir", paths=["%s/D%d" % (W, k)]),
    "unlink-b":      lambda W, n, k: dict(kind="rm", path="%s/B/h%d" % (W, n)),
    # A file's size changed under its old blocks: shrunk to 20000 bytes and written again (its
    # indirect block and three data blocks freed), grown past its last block, cut to nothing.
    "overwrite":     lambda W, n, k: dict(kind="mkdata", path="%s/A/f%d" % (W, n), size=20000, fsync=False, salt=k),
    "overwrite-fsync": lambda W, n, k: dict(kind="mkdata", path="%s/A/f%d" % (W, n), size=20000, fsync=True, salt=k),
    "append":        lambda W, n, k: dict(kind="append", path="%s/A/f%d" % (W, n), size=12000, fsync=False, salt=k),
    "append-fsync":  lambda W, n, k: dict(kind="append", path="%s/B/h%d" % (W, n), size=12000, fsync=True, salt=k),
    # Past W/B/hN's blocks: W/A/fN's next blocks are the mkdata process's backing store (freed
    # when it ended), then hN's.
    "append-big":    lambda W, n, k: dict(kind="append", path="%s/A/f%d" % (W, n), size=120000, fsync=False, salt=k),
    "truncate":      lambda W, n, k: dict(kind="mkdata", path="%s/B/h%d" % (W, n), size=0, fsync=False, salt=k),
    "rmdir":         lambda W, n, k: dict(kind="rmdir", path="%s/E" % W),
    "fsync-dir":     lambda W, n, k: dict(kind="fsyncdir", path="%s/A" % W),
    # A directory of 128 entries (one block, filled by the setup) given one more: its second block.
    "grow-dir":      lambda W, n, k: dict(kind="mkdata", path="%s/G/x%d_%d" % (W, n, k), size=6000, fsync=False),
    "grow-dir-fsync": lambda W, n, k: dict(kind="mkdata", path="%s/G/y%d_%d" % (W, n, k), size=6000, fsync=True),
    "sync":          lambda W, n, k: dict(kind="sync"),
    # Not Ace's: a pass of the write-back daemon, which cuts the pending frees' generation
    # (fs/alloc.c) -- the kernel's own persistence event, which decides when freed descriptors
    # and blocks may be reused.
    "daemon":        lambda W, n, k: dict(kind="sleep", secs=2),
    # Not Ace's: a writer in the background (1 MB in W/B), so that the syncs after it run
    # while blocks are being dirtied and held; always in a run's last sequence (it outlives it).
    "writer-bg":     lambda W, n, k: dict(kind="mkdata", path="%s/B/z%d_%d" % (W, n, k), size=1 << 20, fsync=False, bg=True),
}
# Delete-then-create: a file freed, a daemon pass, then creates that may take its descriptor
# and blocks -- once the delete is durable, and not before. A descriptor reused by a file of
# the same directory is harmless (one block holds the old name and the new), so the creates
# are in the other directory: the old name stays on the disk until a sync, and a descriptor
# released early is then named twice at a power cut. Two deletes with a daemon pass between
# them merge into one waiting generation, and the first delete alone becomes durable. A sync
# writes a file's data and its indirect block between the same two flushes: the last
# sequence's new file takes the blocks of the file deleted before it, so an indirect block
# that lands before its data names the old file's bytes.
ACE_REUSE = [["unlink", "daemon", "create-fsync-b", "create-fsync-b", "create-fsync-b", "create-big"],
             ["unlink-b", "daemon", "create-fsync", "create-fsync", "create-fsync"],
             ["unlink", "daemon", "unlink-b", "daemon", "create-fsync", "create-fsync", "create-fsync"],
             ["unlink-b", "daemon", "create", "sync", "create-big"],
             ["unlink", "sync", "create-big-u", "sync"]]
# Sequences aimed at what the ones above cannot reach (docs/reliability.md, "Systematic
# workloads and torn epochs"):
#  - freed blocks handed out again to a file that grows: a file's next block is the one after
#    its last, and W/B/hN's blocks follow W/A/fN's (past the backing store of hN's mkdata),
#    so once hN's removal is durable (the sync) a big append to fN takes hN's old blocks;
#    an fsync of another file then writes every indirect block, fN's among them, while fN's
#    new data is still only in memory;
#  - a directory's change as the last before the daemon's cut: the rename dirties W/A's block
#    and the descriptor block first, so the unlink in W/B newly dirties only W/B's block; the
#    fsyncs in W/A write the rest, and the second create takes hN's descriptor if the
#    generation was let go before W/B's block is on the disk. (Its number is not the stamp
#    after all: rm's own start dirties /swap's block first, which only a sync or a scan
#    writes; docs/reliability.md says why an off-by-one there cannot show.)
#  - the background writer, and syncs while it runs;
#  - a file created and not synced, then one fsync'ed beside it: the fsync writes the
#    descriptor block both share, while the first file's data is only in memory (its new
#    blocks hold stale bytes on the disk: crashstates.stale_data).
ACE_AIMED = [["unlink-b", "sync", "append-big", "create-fsync"],
             ["rename-within", "unlink-b", "daemon", "create-fsync", "create-fsync"],
             ["create", "create-fsync"]]
# Whether a sync ends while the writer has blocks dirty is a race (the writer may wait for
# the sync's locks, or be done): three writers, each met by three syncs, a daemon pass apart.
ACE_LAST = [["writer-bg", "sync", "sync", "sync", "daemon"] * 2 + ["writer-bg", "sync", "sync", "sync"]]
# A directory's second block costs its sequence 126 files of setup: a few sequences, no more.
ACE_GROW = [["grow-dir", "sync"], ["grow-dir", "fsync-dir"], ["create-fsync", "grow-dir-fsync"],
            ["grow-dir", "create-fsync"]]
ACE_CONSUMES = ("unlink", "rename-within", "rename-across")     # W/A/fN is gone after them
ACE_NEEDS_F = ACE_CONSUMES + ("overwrite", "overwrite-fsync", "append", "append-big")
ACE_NEW = ("overwrite", "overwrite-fsync", "append", "append-fsync", "append-big", "truncate", "rmdir", "fsync-dir",
           "grow-dir", "grow-dir-fsync")
ACE_DELAYS = (30, 30, 1)    # fs.writeback_delay, fs.desc_delay, fs.scan_interval of the ace run
ACE_TRIPLES = {1: 4, 2: 0, 3: 0, 4: 60}     # three-operation sequences drawn, per run


def ace_fits(seq):
    """A sequence never uses W/A/fN after an operation took it away."""
    gone = False
    for o in seq:
        if gone and o in ACE_NEEDS_F:
            return False
        gone = gone or o in ACE_CONSUMES
    return True


def ace_sequences(length):
    """The Ace run's sequences, by run (crashtest's recordings):
      1 (crashtest --quick): every operation alone, the delete-then-create pairs, ACE_REUSE,
        ACE_AIMED, two of ACE_GROW and four three-operation sequences;
      2: every operation alone, ACE_REUSE, ACE_AIMED and every ordered pair of the first ten
        operations with and without a sync between (Ace's phases 1-3 at two operations);
      3: every ordered pair with one of the new operations (ACE_NEW: overwrite, append,
        truncate, rmdir, fsync of a directory) and ACE_GROW;
      4: 60 three-operation sequences drawn (seeded) from the operations (not a directory's
        second block) and sync.
    Each run ends with ACE_LAST. Sequences that use W/A/fN after it is gone are dropped (Ace's
    phase 4 would add a create; that is another sequence)."""
    ops = [o for o in ACE_OPS if o not in ("sync", "daemon", "writer-bg", "append-big")]   # the last: aimed only
    plain = [o for o in ops if not o.startswith("grow-dir")]
    old = [o for o in ops if o not in ACE_NEW]
    seqs = []
    if length in (1, 2):
        # The aimed ones first: no file freed before them takes the descriptor or the blocks
        # they free (a new descriptor is the first free one from its directory's block on).
        seqs += ACE_AIMED + [[o] for o in plain + ["sync"]] + ACE_REUSE
        for a in old:
            for mid in ([], ["sync"]):
                for b in old:
                    if length < 2 and not (a in ACE_CONSUMES and b.startswith("create")):
                        continue
                    if ace_fits([a] + mid + [b]):
                        seqs.append([a] + mid + [b])
    if length in (1, 3):
        seqs += ACE_GROW[:2] if length == 1 else ACE_GROW
    if length == 3:
        for a in plain:
            for b in plain:
                if (a in ACE_NEW or b in ACE_NEW) and ace_fits([a, b]):
                    seqs.append([a, b])
    rng = random.Random(3)      # the same draw every run: a state's index names one state
    triples = []
    while len(triples) < ACE_TRIPLES[length]:
        t = [rng.choice(plain + ["sync"]) for _ in range(3)]
        if ace_fits(t) and t not in triples + seqs and t.count("sync") < 2:
            triples.append(t)
    return seqs + triples + ACE_LAST


def ace_steps(length, seed):
    seqs = ace_sequences(length)
    dirs = ["/w"]
    for n, seq in enumerate(seqs):
        dirs += ["/w/%d" % n, "/w/%d/A" % n, "/w/%d/B" % n]
        if "rmdir" in seq:
            dirs.append("/w/%d/E" % n)
        if any(o.startswith("grow-dir") for o in seq):
            dirs.append("/w/%d/G" % n)
    steps = []
    for i in range(0, len(dirs), 30):       # a command line of at most 30 names
        steps.append(dict(kind="mkdir", paths=dirs[i:i + 30]))
    steps.append(dict(kind="sync"))         # fsync makes a file's name durable, not its parents'
    for n, seq in enumerate(seqs):
        steps.append(dict(kind="mkdata", path="/w/%d/A/f%d" % (n, n), size=50000, fsync=True))
        steps.append(dict(kind="mkdata", path="/w/%d/B/h%d" % (n, n), size=50000, fsync=True))
        if any(o.startswith("grow-dir") for o in seq):
            # 126 empty files and "." and "..": the directory's first block is full.
            names = ["/w/%d/G/e%d" % (n, i) for i in range(FS_DIRENTS_PER_BLOCK - 2)]
            for i in range(0, len(names), 40):
                steps.append(dict(kind="touch", paths=names[i:i + 40]))
    steps.append(dict(kind="sync"))
    for n, seq in enumerate(seqs):
        for k, op in enumerate(seq):
            s = ACE_OPS[op]("/w/%d" % n, n, k)
            if s["kind"] in ("mkdata", "append"):
                s["seed"] = file_seed("%s#%d" % (s["path"].rsplit("/", 1)[1], s.get("salt", 0)), seed)
            s["ace"] = "%d:%s" % (n, " ".join(seq))
            steps.append(s)
    for s in steps:
        if s["kind"] == "mkdata" and "seed" not in s:
            s["seed"] = file_seed(s["path"].rsplit("/", 1)[1], seed)
    return steps


def daemon_steps(rounds, seed):
    """The write-back daemon's own promise, with no delay (DAEMON_DELAYS): what was changed
    before a scan began is on stable storage when that scan ends, its metadata flushed too. A
    `settle` step waits for two whole scans (vmstat -w fs.cleaner.scans +2: the first may have
    begun before the step), and the checker holds it to what it holds a sync to."""
    rng = random.Random(seed)
    steps = [dict(kind="mkdir", paths=["/p", "/p/q"]), dict(kind="sync")]
    for r in range(rounds):
        a, b = "a%d" % r, "b%d" % r
        steps.append(dict(kind="mkdata", path="/p/" + a, size=rng.choice([20000, 60000]),
                          seed=file_seed(a, seed), fsync=False))
        steps.append(dict(kind="mkdata", path="/p/q/" + b, size=rng.randint(1, 9000),
                          seed=file_seed(b, seed), fsync=False))
        if r > 0:
            steps.append(dict(kind="rm", path="/p/a%d" % (r - 1)))
            steps.append(dict(kind="mv", src="/p/q/b%d" % (r - 1), dst="/p/b%d" % (r - 1)))
        steps.append(dict(kind="settle"))
    return steps


WORKLOADS = {"mix": mix_steps, "rename": rename_steps, "ace": ace_steps, "daemon": daemon_steps}
DAEMON_DELAYS = (0, 0, 2)   # every scan writes all that is dirty; 2 s for its writes to finish


def command(s):
    k = s["kind"]
    if k == "mkdir":
        return "mkdir " + " ".join(s["paths"])
    if k == "sync":
        return "sync"
    if k == "settle":
        return "vmstat -w fs.cleaner.scans +2 60"
    if k == "sleep":
        return "sleep %d" % s["secs"]
    if k == "mkdata":
        return "mkdata %s%s %d %d%s" % ("-s " if s["fsync"] else "", s["path"], s["size"], s["seed"],
                                        " &" if s.get("bg") else "")
    if k == "append":
        return "mkdata %s- %d %d >> %s" % ("-s " if s["fsync"] else "", s["size"], s["seed"], s["path"])
    if k == "touch":
        return "; ".join("mkdata %s 0" % p for p in s["paths"])
    if k == "rmdir":
        return "rmdir " + s["path"]
    if k == "fsyncdir":
        return "mkdata -s - 0 1< " + s["path"]
    if k == "fsstress":
        return "fsstress %s %d %d%s" % (s["path"], s["n"], s["seed"], " &" if s.get("bg") else "")
    if k == "rm":
        return "rm " + s["path"]
    if k == "mv":
        return "mv %s %s" % (s["src"], s["dst"])
    if k == "renamer":
        return "renamer %s %d %d" % (s["path"], s["rounds"], s["bytes"])
    raise ValueError(k)


def record(workload, rounds, seed, out, size_mb=32, kill_after_acks=None, timeout=600):
    """Runs the workload once; returns the manifest (also written to out/manifest.json).
    The ace run keeps changes in memory for 30 s, so only its fsyncs, syncs and the
    daemon's cuts move anything to the disk: the persistence points are the workload's."""
    wb, dd, si = ACE_DELAYS if workload == "ace" else DAEMON_DELAYS if workload == "daemon" else (2, 1, 1)
    cmdline = "fs.writeback_delay=%d fs.desc_delay=%d fs.scan_interval=%d" % (wb, dd, si)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    init = out / "initial.img"
    live = out / "live.img"
    subprocess.run([str(BUILD / "mkfs"), "-o", str(init), "-s", str(size_mb), "-b", str(BUILD / "user/bin")],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cp", "--sparse=always", str(init), str(live)], check=True)
    steps = WORKLOADS[workload](rounds, seed)
    for s in steps:
        s["cmd"] = command(s)
    sock = "/tmp/nbdlog-%d-%d.sock" % (os.getpid(), seed)
    srv = LogServer(str(live), sock, str(out / "disk.log")).start()
    rng = random.Random(seed * 7 + 1)

    def pos():
        w, f = srv.position()
        return [w, f, time.time()]

    drive = "file=nbd+unix:///?socket=%s,if=virtio,format=raw,cache=writeback" % sock
    q = subprocess.Popen(runqemu.command(kernel=BUILD / "kernel.elf", append=cmdline, drive=drive, timeout=timeout,
                                         kill_on="POWER-CUT"),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0,
                         # A background job inherits SIGINT ignored; runqemu must see it to cut the power.
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    console = bytearray()
    nacks = 0
    state = {"next": 0, "ready": False, "kill_at": None}

    def send(i):
        if i < len(steps):
            steps[i]["sent"] = pos()
            # A background job's "&" already ends its command.
            sep = " " if steps[i]["cmd"].endswith("&") else "; "
            line = "%s%secho A''CK %d\n" % (steps[i]["cmd"], sep, i)
        else:
            line = "echo POWER''-CUT\n"
        q.stdin.write(line.encode())
        q.stdin.flush()
        state["next"] = i + 1

    buf = b""
    t0 = time.time()
    while True:
        if state["kill_at"] is not None and time.time() >= state["kill_at"]:
            q.send_signal(signal.SIGINT)        # runqemu then SIGKILLs QEMU: the power cut
            state["kill_at"] = None
        if not select.select([q.stdout], [], [], 0.05)[0]:
            continue
        data = os.read(q.stdout.fileno(), 4096)
        if not data:
            break
        console += data
        buf += data
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            line = raw.decode("utf-8", "replace").strip("\r")
            if not state["ready"] and "console: ready" in line:
                state["ready"] = True
                send(0)
                continue
            m = re.fullmatch(r"ACK (\d+)", line)
            r = re.fullmatch(r"renamed (\d+)", line)
            if m or r:
                here = pos()
                nacks += 1
                last = kill_after_acks is not None and nacks >= kill_after_acks
                if r:
                    steps[state["next"] - 1].setdefault("rounds_acked", []).append([int(r.group(1))] + here)
                else:
                    steps[int(m.group(1))]["ack"] = here
                    if not last or state["kill_at"] is None:
                        send(int(m.group(1)) + 1)   # at the cut, something runs when the power goes
                if last and state["kill_at"] is None and nacks == kill_after_acks:
                    state["kill_at"] = time.time() + rng.uniform(0, 1.5)
            elif state["ready"] and 0 < state["next"] <= len(steps) and line and not line.startswith("$ "):
                steps[state["next"] - 1].setdefault("out", []).append(line)
    q.wait()
    err = srv.close()
    end = pos()
    (out / "console.txt").write_bytes(bytes(console))
    os.unlink(live)
    if err:
        raise RuntimeError(err)
    if not state["ready"]:
        raise RuntimeError("the kernel never printed 'console: ready' (see %s)" % (out / "console.txt"))
    for s in steps:
        # A step whose program complained promises nothing.
        s["failed"] = any(re.match(r"\S+: ", l) and not l.startswith(("fsstress ", "renamed"))
                          for l in s.get("out", []))
    man = dict(workload=workload, rounds=rounds, seed=seed, cmdline=cmdline, size_mb=size_mb,
               writeback_delay=wb, desc_delay=dd, scan_interval=si, steps=steps, end=end,
               runqemu_status=q.returncode, seconds=round(time.time() - t0, 1),
               acks=nacks)
    (out / "manifest.json").write_text(json.dumps(man, indent=1))
    return man


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", choices=sorted(WORKLOADS), default="mix")
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--kill-after-acks", type=int, help="power cut 0-1.5 s (seeded) after this many acks")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    m = record(a.workload, a.rounds, a.seed, a.out, kill_after_acks=a.kill_after_acks)
    print("crashrec: %s seed %d: %d steps, %d acks, %d writes, %d flushes in %.1f s" %
          (a.workload, a.seed, len(m["steps"]), m["acks"], m["end"][0], m["end"][1], m["seconds"]))


if __name__ == "__main__":
    main()
