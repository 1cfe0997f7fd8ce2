"""Power cuts on a disk that logs every write and flush: tools/crash/nbdlog.py,
tools/crash/crashrec.py, tools/crash/crashstates.py, tools/crash/crashcheck.py, tools/crash/crashtest.py.

test_crash_states is the short version of `make crashtest`: it fails while the kernel loses
or mixes data at a power cut, naming the violation, the kept image and how to reproduce it.
Besides two short recorded mixes it runs the daemon workload (two scans with no delay promise
what a sync does; its log shows no scan leaving writes unflushed) and the Ace-style workload
(crashrec.ace_steps: each operation alone, overwrite, append, truncate, rmdir and fsync of a
directory among them, the delete-then-create pairs and sequences, the sequences aimed at
freed blocks reused and at syncs beside a background writer) at every flush and with each
block of every epoch torn away in turn (crashstates.Recording.targeted). Each durability bug
of the mutant catalog but cache.sync-skips-held-blocks fails it (docs/reliability.md).
The other tests check the tools themselves: the guest's fsync reaches the disk as a flush,
crash states are what a volatile write cache allows, and the oracle fails on planted damage.
"""
import json, os, struct, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "crash"))
import crashcheck, crashrec, crashstates  # noqa: E402
from nbdlog import REC, LogServer, read_log  # noqa: E402
from conftest import BUILD, boot  # noqa: E402


def test_guest_fsync_reaches_the_disk_as_a_flush(tmp_path):
    img = tmp_path / "fs.img"
    subprocess.run([str(BUILD / "mkfs"), "-o", str(img), "-s", "32", "-b", str(BUILD / "user/bin")],
                   check=True, stdout=subprocess.DEVNULL)
    sock = str(tmp_path / "s.sock")
    srv = LogServer(str(img), sock, str(tmp_path / "disk.log")).start()
    r = boot("mkdata -s /f 9000 5\necho FSY''NCED\n", cmdline="fs.writeback_delay=600 fs.desc_delay=600",
             drive="file=nbd+unix:///?socket=%s,if=virtio,format=raw,cache=writeback" % sock)
    assert srv.close() is None
    assert r.rc == 0, r
    assert "\nFSYNCED" in r.out, r
    recs = read_log(str(tmp_path / "disk.log"))
    kinds = "".join(k for k, _, _, _ in recs)
    # The fsync: the file's blocks, then a flush; then poweroff's sync: writes and flushes.
    assert kinds.count("F") >= 2, kinds
    first_flush = kinds.index("F")
    written = b"".join(d for k, _, d, _ in recs[:first_flush])
    assert crashcheck.mkdata_bytes(5, 9000)[:4096] in written, "the data came after the flush"
    # The log replays to the image the server left.
    rec = crashstates.Recording(str(tmp_path / "disk.log"), str(img))
    assert len(rec.flush_pieces) == kinds.count("F")


def synthetic_log(path, records):
    with open(path, "wb") as f:
        for kind, off, data in records:
            f.write(REC.pack(kind, off, len(data), 0.0) + data)


def test_daemon_log_check_fails_on_a_scan_without_its_final_flush(tmp_path):
    """Checker.log_violations: in a settle, a daemon write flushed at once passes; one left for
    the next scan's flush (2 s later), or unflushed when the settle returned, fails."""
    init = tmp_path / "initial.img"
    init.write_bytes(bytes(8 * 4096))
    blk = bytes([7]) * 4096

    def run(records, ack_writes):
        with open(tmp_path / "disk.log", "wb") as f:
            for kind, t in records:
                f.write(REC.pack(kind, 4096, len(blk) if kind == b"W" else 0, t) + (blk if kind == b"W" else b""))
        steps = [dict(kind="settle", cmd="vmstat -w fs.cleaner.scans +2 60", sent=[0, 0, 0.0],
                      ack=[ack_writes, 9, 10.0])]
        (tmp_path / "manifest.json").write_text(json.dumps(dict(workload="daemon", steps=steps,
                                                                writeback_delay=0, scan_interval=2)))
        return crashcheck.Checker(str(tmp_path)).log_violations()

    W, F = b"W", b"F"
    assert run([(W, 1.0), (W, 1.01), (F, 1.02), (W, 3.0), (F, 3.05)], 3) == []
    late = run([(W, 1.0), (F, 1.02), (W, 1.1), (F, 3.1)], 2)      # the second scan's flush, 2 s on
    assert [k for k, _, _ in late] == ["unflushed"] and "2.0 s" in late[0][1], late
    left = run([(W, 1.0), (F, 1.02), (W, 9.9)], 2)                 # still unflushed at the ack
    assert [k for k, _, _ in left] == ["unflushed"] and "past the settle" in left[0][1], left


def test_crash_states_follow_the_flushes(tmp_path):
    init = tmp_path / "init.img"
    init.write_bytes(bytes(8 * 4096))
    blk = lambda c: bytes([c]) * 4096
    synthetic_log(tmp_path / "log", [(b"W", 0, blk(1)), (b"W", 4096, blk(2) + blk(3)), (b"F", 0, b""),
                                     (b"W", 0, blk(4)), (b"W", 3 * 4096, blk(5)), (b"W", 0, blk(6))])
    rec = crashstates.Recording(str(tmp_path / "log"), str(init))
    assert [b[0] for b in rec.blocks] == [0, 1, 2, 0, 3, 0]       # a 2-block write is 2 units
    states = rec.states(7, 20)
    assert states == rec.states(7, 20)                              # reproducible
    assert states[0] == ("flush", 0, []) and states[1] == ("flush", 1, [])
    for kind, m, order in states:
        lo, hi = rec.epoch(m)
        assert all(lo <= i < hi for i in order), (kind, m, order)  # only writes in flight
    img = tmp_path / "s.img"
    init_blocks = crashstates.nonzero_blocks(str(init))
    rec.write_image(str(img), 1, [5, 3], init_blocks)              # the older write lands last
    data = img.read_bytes()
    assert data[:4096] == blk(4) and data[4096:8192] == blk(2) and data[3 * 4096:4 * 4096] == bytes(4096)
    kinds = {k for k, _, _ in states}
    assert {"flush", "end"} <= kinds and kinds & {"tail-subset", "tail-prefix"}
    # Targeted: every block of each epoch of two or more dropped in turn, the rest in issue order.
    torn = [s for s in rec.states(7, 20, targeted_from=0)[len(states):] if s[0] == "drop"]
    assert torn == [("drop", 0, [1, 2]), ("drop", 0, [0, 2]), ("drop", 0, [0, 1]),
                    ("drop", 1, [4, 5]), ("drop", 1, [3, 5]), ("drop", 1, [3, 4])], torn
    later = rec.states(7, 20, targeted_from=1)
    assert [s for s in later if s[0] == "drop"] == torn[3:] and ("flush", 0, []) not in later


def test_ace_sequences_are_bounded_and_complete():
    ops = [o for o in crashrec.ACE_OPS if o not in ("sync", "daemon", "writer-bg", "append-big")]
    old = [o for o in ops if o not in crashrec.ACE_NEW]
    seqs = crashrec.ace_sequences(2)
    for a in old:                   # every ordered pair, with and without a sync between
        for b in old:
            if not (a in crashrec.ACE_CONSUMES and b in crashrec.ACE_NEEDS_F):
                assert [a, b] in seqs and [a, "sync", b] in seqs, (a, b)
    new = crashrec.ace_sequences(3)
    plain = [o for o in ops if not o.startswith("grow-dir")]
    for a in plain:                 # and every pair with a new operation
        for b in plain:
            if (a in crashrec.ACE_NEW or b in crashrec.ACE_NEW) and crashrec.ace_fits([a, b]):
                assert [a, b] in new, (a, b)
    triples = [s for s in crashrec.ace_sequences(4) if len(s) == 3]
    assert len(triples) == 60 and all(crashrec.ace_fits(t) for t in triples)
    quick = crashrec.ace_sequences(1)
    assert all([o] in quick for o in plain) and ["unlink", "create-big"] in quick
    assert all(s in quick for s in crashrec.ACE_AIMED + crashrec.ACE_REUSE)
    assert crashrec.ACE_GROW[0] in quick and len([s for s in quick if len(s) == 3 and "sync" not in s]) >= 3
    for length in (1, 2, 3, 4):     # the background writer outlives its sequence: always last
        assert crashrec.ace_sequences(length)[-1] == crashrec.ACE_LAST[0]
        steps = crashrec.ace_steps(length, 1)
        names = [s["path"] for s in steps if s["kind"] == "mkdata" and s["path"] not in
                 [t["path"] for t in steps[:steps.index(s)] if t["kind"] in ("mkdata", "append")]]
        assert len({n.rsplit("/", 1)[1] for n in names}) == len(names)  # a file is known by its name
        assert all(len(crashrec.command(s)) < 1000 for s in steps)      # the console's line


def test_model_follows_overwrite_append_truncate_and_rmdir():
    """The checker's model of the new operations: a file's versions, each promise against the
    version of its time, a block of old data then zeros allowed, a directory removed."""
    mk = lambda path, size, seed, fsync=False: dict(kind="mkdata", path=path, size=size, seed=seed, fsync=fsync)
    steps = [dict(kind="mkdir", paths=["/w", "/w/A", "/w/E"]), mk("/w/A/f", 5000, 3, True), dict(kind="sync"),
             dict(kind="append", path="/w/A/f", size=4000, seed=5, fsync=True), mk("/w/A/f", 100, 7),
             dict(kind="rmdir", path="/w/E"), dict(kind="sync")]
    m = crashcheck.Model(dict(steps=steps))
    v1, v2 = crashcheck.mkdata_bytes(3, 5000), crashcheck.mkdata_bytes(3, 5000) + crashcheck.mkdata_bytes(5, 4000)
    assert m.content("f", 2) == v1 and m.content("f", 3) == v2 and m.content("f") == crashcheck.mkdata_bytes(7, 100)
    assert m.own_block("f", 4096, v1[4096:] + bytes(4096 - len(v1[4096:])))     # appended to in place, not written
    assert not m.own_block("f", 4096, bytes(100) + v2[4196:8192])
    assert "/w/E" in m.dirs_after[4] and "/w/E" not in m.dirs_after[5]


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    d = tmp_path_factory.mktemp("rec") / "mix"
    crashrec.record("mix", 3, 5, d)
    return d


def test_oracle_fails_on_planted_damage(recording):
    """The checker passes the disk as the guest left it and fails on each kind of loss."""
    c = crashcheck.Checker(str(recording))
    F = len(c.rec.flush_pieces)
    tree = {}
    for path, ident in c.model.after[len(c.model.steps) - 1].items():
        tree[path] = c.model.content(ident)
    for d in c.model.dirs:
        tree[d] = None
    t_end = c.man["end"][2]
    assert c.expectations(F, c.rec.nrecs, t_end, tree) == []
    acked = next(s["path"] for s in c.model.steps if s["kind"] == "mkdata" and s["fsync"])
    # An fsync'ed file gone, or holding another file's block.
    lost = dict(tree)
    del lost[acked]
    assert "acked-lost" in [k for k, _, _ in c.expectations(F, c.rec.nrecs, t_end, lost)]
    other = next(p for p in tree if tree[p] and p != acked and len(tree[p]) >= 4096)
    mixed = dict(tree)
    mixed[acked] = tree[other][:4096] + tree[acked][4096:]
    got = c.expectations(F, c.rec.nrecs, t_end, mixed)
    assert "foreign" in [k for k, _, _ in got] and "acked-lost" in [k for k, _, _ in got], got
    # A file bigger than it was written.
    grown = dict(tree)
    grown[acked] = tree[acked] + bytes(50000)
    assert "foreign" in [k for k, _, _ in c.expectations(F, c.rec.nrecs, t_end, grown)]
    # Before its acknowledgement's flush, the same loss is allowed.
    i = next(j for j, s in enumerate(c.model.steps) if s.get("path") == acked)
    m = c.model.steps[i]["ack"][1] - 1
    assert "acked-lost" not in [k for k, _, _ in c.expectations(m, c.model.steps[i]["sent"][0], 0, lost)]


def test_crash_states(tmp_path):
    """About 1,800 crash states: two short recorded mixes, the daemon workload and the Ace-style
    run's flush and drop states (make crashtest runs about FULL_STATES, torn requests too)."""
    scratch = tmp_path / "tmp"          # where each state's images are made: empty again at the end
    scratch.mkdir()
    r = subprocess.run([sys.executable, str(ROOT / "tools/crash/crashtest.py"), "--quick", "--jobs", "2",
                        "--out", str(BUILD / "crash-quick")], capture_output=True, timeout=900,
                       env=dict(os.environ, TMPDIR=str(scratch)))
    out = r.stdout.decode(errors="replace")
    summary = out[out.find("crashtest:"):] if "crashtest:" in out else out[-3000:]
    assert r.returncode == 0, "crash states lose or mix data:\n" + summary[:6000] + r.stderr.decode()[-2000:]
    assert not list(scratch.iterdir()), ("a checked state's files left behind", sorted(scratch.iterdir())[:5])
