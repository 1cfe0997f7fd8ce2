"""The arbiter lab's grader (tools/lab/arbiter_grade.py) and a class of arbiters graded in one
command (tools/lab/grade.py --dir --lab arbiter, make grade DIR=... LAB=arbiter), host part: the
skeleton (global LRU) scores what global LRU scores on the replay; the reference, handed in as a
student's file, scores more; and every way a broken arbiter breaks the rules is reported as
itself with score 0, never as a crash of the grader: an answer that is no pool, a sleep, a hook
that never returns (stopped per call in CPU time, with the hook and the event it looped at), a simulator crashed by a null pointer, stdio.h and printf,
no file. The class is tests/host/data/arbiter_class/ and two made here from the skeleton and the
reference."""
import csv, os, re, shutil, subprocess, sys

import pytest

from leftovers import leftovers
from session_once import once

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLASS = os.path.join(ROOT, "tests", "host", "data", "arbiter_class")
GRADE = os.path.join(ROOT, "tools", "lab", "grade.py")
ARBITER_GRADE = os.path.join(ROOT, "tools", "lab", "arbiter_grade.py")
REFERENCE = os.path.join(ROOT, "kernel", "arbiter_reference.c")
TRACES = [os.path.join(ROOT, "traces", "negotiation", t + ".negtrace.gz") for t in ("ifs-p0", "ecd-p0")]

pytestmark = pytest.mark.skipif(not all(os.path.exists(t) for t in TRACES),
                                reason="no negotiation traces (tools/lab/record_negtraces.py)")


def renamed(path, old, new):
    with open(path) as f:
        return f.read().replace("arbiter_" + old, "arbiter_" + new).replace('"%s"' % old, '"%s"' % new)


def grade_class(d):
    shutil.copytree(CLASS, d / "class")
    os.makedirs(d / "class" / "alice")
    (d / "class" / "alice" / "arbiter_alice.c").write_text(
        renamed(os.path.join(ROOT, "docs", "lab", "arbiter_skeleton.c"), "mine", "alice"))
    if os.path.exists(REFERENCE):
        os.makedirs(d / "class" / "hugo")
        (d / "class" / "hugo" / "arbiter_hugo.c").write_text(renamed(REFERENCE, "reference", "hugo"))
    out = d / "out"
    # No --timeout: dave's loop is stopped per call, in CPU time, by the simulator itself.
    p = subprocess.run([sys.executable, GRADE, "--dir", str(d / "class"), "--lab", "arbiter",
                        "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout[-3000:]
    with open(out / "scores.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return rows, out, d, leftovers(d / "class", "arbitersim")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return once(tmp_path_factory, "grade-arbiter-class", grade_class)


def single(name, path):
    p = subprocess.run([sys.executable, ARBITER_GRADE, name, "--file", str(path), "--host-only"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    m = re.search(r"^grade: %s: (correct|incorrect), score (\d+)/100$" % name, p.stdout, re.M)
    assert m, p.stdout[-2000:]
    return p, m


def test_every_student_has_a_line_and_a_report(graded):
    rows, out, _, _ = graded
    want = ["alice", "bob", "carol", "dave", "erin", "frank", "gina"] + (["hugo"] if os.path.exists(REFERENCE) else [])
    assert sorted(rows) == want, rows
    for st in rows:
        assert (out / (st + ".txt")).read_text().strip(), st


def test_the_skeleton_scores_what_global_lru_scores(graded):
    """The skeleton is global LRU: on each trace it makes lru's decisions, so its replay score is
    lru's, and the single grader gives the same as the class's."""
    rows, out, d, _ = graded
    assert rows["alice"]["status"] == "correct", rows["alice"]
    p, m = single("alice", d / "class" / "alice" / "arbiter_alice.c")
    assert int(m.group(2)) == int(rows["alice"]["score"]), (m.group(0), rows["alice"])
    for trace in ("ifs-p0", "ecd-p0"):
        lines = re.findall(r"^(alice|lru)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)$",
                           p.stdout.split(trace + ".negtrace.gz:", 1)[1], re.M)[:2]
        assert len(lines) == 2 and lines[0][1:] == lines[1][1:], lines


@pytest.mark.skipif(not os.path.exists(REFERENCE), reason="the students' tree has no reference arbiter")
def test_the_reference_handed_in_scores_more_than_the_skeleton(graded):
    rows, _, _, _ = graded
    assert rows["hugo"]["status"] == "correct", rows["hugo"]
    assert int(rows["hugo"]["score"]) >= int(rows["alice"]["score"]) + 20, (rows["hugo"], rows["alice"])


@pytest.mark.parametrize("student,status,why", [
    ("bob", "incorrect", r"arbiter bob answered 7 at .*: decide must answer NEG_FS \(0\) or NEG_VM \(1\)"),
    ("carol", "rule broken", r"calls usleep, which an arbiter may not"),
    ("dave", "time limit", r"^arbitersim: arbiter dave on \S+\.negtrace\.gz: its decide hook did not return within "
                           r"1000 ms of CPU time, at event \d+ of \d+: a hook that loops"),
    ("erin", "crashed the simulator", r"the run of erin on .* died \(signal 11"),
    ("frank", "rule broken", r"includes stdio.h.*calls (puts|printf)"),
    ("gina", "no submission", r"0 files match arbiter_\*\.c"),
])
def test_a_broken_arbiter_scores_0_and_says_why(graded, student, status, why):
    rows, _, _, _ = graded
    r = rows[student]
    assert r["status"] == status and r["score"] == "0", r
    assert re.search(why, r["reason"]), r


def test_no_process_of_the_grade_is_left_running(graded):
    assert graded[3] == [], graded[3]


def which_grade(*args):
    sys.path.insert(0, os.path.join(ROOT, "tools", "lab"))
    import arbiter_grade
    return arbiter_grade.which_grade(*args)


def test_when_the_replay_and_the_kernel_rank_alike_the_report_says_so():
    lines = which_grade("amy", {"amy": 80, "lru": 10, "p120": 40, "reference": 90},
                        {"amy": 70, "penalty 0 s": 20, "penalty 120 s": 50, "reference": 90})
    assert lines == ["grade: ranking by the replay's score: reference > amy > penalty 120 s > penalty 0 s; by the "
                     "kernel pass's "
                     "points: reference > amy > penalty 120 s > penalty 0 s",
                     "grade: they agree; the grade is the kernel pass's points"], lines


def test_when_they_disagree_the_report_says_which_is_the_grade_and_why():
    """amy beats the 120 s penalty on the replay's proxy and loses to it in the kernel; the
    students' tree replays no reference, so it is ranked on neither side."""
    lines = which_grade("amy", {"amy": 60, "lru": 10, "p120": 40},
                        {"amy": 30, "penalty 0 s": 20, "penalty 120 s": 50, "reference": 90})
    assert lines[0] == ("grade: ranking by the replay's score: amy > penalty 120 s > penalty 0 s; by the kernel "
                        "pass's points: "
                        "penalty 120 s > amy > penalty 0 s"), lines
    assert lines[1].startswith("grade: they disagree; the grade is the kernel pass's points, not the replay's "
                               "score: the kernel pass measures what the arbiter did to the programs"), lines
