"""The replacement policies (vm/policy_*.c), compiled unchanged into build/tests/test_policy,
on hand-made reference patterns (see tests/host/test_policy.c)."""
import os, subprocess

BIN = os.path.join(os.path.dirname(__file__), "..", "..", "build", "tests", "test_policy")


def test_policies_choose_as_specified():
    assert os.path.exists(BIN), "build/tests/test_policy is missing: run make first"
    p = subprocess.run([BIN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    assert "all passed" in p.stdout
