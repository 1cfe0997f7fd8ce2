"""The replacement lab's grader (tools/lab/grade.py), its simulator half (--host-only): wrong
policies are failed whatever their fault counts, the skeleton and the model solution are
correct and scored by the rule the handout states, and the solution beats the skeleton."""
import os, re, subprocess, sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAD = os.path.join(ROOT, "tests", "host", "data", "bad_policies.c")
# The students' tree (make lab-release) has no model solution.
SOLUTION = os.path.exists(os.path.join(ROOT, "vm", "policy_aging.c"))


def grade(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab", "grade.py"), "--host-only"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)


def scores(out):
    """{trace: score} from the grader's summary table, and the final score."""
    rows = dict((m.group(1), int(m.group(2))) for m in
                re.finditer(r"^(\S+\.trace)(?:\s+\d+){4}\s+(\d+)$", out, re.M))
    final = re.search(r"^grade: \S+: (correct|incorrect), score (\d+)/100$", out, re.M)
    return rows, final


@pytest.mark.parametrize("name,why", [
    ("badwired", "which is wired"),
    ("badbusy", "which is busy"),
    ("badnone", "which is none, though there were candidates"),
], ids=["wired", "busy", "none"])
def test_a_policy_choosing_a_frame_it_may_not_is_incorrect(name, why):
    p = grade(name, "--file", BAD)
    assert p.returncode == 1, p.stdout[-3000:]
    assert re.search(r"^grade: INCORRECT: error: policy %s chose frame -?\d+, %s" % (name, why), p.stdout, re.M), p.stdout[-3000:]
    _, final = scores(p.stdout)
    assert final and final.groups() == ("incorrect", "0"), p.stdout[-2000:]


@pytest.mark.skipif(not SOLUTION, reason="the students' tree has no model solution")
def test_skeleton_and_solution_are_correct_and_the_solution_scores_more():
    sk = grade("mine", "--file", os.path.join(ROOT, "docs", "lab", "policy_skeleton.c"))
    sol = grade("aging")
    for p in (sk, sol):
        assert p.returncode == 0 and "INCORRECT" not in p.stdout, p.stdout[-3000:]
    _, fsk = scores(sk.stdout)
    _, fsol = scores(sol.stdout)
    assert fsk.group(1) == fsol.group(1) == "correct"
    assert int(fsol.group(2)) >= int(fsk.group(2)) + 15, (fsk.group(0), fsol.group(0))


def test_the_score_rule_clock_is_50_min_would_be_100():
    p = grade("clock")
    assert p.returncode == 0, p.stdout[-2000:]
    rows, final = scores(p.stdout)
    assert rows, p.stdout[-2000:]
    for trace, s in rows.items():
        # 50 wherever clock is more than 5 % over MIN, more where the 5 % floor applies
        assert s >= 50, (trace, s)
    assert any(s == 50 for s in rows.values()), rows


def test_an_unknown_policy_is_one_line():
    p = grade("nosuchpolicy")
    assert p.returncode == 2 and p.stdout.count("\n") == 1 and "no policy nosuchpolicy" in p.stdout, p.stdout
