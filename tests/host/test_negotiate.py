"""The negotiation's decision (kernel/negotiate_rule.c), compiled unchanged into
build/tests/test_negotiate and driven through ties, refusals, both penalty modes."""
import os, subprocess

BIN = os.path.join(os.path.dirname(__file__), "..", "..", "build", "tests", "test_negotiate")


def test_negotiation_decides_as_specified():
    assert os.path.exists(BIN), "build/tests/test_negotiate is missing: run make first"
    p = subprocess.run([BIN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    assert "all passed" in p.stdout
