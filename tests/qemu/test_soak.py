"""A short soak (tools/fuzz/soak.py): every workload at once on one machine for ROUNDS rounds,
then its checks (no panic, every job's status 0, audit and fsck clean, frames, backing and
disk blocks back to the baseline, settings unchanged). make soak runs the long one.

A count of rounds, not of seconds: each round is the same work (a sort, 3 x 1,500 fuzzed
calls, a fork tree that execs, an fsstress run, all at once beside the toucher) on any host,
where 35 s of soak ran 42 rounds on an idle one and half that beside a CPU hog. Ten rounds
hold 40 jobs' leaks to the baseline checks (an exec leaking one page leaks dozens)."""
import os, sys
from conftest import ROOT, LOGS

sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import soak  # noqa: E402

ROUNDS = 10


def test_short_soak(capsys):
    LOGS.mkdir(parents=True, exist_ok=True)
    rc, out, rounds = soak.soak(rounds=ROUNDS, calls=1500, log=str(LOGS / "test_soak.log"))
    printed = capsys.readouterr().out
    assert rc == 0 and rounds == ROUNDS, printed
    assert "soak: PASS" in printed, printed
