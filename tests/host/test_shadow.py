"""The shadow tables of pages given up (kernel/shadow.c), compiled unchanged into
build/tests/test_shadow: distances, bounds, entries aged out."""
import os, subprocess

BIN = os.path.join(os.path.dirname(__file__), "..", "..", "build", "tests", "test_shadow")


def test_shadow_tables_remember_bounded_and_age_out():
    assert os.path.exists(BIN), "build/tests/test_shadow is missing: run make first"
    p = subprocess.run([BIN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    assert "all passed" in p.stdout
