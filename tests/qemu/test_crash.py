"""Power cuts on a disk that logs every write and flush: tools/crash/nbdlog.py,
tools/crash/crashrec.py, tools/crash/crashstates.py, tools/crash/crashcheck.py, tools/crash/crashtest.py.

test_crash_states is the short version of `make crashtest`: it fails while the kernel loses
or mixes data at a power cut, naming the violation, the kept image and how to reproduce it.
Besides two short recorded mixes it runs the Ace-style workload (crashrec.ace_steps: each
operation alone, the delete-then-create pairs and sequences) at every flush and with each
block of every epoch torn away in turn (crashstates.Recording.targeted).
The other tests check the tools themselves: the guest's fsync reaches the disk as a flush,
crash states are what a volatile write cache allows, and the oracle fails on planted damage.
"""
import os, struct, subprocess, sys
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
    seqs = crashrec.ace_sequences(2)
    ops = [o for o in crashrec.ACE_OPS if o not in ("sync", "daemon")]
    for a in ops:                   # every ordered pair, with and without a sync between
        for b in ops:
            if not (a in crashrec.ACE_FILE_OPS and b in crashrec.ACE_FILE_OPS):
                assert [a, b] in seqs and [a, "sync", b] in seqs, (a, b)
    quick = crashrec.ace_sequences(1)
    assert all(s in seqs for s in quick) and ["unlink", "create-big"] in quick
    steps = crashrec.ace_steps(1, 1)
    names = [s["path"] for s in steps if s["kind"] == "mkdata"]
    assert len({n.rsplit("/", 1)[1] for n in names}) == len(names)      # a file is known by its name


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
    """About 1,300 crash states: two short recorded mixes and the Ace-style run (make crashtest
    runs about 12,000)."""
    scratch = tmp_path / "tmp"          # where each state's images are made: empty again at the end
    scratch.mkdir()
    r = subprocess.run([sys.executable, str(ROOT / "tools/crash/crashtest.py"), "--quick", "--jobs", "2",
                        "--out", str(BUILD / "crash-quick")], capture_output=True, timeout=900,
                       env=dict(os.environ, TMPDIR=str(scratch)))
    out = r.stdout.decode(errors="replace")
    summary = out[out.find("crashtest:"):] if "crashtest:" in out else out[-3000:]
    assert r.returncode == 0, "crash states lose or mix data:\n" + summary[:6000] + r.stderr.decode()[-2000:]
    assert not list(scratch.iterdir()), ("a checked state's files left behind", sorted(scratch.iterdir())[:5])
