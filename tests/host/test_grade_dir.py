"""The instructor's grader of a whole class (tools/lab/grade.py --dir, make grade DIR=...): one
directory per student; a good submission scored as the single grader scores it, and every way
a broken one breaks the rules reported as itself, never as a crash of the grader: a wired frame
chosen, a sleep under the VM lock, a hook that never returns (the time limit), a simulator
crashed by a null pointer, an #include of stdio.h and a printf, no file at all. The class is
tests/host/data/class/ and alice, who hands in clock's policy file renamed (the skeleton, round
robin, scores 0 on the session, as FIFO does, and a score above 0 says the grader read one),
graded on sort and the session (the total's trace)."""
import csv, os, re, shutil, subprocess, sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLASS = os.path.join(ROOT, "tests", "host", "data", "class")
TRACES = [os.path.join(ROOT, "traces", t) for t in ("sort.trace", "session.trace.gz")]
GRADE = os.path.join(ROOT, "tools", "lab", "grade.py")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    d = tmp_path_factory.mktemp("class")
    shutil.copytree(CLASS, d / "class")
    os.makedirs(d / "class" / "alice")
    with open(os.path.join(ROOT, "vm", "policy_clock.c")) as f:
        text = f.read().replace("policy_clock", "policy_alice").replace('"clock"', '"alice"')
    (d / "class" / "alice" / "policy_alice.c").write_text(text)
    out = d / "out"
    p = subprocess.run([sys.executable, GRADE, "--dir", str(d / "class"), "--timeout", "15", "--out", str(out),
                        "--traces"] + TRACES, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:]
    with open(out / "scores.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return rows, out, text


def test_every_student_has_a_line_and_a_report(graded):
    rows, out, _ = graded
    assert sorted(rows) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina"], rows
    for st in rows:
        assert (out / (st + ".txt")).read_text().strip(), st


def test_a_good_submission_scores_as_the_single_grader_scores_it(graded, tmp_path):
    rows, out, text = graded
    assert rows["alice"]["status"] == "correct", rows["alice"]
    f = tmp_path / "policy_alice.c"
    f.write_text(text)
    p = subprocess.run([sys.executable, GRADE, "alice", "--file", str(f), "--host-only", "--traces"] + TRACES,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    m = re.search(r"^grade: alice: correct, score (\d+)/100$", p.stdout, re.M)
    assert m, p.stdout[-2000:]
    assert int(rows["alice"]["score"]) == int(m.group(1)) > 0, (rows["alice"], m.group(0))
    assert "score %s/100" % rows["alice"]["score"] in (out / "alice.txt").read_text()


@pytest.mark.parametrize("student,status,why", [
    ("bob", "incorrect", r"policy bob chose frame \d+, which is wired"),
    ("carol", "rule broken", r"calls usleep, which a policy may not"),
    ("dave", "time limit", r"not done in 15 s"),
    ("erin", "crashed the simulator", r"the run of erin on .* died \(signal 11"),
    ("frank", "rule broken", r"includes stdio.h.*calls (puts|printf)"),
    ("gina", "no submission", r"0 files match policy_\*\.c"),
])
def test_a_broken_submission_scores_0_and_says_why(graded, student, status, why):
    rows, out, _ = graded
    r = rows[student]
    assert r["status"] == status and r["score"] == "0", r
    assert re.search(why, r["reason"]), r
