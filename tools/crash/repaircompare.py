#!/usr/bin/env python3
"""The kernel's own repair in the loop: a sample of crash states repaired both by the host build
of the kernel's mount and by the kernel booted in QEMU, and the two results compared.

Every crash state of `make crashtest` is repaired by build/tests/kfs: the kernel's fs/*.c
compiled for the host against stubs (tests/host/kfs/stubs.c) for memory, locks, the disk and
the clock. What the checker then approves is that build's repair, not the kernel's. Here a
sample of states is repaired twice, from the same image: by kfs (mount, repair, sync) and by
the real kernel in QEMU (tools/runqemu.py: boot, mount and repair, init and the shell, which
reads end of file, so poweroff syncs). Both results are checked by the oracle
(crashcheck.Checker.check), and must hold the same file system.

What is compared, as build/fsck reads each image:
  repair   the repair's own report, the "fs: repaired ..." line (entries removed, '.'/'..'
           set, orphans freed, link counts, pointers, block counts, sizes, bitmap bits), or
           that neither repaired (the state was clean) or that both failed to mount;
  fsck     fsck's problem lines and notes (a file with two names);
  tree     every path reachable from the root (fsck --get /): its type, descriptor number, link
           count, size, block count and mtime (fsck --stat PATH), and a file's bytes;
  free map the bitmap, bit for bit over the whole disk (read where the superblock puts it),
           fsck's free block and descriptor counts, and the superblock's clean mark, mount
           count and free counts (fsck --stat).
Left out, and why: /swap's backing files. The repair removes every one (fs/repair.c: /swap
starts empty), but the kernel in QEMU then runs init and the shell, whose backing files
(/swap/segN) still exist when poweroff syncs; the host build runs no process. So the entries
under /swap, the /swap directory's size, block count and mtime, and those files' descriptors
and blocks (in the bitmap and in the free counts) are not compared; everything else is, in
full. Descriptor numbers and block counts are compared although a user could not see them: a
repair that freed or kept a different descriptor would show there first.

The sample is chosen by seed: up to K states of each kind (flush, prefix, subset, their tail-
forms, end, and with --targeted drop, torn and torn-subset: crashstates.py), so every kind of
state is covered however the recording is. A difference, or a violation of either repair, is a
failure; the state's image before repair and both repaired images are kept.

    repaircompare.py RUN [--seed S] [--per-epoch E] [--targeted] [--per-kind K | --state N...]
                     [--keep DIR]
"""
import argparse, json, os, random, shutil, struct, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crashcheck import FSCK, Checker

SUPER = struct.Struct("<16I")               # struct fs_super (fs/layout.h)
DESC = struct.Struct("<HHIII10III")         # struct fs_desc up to its pad
BSIZE = 4096
DESC_SIZE = 128
SWAP = "/swap"
STAT_KEYS = ("ino", "type", "nlink", "size", "blocks", "mtime")
COUNTS = ("free_blocks", "used_blocks", "free_descriptors", "clean", "mounts", "sb_free_blocks",
          "sb_free_descriptors", "blocks_total", "descriptors_total", "data_start")


def sample(states, seed, per_kind):
    """The indices of up to per_kind states of each kind, chosen by random.Random(seed)."""
    by_kind = {}
    for i, (kind, _, _) in enumerate(states):
        by_kind.setdefault(kind, []).append(i)
    rng = random.Random(seed)
    out = []
    for kind in sorted(by_kind):
        out += rng.sample(by_kind[kind], min(per_kind, len(by_kind[kind])))
    return sorted(out)


def fsck(*args):
    r = subprocess.run([str(FSCK)] + [str(a) for a in args], capture_output=True, timeout=120)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def stat(img, path=None):
    rc, out, err = fsck(img, "--stat", *([path] if path else []))
    if rc != 0:
        return {"error": err.strip()}
    d = {}
    for line in out.splitlines():
        k, _, v = line.partition(" ")
        d[k] = int(v) if v.isdigit() else v
    return d


def file_blocks(img, ino):
    """Every block a descriptor names: data, indirect and doubly-indirect (fs/layout.h)."""
    with open(img, "rb") as f:
        sb = SUPER.unpack(f.read(2 * BSIZE)[BSIZE:BSIZE + SUPER.size])
        desc_start, nblocks = sb[6], sb[3]

        def block(b):
            f.seek(b * BSIZE)
            return f.read(BSIZE)

        def ptrs(b):
            return [p for p in struct.unpack("<1024I", block(b)) if 0 < p < nblocks]
        raw = block(desc_start + ino // (BSIZE // DESC_SIZE))
        d = DESC.unpack_from(raw, (ino % (BSIZE // DESC_SIZE)) * DESC_SIZE)
        out = {p for p in d[5:15] if 0 < p < nblocks}
        ind, dind = d[15], d[16]
        if 0 < ind < nblocks:
            out |= {ind} | set(ptrs(ind))
        if 0 < dind < nblocks:
            out.add(dind)
            for i in ptrs(dind):
                out |= {i} | set(ptrs(i))
    return out


def used_blocks(img):
    """The blocks the bitmap marks in use (block 0 up to the end of the file system)."""
    with open(img, "rb") as f:
        f.seek(BSIZE)
        sb = SUPER.unpack(f.read(SUPER.size))
        nblocks, bitmap_start, bitmap_blocks = sb[3], sb[4], sb[5]
        f.seek(bitmap_start * BSIZE)
        bits = f.read(bitmap_blocks * BSIZE)
    return {b for b in range(nblocks) if bits[b // 8] >> (b % 8) & 1}


def view(img, tmp, repair):
    """What the comparison sees of a repaired image: {repair, fsck, tree, used, counts}, /swap's
    backing files taken out (and listed, with their blocks, under swap)."""
    rc, out, err = fsck(img)
    problems = [l for l in out.splitlines() if not l.startswith("fsck: ")] + \
        ([err.strip()] if err.strip() else [])
    dest = Path(tmp) / "tree"
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    grc, _, gerr = fsck(img, "--get", "/", dest)
    if grc != 0:        # named as the image's path, not this temporary folder's
        problems.append("fsck --get /: " + gerr.replace(str(dest), "").strip()[:200])
    tree, swap_files = {}, []
    for dirpath, dirnames, filenames in os.walk(dest):
        dirnames.sort()
        rel = os.path.relpath(dirpath, dest).replace(os.sep, "/")
        here = "/" if rel == "." else "/" + rel
        for name in [None] + sorted(filenames):
            path = here if name is None else here.rstrip("/") + "/" + name
            st = stat(img, path)
            if path.startswith(SWAP + "/"):
                swap_files.append(st.get("ino"))
                continue
            entry = {k: st.get(k) for k in STAT_KEYS}
            if "error" in st:
                entry["error"] = st["error"]
            if path == SWAP:
                for k in ("size", "blocks", "mtime"):
                    entry.pop(k)
            if name is not None:
                with open(os.path.join(dirpath, name), "rb") as fh:
                    entry["bytes"] = fh.read()
            tree[path] = entry
    shutil.rmtree(dest, ignore_errors=True)
    swap_blocks = set()
    for ino in swap_files:
        if isinstance(ino, int):
            swap_blocks |= file_blocks(img, ino)
    counts = stat(img)
    for k, extra in (("free_blocks", len(swap_blocks)), ("used_blocks", -len(swap_blocks)),
                     ("free_descriptors", len(swap_files)), ("sb_free_blocks", len(swap_blocks)),
                     ("sb_free_descriptors", len(swap_files))):
        if isinstance(counts.get(k), int):
            counts[k] += extra
    return dict(repair=repair, fsck=problems, tree=tree, used=used_blocks(img) - swap_blocks,
                counts={k: counts.get(k) for k in COUNTS},
                swap=dict(files=len(swap_files), blocks=len(swap_blocks)))


def differences(h, q, limit=12):
    """What differs between the host's view h and QEMU's view q, one line each."""
    out = []
    if h["repair"] != q["repair"]:
        out.append("repair report: host %r, QEMU %r" % (h["repair"], q["repair"]))
    if h["fsck"] != q["fsck"]:
        out.append("fsck: host %s; QEMU %s" % ("; ".join(h["fsck"][:3]) or "clean",
                                               "; ".join(q["fsck"][:3]) or "clean"))
    for path in sorted(set(h["tree"]) | set(q["tree"])):
        a, b = h["tree"].get(path), q["tree"].get(path)
        if a is None or b is None:
            out.append("%s: only in the %s's repair" % (path, "host" if b is None else "QEMU"))
            continue
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                if k == "bytes":
                    x, y = a.get(k) or b"", b.get(k) or b""
                    at = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
                    out.append("%s: bytes differ from offset %d (host %d bytes, QEMU %d)" % (path, at, len(x), len(y)))
                else:
                    out.append("%s: %s host %s, QEMU %s" % (path, k, a.get(k), b.get(k)))
    only_h, only_q = sorted(h["used"] - q["used"]), sorted(q["used"] - h["used"])
    if only_h or only_q:
        out.append("bitmap: in use only in the host's repair %s, only in QEMU's %s" % (only_h[:8], only_q[:8]))
    for k in COUNTS:
        if h["counts"][k] != q["counts"][k]:
            out.append("%s: host %s, QEMU %s" % (k, h["counts"][k], q["counts"][k]))
    return out[:limit] + (["... %d more" % (len(out) - limit)] if len(out) > limit else [])


def compare_state(c, idx, state, keep=None, label="state"):
    """Repairs one state both ways, checks and compares; returns a result dict. With keep, a
    failing state's three images (before repair, the host's repair, QEMU's) go there."""
    kind, m, order = state
    t0 = time.time()
    tmp = Path(tempfile.mkdtemp(prefix="repaircmp-"))
    try:
        before, host, qemu = tmp / "before.img", tmp / "host.img", tmp / "qemu.img"
        c.rec.write_image(str(before), m, order, c.initial_blocks, c.stale)
        for img in (host, qemu):
            subprocess.run(["cp", "--sparse=always", str(before), str(img)], check=True)
        hv, hinfo = c.check(m, order, host, tmp / "h", qemu=False)
        qv, qinfo = c.check(m, order, qemu, tmp / "q", qemu=True)
        h = view(host, tmp / "h", hinfo["repair"])
        q = view(qemu, tmp / "q", qinfo["repair"])
        diff = differences(h, q)
        kept = []
        if (diff or hv or qv) and keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            for img in (before, host, qemu):
                dst = Path(keep) / ("%s-%d-%s" % (label, idx, img.name))
                shutil.move(str(img), dst)
                kept.append(str(dst))
        return dict(idx=idx, kind=kind, m=m, blocks=len(order), repair=hinfo["repair"],
                    host_violations=hv, qemu_violations=qv, differences=diff, kept=kept,
                    swap=q["swap"], paths=len(h["tree"]), seconds=time.time() - t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(rundir, seed, per_epoch, targeted, per_kind, keep=None, states=None, log=print):
    """Compares a sample of a recording's states (or the states given); returns the results."""
    c = Checker(str(rundir))
    all_states = c.states(seed, per_epoch, targeted)
    picked = states if states is not None else sample(all_states, seed, per_kind)
    out = []
    for i in picked:
        r = compare_state(c, i, all_states[i], keep, Path(rundir).name)
        out.append(r)
        bad = r["differences"] or r["host_violations"] or r["qemu_violations"]
        log("  %s state %d (%s after flush %d, %d more blocks): %s, %.1f s" % (
            Path(rundir).name, i, r["kind"], r["m"], r["blocks"],
            "DIFFERENT" if r["differences"] else ("violations" if bad else "same"), r["seconds"]))
        for line in r["differences"]:
            log("    " + line)
        for who, v in (("host", r["host_violations"]), ("QEMU", r["qemu_violations"])):
            for kind, text, _ in v:
                log("    %s's repair: %s: %s" % (who, kind, text[:200]))
        for k in r["kept"]:
            log("    kept %s" % k)
    return out


def summary(results, seconds):
    """One line: how many states, of which kinds, how many differed or failed."""
    kinds = sorted({r["kind"] for r in results})
    ndiff = sum(1 for r in results if r["differences"])
    nviol = sum(1 for r in results if r["host_violations"] or r["qemu_violations"])
    return "repair in QEMU against the host's: %d states (%s), %d different, %d with violations, %.0f s" % (
        len(results), ", ".join(kinds), ndiff, nviol, seconds)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", help="a recording directory (tools/crash/crashrec.py --out)")
    p.add_argument("--seed", type=int, default=1, help="the crash-state seed, which also picks the sample")
    p.add_argument("--per-epoch", type=int, default=8)
    p.add_argument("--targeted", action="store_true", help="the drop and torn states too")
    p.add_argument("--per-kind", type=int, default=2, help="states of each kind in the sample")
    p.add_argument("--state", type=int, action="append", help="compare this state (repeatable)")
    p.add_argument("--keep", help="where a failing state's images go")
    p.add_argument("--json", help="write the results here")
    a = p.parse_args()
    t0 = time.time()
    res = run(a.run, a.seed, a.per_epoch, a.targeted, a.per_kind, a.keep, a.state)
    print(summary(res, time.time() - t0))
    if a.json:
        Path(a.json).write_text(json.dumps([{k: v for k, v in r.items()} for r in res], indent=1))
    return 1 if any(r["differences"] or r["host_violations"] or r["qemu_violations"] for r in res) else 0


if __name__ == "__main__":
    sys.exit(main())
