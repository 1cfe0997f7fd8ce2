"""The host C tests that check themselves: each tests/host/test_NAME.c whose program prints
"all passed" is run here (its sources, named on its "host-test:" line, are the very files the
kernel compiles: the policies, the negotiation's rule, the shadow tables). A new C test is one
file: the Makefile builds it from that line and this module finds it. The others (test_layout,
test_linecmp) are tools another test drives (test_mkfs.py, test_linecmp.py)."""
import os
import subprocess

import pytest

from conftest import ROOT

SELF_CHECKING = sorted(p.stem for p in (ROOT / "tests" / "host").glob("test_*.c") if "all passed" in p.read_text())


def test_the_self_checking_programs_are_found():
    assert {"test_policy", "test_negotiate", "test_shadow"} <= set(SELF_CHECKING), SELF_CHECKING


@pytest.mark.parametrize("name", SELF_CHECKING)
def test_the_c_program_passes(name):
    binary = ROOT / "build" / "tests" / name
    assert binary.exists(), "%s is missing: run make test-build first" % os.path.relpath(binary, ROOT)
    p = subprocess.run([str(binary)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    assert "all passed" in p.stdout, p.stdout
