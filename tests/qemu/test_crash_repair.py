"""The kernel's own repair in the loop (tools/crash/repaircompare.py), on a short recorded mix:
one crash state of every kind, torn multi-block requests included, repaired by the kernel booted
in QEMU and by the host build of its mount (build/tests/kfs), both checked by the oracle and
compared (`make crashtest` compares a larger sample of every recording).

The kernel sends one block per request, but QEMU merges neighbouring ones into a single NBD
write: the recording's log holds requests of several blocks, and the torn states tear them at
each block (tools/crash/crashstates.py)."""
import sys, time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "crash"))
import crashcheck, crashrec, repaircompare  # noqa: E402

SEED = 11


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    d = tmp_path_factory.mktemp("rec") / "mix"
    crashrec.record("mix", 3, SEED, d)
    return d


def test_a_recorded_log_holds_multi_block_requests_torn_at_each_block(recording):
    c = crashcheck.Checker(str(recording))
    multi = [(first, n) for first, n in c.rec.requests if n >= 2]
    assert multi, "no request of two or more blocks in the log: %s" % c.rec.requests
    states = c.states(SEED, 8, targeted=True)
    torn = {(m, tuple(o)) for k, m, o in states if k in ("torn", "torn-subset", "drop")}
    first, n = max(multi, key=lambda r: r[1])
    m = next(m for m in range(len(c.rec.flush_pieces) + 1) if c.rec.epoch(m)[0] <= first < c.rec.epoch(m)[1])
    lo, hi = c.rec.epoch(m)
    for k in range(n):          # cut after each block, and each block alone missing
        cut = set(range(first + k, first + n))
        assert (m, tuple(j for j in range(lo, hi) if j not in cut)) in torn, (k, n)
        assert (m, tuple(j for j in range(lo, hi) if j != first + k)) in torn, (k, n)


def test_the_kernels_repair_is_the_host_builds(recording, tmp_path):
    """One state of each kind: the same file system after either repair, and the oracle's
    checks pass on both. A difference keeps the three images under tmp_path/kept."""
    t0 = time.time()
    log = []
    res = repaircompare.run(recording, SEED, 8, True, 1, keep=tmp_path / "kept", log=log.append)
    report = "\n".join(log + [repaircompare.summary(res, time.time() - t0)])
    kinds = {r["kind"] for r in res}
    assert {"flush", "prefix", "subset", "end", "drop", "torn"} <= kinds, report
    assert not [r for r in res if r["differences"] or r["host_violations"] or r["qemu_violations"]], report
    repaired = [r for r in res if r["repair"].startswith("fs: repaired")]
    assert len(repaired) >= 3, report       # most states need a repair: it is what is compared
    assert all(r["swap"]["files"] for r in res), report     # the booted kernel's own, left out
