"""make lab-release LAB=arbiter, without building (release.py --no-check, seconds): the students'
tree has no reference arbiter, the skeleton takes its place in the kernel's table and its
extern, and nothing else of the tree changes. (The build and the lab's tests in that tree are
release.py's own check, run by make lab-release.) Skipped in a students' tree, which has no
solution to leave out."""
import filecmp, os, subprocess, sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "kernel", "arbiter_reference.c")),
                                reason="a students' tree: no solution to leave out")


def test_the_arbiter_lab_s_tree_has_the_skeleton_in_the_reference_s_place(tmp_path):
    out = tmp_path / "tree"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab", "release.py"), "--lab", "arbiter", "--out",
                        str(out), "--no-check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert p.returncode == 0, p.stdout
    assert not (out / "kernel" / "arbiter_reference.c").exists()
    assert filecmp.cmp(out / "kernel" / "arbiter_mine.c", os.path.join(ROOT, "docs", "lab", "arbiter_skeleton.c"),
                       shallow=False)
    table = (out / "kernel" / "arbiters.c").read_text()
    assert "&arbiter_mine," in table and "arbiter_reference" not in table
    header = (out / "kernel" / "arbiter.h").read_text()
    assert "extern const struct arbiter arbiter_mine;" in header and "arbiter_reference" not in header
    # The rest is the tree as it is: the replacement lab's solution stays, and so do the traces.
    assert (out / "vm" / "policy_aging.c").exists() and (out / "traces" / "negotiation" / "ifs-p0.negtrace.gz").exists()
    assert filecmp.cmp(out / "kernel" / "negotiate_rule.c", os.path.join(ROOT, "kernel", "negotiate_rule.c"), shallow=False)
