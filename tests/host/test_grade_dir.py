"""The instructor's grader of a whole class (tools/lab/grade.py --dir, make grade DIR=...): one
directory per student; a good submission scored as the single grader scores it, and every way
a broken one breaks the rules reported as itself, never as a crash of the grader: a wired frame
chosen, a sleep under the VM lock, a hook that never returns (stopped by the simulator after a second of CPU time in one call,
with the hook and the reference it looped at; and no process of the grade left running), a simulator
crashed by a null pointer, an #include of stdio.h and a printf, no file at all. The class is
tests/host/data/class/ and alice, who hands in clock's policy file renamed (the skeleton, round
robin, scores 0 on the session, as FIFO does, and a score above 0 says the grader read one),
graded on sort and the session (the total's trace)."""
import csv, os, re, shutil, subprocess, sys

import pytest

from leftovers import leftovers
from session_once import once

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLASS = os.path.join(ROOT, "tests", "host", "data", "class")
TRACES = [os.path.join(ROOT, "traces", t) for t in ("sort.trace", "session.trace.gz")]
GRADE = os.path.join(ROOT, "tools", "lab", "grade.py")


def grade_class(d):
    shutil.copytree(CLASS, d / "class")
    os.makedirs(d / "class" / "alice")
    with open(os.path.join(ROOT, "vm", "policy_clock.c")) as f:
        text = f.read().replace("policy_clock", "policy_alice").replace('"clock"', '"alice"')
    (d / "class" / "alice" / "policy_alice.c").write_text(text)
    out = d / "out"
    # No --timeout: dave's loop is stopped per call, in CPU time, by the simulator itself; the
    # wall-clock backstop (an hour) is never reached, however loaded the machine.
    p = subprocess.run([sys.executable, GRADE, "--dir", str(d / "class"), "--out", str(out),
                        "--traces"] + TRACES, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout[-3000:]
    with open(out / "scores.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return rows, out, text, p.stdout, leftovers(d / "class", "tracesim")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return once(tmp_path_factory, "grade-class", grade_class)


def test_every_student_has_a_line_and_a_report(graded):
    rows, out, _, _, _ = graded
    assert sorted(rows) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina"], rows
    for st in rows:
        assert (out / (st + ".txt")).read_text().strip(), st


def test_a_good_submission_scores_as_the_single_grader_scores_it(graded, tmp_path):
    rows, out, text, _, _ = graded
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
    ("dave", "time limit", r"^tracesim: policy dave on sort\.trace at \d+ frames: its choose hook did not return "
                           r"within 1000 ms of CPU time, at reference \d+ of 1747: a hook that loops"),
    ("erin", "crashed the simulator", r"the run of erin on .* died \(signal 11"),
    ("frank", "rule broken", r"includes stdio.h.*calls (puts|printf)"),
    ("gina", "no submission", r"0 files match policy_\*\.c"),
])
def test_a_broken_submission_scores_0_and_says_why(graded, student, status, why):
    rows, out, _, _, _ = graded
    r = rows[student]
    assert r["status"] == status and r["score"] == "0", r
    assert re.search(why, r["reason"]), r


def test_no_process_of_the_grade_is_left_running(graded):
    """dave's simulator loops forever in its hook: once the grade is done, neither it nor any
    other process that graded the class may still be running."""
    assert graded[4] == [], graded[4]


def test_the_console_gives_each_reason_whole(graded):
    rows, _, _, console, _ = graded
    for st, r in rows.items():
        assert r["reason"] in console, (st, r["reason"])
    assert len(rows["dave"]["reason"]) > 120, rows["dave"]
