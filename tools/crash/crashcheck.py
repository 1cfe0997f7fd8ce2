#!/usr/bin/env python3
"""The oracle for one crash state of a recorded workload (tools/crash/crashrec.py,
tools/crash/crashstates.py): what the disk must hold after a power cut at that point.

The state's image is repaired by the kernel's own mount code run on the host
(build/tests/kfs IMAGE: mount, repair when not clean, sync), or by the real kernel booted in
QEMU (--qemu); then:
  repair      the mount must succeed (no panic, no refusal);
  fsck        build/fsck must be clean afterwards;
  acked-lost  a file acknowledged as fsync'ed (mkdata -s, then "ACK"), or present when an
              acknowledged `sync` was sent, must be byte-identical under its name, unless a
              later step that may have started by then (see below) renames or removes it;
              a rename of it that may have started allows the new name too; one that was
              acknowledged requires the new name. Never both names lost.
  rename      renamer's target, once a round N was acknowledged ("renamed N"), holds one
              whole version, N or later; never a mix, never nothing;
  deleted-back a file removed before an acknowledged `sync` must stay removed;
  old-unsynced an unsynced file acknowledged (its command returned) more than
              1.5 * (fs.writeback_delay + fs.scan_interval) + 2 s before the power cut must
              be there in full (the margin keeps guest/host clock skew from false alarms);
  foreign     every 4 KB block of every file holds its own data (the workload's contents
              name their file: mkdata's stream from a per-name seed, fsstress's salted bytes,
              renamer's "version N" lines) or zeros; a file never grows beyond what it was
              written to be;
  name-shared two names on one descriptor (fsck's note) must be one file's old and new name;
  bin         /bin is as mkfs made it;
  unflushed   (once per recording, the daemon workload) a daemon scan leaves none of its writes
              unflushed (Checker.log_violations);
  fsync'ed directories: the names in one whose fsync was acknowledged are there, and the ones
              removed from it before are not (acked-lost, deleted-back).

What "may have started" means: the host sends step j only after reading step j-1's
acknowledgement, when the log held sent[j] writes, so j's writes all come after that. A
state whose writes all lie before sent[j] cannot hold any of j's effects. An acknowledgement
read when the log held f flushes binds every state that holds flush f.
"""
import argparse, functools, json, os, re, shutil, subprocess, sys, tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crashstates import BSIZE, Recording, nonzero_blocks
from nbdlog import read_log
# The one launcher of QEMU (tools/runqemu.py), as the tests and the benchmarks boot through.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import runqemu  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
KFS = BUILD / "tests" / "kfs"
FSCK = BUILD / "fsck"
ZERO = bytes(BSIZE)


# --- the workload's contents ----------------------------------------------------------------

def mkdata_bytes(seed, size):
    """user/mkdata.c: successive xorshift32 states, little-endian."""
    x = seed or 1
    out = bytearray()
    words = (size + 3) // 4
    for _ in range(words):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out += x.to_bytes(4, "little")
    return bytes(out[:size])


def fsstress_bytes(salt, size):
    """user/fsstress.c: byte k is (salt + 7k) % 251."""
    return bytes((salt + k * 7) % 251 for k in range(size))


def renamer_bytes(n, size):
    line = b"version %d\n" % n
    return (line * (size // len(line) + 1))[:size]


class Model:
    """The workload's files and namespace, step by step, from the manifest."""

    def __init__(self, man):
        self.man = man
        self.steps = man["steps"]
        self.touched = [frozenset(touches(st)) for st in self.steps]     # per step, worked out once
        self.contents = {}          # ident -> [versions (bytes)], in the order they were written
        self.after = []             # per step: {path: ident} after it
        self.ver_after = []         # per step: {ident: index of its version then}
        self.dirs_after = []        # per step: the directories there after it
        self.dirs = {"/"}           # every directory the workload ever made
        self._names = {}            # names_around's answers, per step
        ns, ver, live = {}, {}, {"/"}

        def put(path, ident, data):
            self.contents.setdefault(ident, []).append(data)
            ver[ident] = len(self.contents[ident]) - 1
            ns[path] = ident

        for j, s in enumerate(self.steps):
            k = s["kind"]
            if k == "mkdir":
                self.dirs.update(s["paths"])
                live.update(s["paths"])
            elif k == "rmdir":
                live.discard(s["path"])
            elif k == "mkdata" and s.get("bg"):     # a background writer's file: never promised
                self.contents[s["path"].rsplit("/", 1)[1]] = [mkdata_bytes(s["seed"], s["size"])]
            elif k == "mkdata":
                # On an existing name, O_TRUNC: the same file, a new version.
                put(s["path"], ns.get(s["path"], s["path"].rsplit("/", 1)[1]), mkdata_bytes(s["seed"], s["size"]))
            elif k == "append":
                ident = ns.get(s["path"], s["path"].rsplit("/", 1)[1])
                old = self.contents[ident][ver[ident]] if s["path"] in ns else b""
                put(s["path"], ident, old + mkdata_bytes(s["seed"], s["size"]))
            elif k == "touch":
                for path in s["paths"]:
                    put(path, path.rsplit("/", 1)[1], b"")
            elif k == "fsstress":
                self.dirs.add(s["path"])
                live.add(s["path"])
                for i in range(s["n"]):
                    f, t = "%s/f%d" % (s["path"], i), "%s/t%d" % (s["path"], i)
                    self.contents[t] = [fsstress_bytes(0, (i * 331) % 9000)]
                    self.contents[f] = [fsstress_bytes(1, 100),
                                        fsstress_bytes(s["seed"] + i, (s["seed"] * 7919 + i * 1237) % 30000)]
                    ver[f] = 1
                    if not s.get("bg"):     # a background writer's files are never promised
                        ns[f] = f
            elif k == "rm":
                ns.pop(s["path"], None)
            elif k == "mv":
                if s["src"] in ns:
                    ns[s["dst"]] = ns.pop(s["src"])
            elif k == "renamer":
                vers = [renamer_bytes(n, s["bytes"]) for n in range(s["rounds"])]
                self.contents.setdefault("renamer", []).extend(vers)
                ns[s["path"]] = ("renamer", j, s["rounds"] - 1)
            self.after.append(dict(ns))
            self.ver_after.append(dict(ver))
            self.dirs_after.append(set(live))
        # Every name a file ever had (a rename within a directory changes its base name).
        self.names = {}
        for ns in self.after:
            for path, ident in ns.items():
                if isinstance(ident, str):
                    self.names.setdefault(path, ident)
        # Block index for naming whose data a stray block holds.
        self.block_owner = {}
        for ident, vers in self.contents.items():
            if ident == "renamer":
                continue
            for v in vers:
                for b in range(0, len(v), BSIZE):
                    blk = v[b:b + BSIZE]
                    if len(blk) >= 16 and blk[:16] != ZERO[:16]:
                        self.block_owner.setdefault(blk[:16], "%s block %d" % (ident, b // BSIZE))

    def names_around(self, i):
        """(the names in step i's directory after it, every name there after some earlier step),
        the same for every state: worked out once per step."""
        if i not in self._names:
            d = self.steps[i]["path"]
            in_d = lambda j: {p for p in list(self.after[j]) + list(self.dirs_after[j]) if p.rsplit("/", 1)[0] == d}
            self._names[i] = (in_d(i), set().union(*[in_d(j) for j in range(i)]))
        return self._names[i]

    def content(self, ident, j=None):
        """The file's contents after step j (None: its last version)."""
        if isinstance(ident, tuple):        # renamer step j's last version
            _, j, n = ident
            return renamer_bytes(n, self.steps[j]["bytes"])
        if j is None:
            return self.contents[ident][-1]
        return self.contents[ident][self.ver_after[j][ident]]

    def ident_of(self, path):
        """The file a path may hold (by name: a moved file keeps its base name)."""
        base = path.rsplit("/", 1)[1]
        if re.fullmatch(r"/r/t(\.tmp)?", path):
            return "renamer"
        if path in self.contents:
            return path
        if path in self.names and self.names[path] in self.contents:
            return self.names[path]
        if base in self.contents:
            return base
        return None

    def own_block(self, ident, off, blk):
        if blk == ZERO[:len(blk)]:
            return True
        if ident == "renamer":
            m = re.search(rb"version (\d+)\n", blk)
            if not m:
                return False
            n = int(m.group(1))
            # The pattern is fixed by n and the offset alone (not by the step's size).
            return renamer_bytes(n, off + len(blk))[off:] == blk
        # A version's bytes, then zeros: a block written before the file grew over it (an
        # append lands in the last block in place, and may not have reached the disk).
        n = len(blk)
        return any(v[off:off + n] + ZERO[:max(0, n - len(v[off:off + n]))] == blk for v in self.contents[ident])

    def who(self, blk):
        if blk == ZERO[:len(blk)]:
            return "zeros"
        if blk.startswith(b"stale block "):
            return "a block never written since it was free (%s)" % blk[12:20].decode(errors="replace")
        if b"version " in blk:
            return "renamer text"
        if blk[:16] in self.block_owner:
            return self.block_owner[blk[:16]]
        if len(blk) > 8 and all((blk[k + 1] - blk[k]) % 251 == 7 for k in range(8)):
            return "fsstress bytes (salt %d)" % blk[0]
        return "unknown bytes %s" % blk[:8].hex()


def touches(s):
    k = s["kind"]
    if k in ("mkdata", "rm", "append", "rmdir"):
        return {s["path"]}
    if k in ("touch", "mkdir"):
        return set(s["paths"])
    if k == "mv":
        return {s["src"], s["dst"]}
    if k == "fsstress":
        return {s["path"]}
    if k == "renamer":
        return {s["path"], s["path"] + ".tmp"}
    return set()


def under(path, roots):
    return any(path == r or path.startswith(r + "/") for r in roots)


@functools.lru_cache(maxsize=None)
def ancestors(path):
    """path and every folder above it but "/": under(path, {r}) is r in ancestors(path). The
    checks ask it of the same few hundred paths in every state (sets, not string scans)."""
    out = {path}
    while path.count("/") > 1:
        path = path.rsplit("/", 1)[0]
        out.add(path)
    return frozenset(out)


# --- reading a state ------------------------------------------------------------------------

def read_tree(img, roots=("/",)):
    """{path: bytes or None (a directory)} of the trees under roots in the image, through
    fsck --dump (only the workload's folders and /bin: the VM's backing files are large).
    Returns (tree, status, errors); a root that is absent is simply not in the tree. Nothing
    is written to disk: thousands of states extracted into folders cost more in the host's
    file system than the checks themselves."""
    tree, rc, errs = {}, 0, []
    for root in roots:
        r = subprocess.run([str(FSCK), str(img), "--dump", root], capture_output=True, timeout=120)
        err = r.stderr.decode(errors="replace")
        if r.returncode != 0 and "no such file or directory" not in err:
            rc, errs = r.returncode, errs + [err.strip()]
        out, pos = r.stdout, 0
        while pos < len(out):
            nl = out.index(b"\n", pos)
            head = out[pos:nl].decode(errors="replace")
            pos = nl + 1
            kind, rest = head[0], head[2:]
            if kind == "f":
                name, size = rest.rsplit(" ", 1)
                data, pos = out[pos:pos + int(size)], pos + int(size)
            else:
                name, data = rest, None
            tree[root if name == "." else root.rstrip("/") + "/" + name] = data
    return tree, rc, " ".join(errs)


class Checker:
    def __init__(self, rundir):
        self.dir = Path(rundir)
        self.man = json.loads((self.dir / "manifest.json").read_text())
        self.model = Model(self.man)
        self.rec = Recording(str(self.dir / "disk.log"), str(self.dir / "initial.img"))
        self.initial_blocks = nonzero_blocks(self.rec.initial)
        self.age = 1.5 * (self.man["writeback_delay"] + self.man["scan_interval"]) + 2.0
        self.bin = None
        self.roots = sorted(d for d in self.model.dirs if d.count("/") == 1 and d != "/")

    @functools.cached_property
    def stale(self):
        """The blocks that hold stale bytes in every state until written (crashstates)."""
        st = subprocess.run([str(FSCK), self.rec.initial, "--stat"], capture_output=True, text=True, check=True)
        data_start = int(re.search(r"^data_start (\d+)$", st.stdout, re.M).group(1))
        return self.rec.stale_blocks(self.initial_blocks, data_start)

    def states(self, seed, per_epoch, targeted=False):
        """The recording's crash states; targeted adds the torn epochs (crashstates.py) from the
        one in which the first Ace sequence began (the setup before it is not worth tearing);
        targeted="edges" tears each request at its two ends only; targeted="drops" has the drop
        states alone (crashtest --quick: the states that catch every catalogued durability bug
        are flush and drop states, docs/reliability.md)."""
        start = None
        if targeted:
            start = next((s["sent"][1] for s in self.man["steps"] if "ace" in s and s.get("sent")), 0)
        torn = {"edges": "edges", "drops": False}.get(targeted, True) if isinstance(targeted, str) else True
        states = self.rec.states(seed, per_epoch, start, torn=torn)
        # Once a background writer runs, its hundreds of blocks would each be torn away in turn;
        # the flush states are what its syncs are checked by.
        bg = next((s["sent"][1] for s in self.man["steps"] if s.get("bg") and s.get("sent")), None)
        if bg is not None:
            states = [st for st in states if not (st[0] == "drop" and st[1] >= bg)]
        return states

    def log_violations(self):
        """The daemon workload's own check, once per recording: a scan flushes what it wrote
        before it ends (fs/flushd.c, scan), so while a settle waits for two scans, and only
        the daemon writes, no write waits more than a second for a flush (scans are
        fs.scan_interval = 2 s apart: a scan without its final flush leaves its writes to the
        next one's), and none is still unflushed when the settle returns."""
        if self.man["workload"] != "daemon":
            return []
        recs = [r for r in read_log(str(self.dir / "disk.log"))]
        writes, v = [], []
        for kind, off, data, t in recs:
            if kind == "W":
                writes.append([t, None])
            elif writes and writes[-1][1] is None:
                for w in reversed(writes):
                    if w[1] is not None:
                        break
                    w[1] = t
        for j, s in enumerate(self.man["steps"]):
            if s["kind"] != "settle" or not s.get("ack") or s.get("failed"):
                continue
            late = [i for i in range(s["sent"][0], s["ack"][0])
                    if writes[i][1] is None or writes[i][1] > s["ack"][2] or writes[i][1] - writes[i][0] > 1.0]
            if late:
                i = late[0]
                v.append(("unflushed", "step %d (%s): %d of the daemon's %d writes waited %s for a flush" % (
                    j, s["cmd"], len(late), s["ack"][0] - s["sent"][0],
                    "past the settle's end" if writes[i][1] is None or writes[i][1] > s["ack"][2]
                    else "%.1f s" % (writes[i][1] - writes[i][0])), 0))
        return v

    def bin_files(self, tmp):
        if self.bin is None:
            tree, _, _ = read_tree(self.rec.initial, ["/bin"])
            self.bin = {p: d for p, d in tree.items() if p.startswith("/bin/")}
        return self.bin

    def repair_host(self, img, written=None):
        e = dict(os.environ)
        if written:
            e["KFS_WRITTEN"] = written      # the blocks the repair writes, named there
        r = subprocess.run([str(KFS), str(img)], capture_output=True, timeout=120, env=e)
        out = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
        return r.returncode == 0 and "kernel panic" not in out and "POWEROFF" not in out, out

    def repair_qemu(self, img):
        r = subprocess.run(runqemu.command(kernel=BUILD / "kernel.elf", append=self.man["cmdline"], disk=img,
                                           timeout=120),
                           input=b"", capture_output=True, timeout=300)
        out = r.stdout.decode(errors="replace")
        return r.returncode == 0 and "kernel panic" not in out, out

    def check(self, m, order, img, tmp, qemu=False, written=None):
        """Repairs img in place and checks it; returns (violations [(kind, text, bytes lost)], info).
        written: a file in which the host repair names the blocks it writes."""
        v = []
        P, t_cut = self.rec.where(m, order)
        ok, out = self.repair_qemu(img) if qemu else self.repair_host(img, written)
        rep = re.search(r"fs: repaired[^\n]*", out)
        info = dict(P=P, t=t_cut, repair=rep.group(0) if rep else ("clean" if ok else "failed"))
        if not ok:
            tail = [l for l in out.splitlines() if l.strip()][-3:]
            v.append(("repair", "the mount failed: " + " | ".join(tail), 0))
            return v, info
        r = subprocess.run([str(FSCK), str(img)], capture_output=True, timeout=120)
        fout = r.stdout.decode(errors="replace")
        if r.returncode != 0:
            probs = [l for l in fout.splitlines() if not l.startswith("fsck:")]
            v.append(("fsck", "; ".join(probs[:4]) + (" ..." if len(probs) > 4 else ""), 0))
        tree, grc, gerr = read_tree(img, self.roots + ["/bin"])
        if grc != 0:
            v.append(("fsck", "fsck --dump: " + gerr.strip()[:200], 0))
        v += self.expectations(m, P, t_cut, tree)
        for a, b in re.findall(r"note: file \d+ has two names: (\S+) and (\S+)", fout):
            ia, ib = self.model.ident_of(a), self.model.ident_of(b)
            if ia != ib or ia is None:
                v.append(("name-shared", "%s and %s name one descriptor" % (a, b), 0))
        binf = self.bin_files(tmp)
        for p, data in binf.items():
            if tree.get(p) != data:
                v.append(("bin", "%s differs from the image mkfs made" % p, len(data)))
        return v, info

    def expectations(self, m, P, t_cut, tree):
        model, steps = self.model, self.model.steps
        v = []
        started = [bool(s.get("sent")) and P > s["sent"][0] for s in steps]   # unsent: cut before
        acked = [bool(s.get("ack")) and s["ack"][1] <= m and not s.get("failed") for s in steps]

        def show(path):
            if path not in tree:
                return "absent"
            d = tree[path]
            if d is None:
                return "a directory"
            ident = model.ident_of(path)
            if ident is None:
                return "%d bytes" % len(d)
            for o in range(0, len(d), BSIZE):
                blk = d[o:o + BSIZE]
                if not model.own_block(ident, o, blk):
                    return "%d bytes, block %d holds %s" % (len(d), o // BSIZE, model.who(blk))
            return "%d bytes of its own data or zeros" % len(d)

        # Durable facts: an acknowledged sync makes everything before it durable; an
        # acknowledged mkdata -s its file. Later steps that may have started loosen them.
        # (A settle, two whole scans of a daemon with no delay, promises what a sync does.)
        k = max([j for j, s in enumerate(steps) if s["kind"] in ("sync", "settle") and acked[j]], default=None)
        facts = []
        if k is not None:
            for path, ident in model.after[k].items():
                facts.append((k, path, ident, "synced"))
        for i, s in enumerate(steps):
            if s["kind"] in ("mkdata", "append") and s["fsync"] and acked[i] and (k is None or i > k):
                facts.append((i, s["path"], model.after[i][s["path"]], "fsync'ed"))
        for start, path, ident, why in facts:
            allowed, required, void = {path}, None, False
            for j in range(start + 1, len(steps)):
                if not started[j]:
                    break               # nor any later one: they were sent later still
                s = steps[j]
                if s["kind"] == "mv" and s["src"] in allowed:
                    allowed.add(s["dst"])
                    if acked[j]:
                        required = s["dst"]
                elif any(ancestors(a) & model.touched[j] for a in allowed):
                    void = True         # removed or rewritten: nothing promised
                    break
            if void:
                continue
            want = model.content(ident, start)
            where = [required] if required else sorted(allowed)
            if not any(tree.get(p) == want for p in where):
                v.append(("acked-lost", "%s (%s, %d bytes): %s" % (
                    " or ".join(where), why, len(want), "; ".join("%s is %s" % (p, show(p)) for p in where)),
                    len(want)))

        # A directory fsync'ed (and acknowledged): the names in it then are there, and the
        # ones removed from it before are not, unless a later step that may have started
        # touches them. Only names: their files' data was not fsync'ed.
        for i, s in enumerate(steps):
            if s["kind"] != "fsyncdir" or not acked[i]:
                continue
            here, before = model.names_around(i)
            later = set()
            for j in range(i + 1, len(steps)):
                if not started[j]:
                    break
                later |= model.touched[j]
            for p in sorted(here):
                if p not in tree and not (ancestors(p) & later or any(under(t, {p}) for t in later)):
                    v.append(("acked-lost", "%s is absent, though its directory was fsync'ed (step %d)" % (p, i), 0))
            for p in sorted(before - here):
                if p in tree and not (ancestors(p) & later or any(under(t, {p}) for t in later)):
                    v.append(("deleted-back", "%s was removed before its directory was fsync'ed (step %d), but is "
                              "there: %s" % (p, i, show(p)), 0))

        # Removed before an acknowledged sync: stays removed (files and directories).
        if k is not None:
            gone = set()
            for j in range(k):
                gone |= set(model.after[j]) - set(model.after[k])
                gone |= model.dirs_after[j] - model.dirs_after[k]
            for j in range(k + 1, len(steps)):
                if started[j]:
                    gone = {p for p in gone if not ancestors(p) & model.touched[j]}
            for p in sorted(gone):
                if p in tree:
                    v.append(("deleted-back", "%s was removed before an acknowledged sync, but is there: %s" %
                              (p, show(p)), 0))

        # renamer: the last acknowledged round, or a later version, whole.
        best = None
        for j, s in enumerate(steps):
            for n, w, f, t in s.get("rounds_acked", []):
                if f <= m:
                    best = (j, n)
        if best is not None:
            d = tree.get("/r/t")
            got = None
            if d is not None:
                mm = re.match(rb"version (\d+)\n", d)
                if mm:
                    n = int(mm.group(1))
                    for j, s in enumerate(steps):
                        if s["kind"] == "renamer" and len(d) == s["bytes"] and n < s["rounds"] \
                                and d == renamer_bytes(n, s["bytes"]):
                            got = (j, n)
            if got is None or got < best:
                want = steps[best[0]]["bytes"]
                v.append(("rename", "/r/t after 'renamed %d' of step %d: %s%s" % (
                    best[1], best[0], show("/r/t"),
                    "" if got is None else " (version %d of step %d: older)" % (got[1], got[0])), want))

        # Old unsynced files: written back and on the disk by the cut.
        for i, s in enumerate(steps):
            if s["kind"] not in ("mkdata", "fsstress") or s.get("failed") or not s.get("ack") or s.get("bg"):
                continue
            if s["ack"][2] + self.age > t_cut or (s["kind"] == "mkdata" and s["fsync"]):
                continue
            paths = [s["path"]] if s["kind"] == "mkdata" else \
                ["%s/f%d" % (s["path"], x) for x in range(s["n"])]
            for p in paths:
                if any(started[j] and ancestors(p) & model.touched[j] for j in range(i + 1, len(steps))):
                    continue
                want = model.content(model.after[i][p], i)
                if tree.get(p) != want:
                    v.append(("old-unsynced", "%s (%d bytes, done %.1f s before the cut): %s" % (
                        p, len(want), t_cut - s["ack"][2], show(p)), 0))

        # Every file holds its own data or zeros, and no more than it was written with.
        for p, d in sorted(tree.items()):
            if not under(p, self.roots) or p in self.roots:
                continue
            if d is None:
                if p not in model.dirs:
                    v.append(("foreign", "%s: a directory the workload never made" % p, 0))
                continue
            ident = model.ident_of(p)
            if ident is None:
                v.append(("foreign", "%s: a name the workload never made (%d bytes)" % (p, len(d)), 0))
                continue
            vers = model.contents[ident]
            if len(d) > max(len(x) for x in vers):
                v.append(("foreign", "%s is %d bytes, more than it was ever written with (%d): %s" % (
                    p, len(d), max(len(x) for x in vers), show(p)), 0))
                continue
            for o in range(0, len(d), BSIZE):
                blk = d[o:o + BSIZE]
                if not model.own_block(ident, o, blk):
                    v.append(("foreign", "%s block %d holds %s" % (p, o // BSIZE, model.who(blk)), 0))
                    break
        return v


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", help="a recording directory (tools/crash/crashrec.py --out)")
    p.add_argument("--seed", type=int, default=1, help="the crash-state seed")
    p.add_argument("--per-epoch", type=int, default=8)
    p.add_argument("--state", type=int, required=True, help="state index")
    p.add_argument("--targeted", action="store_true", help="the index counts the targeted states too")
    p.add_argument("--targeted-edges", dest="targeted", action="store_const", const="edges",
                   help="the index counts the targeted states, each request torn at its ends only")
    p.add_argument("--targeted-drops", dest="targeted", action="store_const", const="drops",
                   help="the index counts the targeted drop states only (crashtest --quick)")
    p.add_argument("--qemu", action="store_true", help="repair by booting the real kernel")
    p.add_argument("--keep", help="leave the state's image (before repair) here")
    a = p.parse_args()
    c = Checker(a.run)
    states = c.states(a.seed, a.per_epoch, a.targeted)
    kind, m, order = states[a.state]
    with tempfile.TemporaryDirectory() as tmp:
        img = Path(tmp) / "state.img"
        c.rec.write_image(str(img), m, order, c.initial_blocks, c.stale)
        if a.keep:
            shutil.copyfile(img, a.keep)
        v, info = c.check(m, order, img, tmp, qemu=a.qemu)
    print("state %d: %s after flush %d, %d more blocks; log records %d; %s" % (
        a.state, kind, m, len(order), info["P"], info["repair"]))
    for kind, text, lost in v:
        print("  %s: %s" % (kind, text))
    print("ok" if not v else "%d violations" % len(v))
    return 1 if v else 0


if __name__ == "__main__":
    sys.exit(main())
