"""A short soak (tools/fuzz/soak.py): every workload at once on one machine for 35 s,
then its checks (no panic, every job's status 0, audit and fsck clean, frames, backing and
disk blocks back to the baseline, settings unchanged). make soak runs the long one."""
import os, sys
from conftest import ROOT, LOGS

sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import soak  # noqa: E402


def test_short_soak(capsys):
    LOGS.mkdir(parents=True, exist_ok=True)
    rc, out, rounds = soak.soak(35, calls=1500, log=str(LOGS / "test_soak.log"))
    printed = capsys.readouterr().out
    assert rc == 0 and rounds >= 2, printed
    assert "soak: PASS" in printed, printed
