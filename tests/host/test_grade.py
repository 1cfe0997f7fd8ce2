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
    """{trace: score or None (shown, not scored)} from the grader's summary table, and the final score."""
    rows = dict((m.group(1), None if m.group(2) == "-" else int(m.group(2))) for m in
                re.finditer(r"^(\S+\.trace(?:\.gz)?)(?:\s+\d+){5,6}\s+(\d+|-)$", out, re.M))
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


SESSION = os.path.join(ROOT, "traces", "session.trace.gz")


@pytest.mark.skipif(not SOLUTION, reason="the students' tree has no model solution")
def test_skeleton_and_solution_are_correct_and_the_solution_scores_more():
    """On the workstation session, the total's trace: the skeleton (round robin, FIFO's score)
    and the model solution (aging, an LRU's)."""
    sk = grade("mine", "--file", os.path.join(ROOT, "docs", "lab", "policy_skeleton.c"), "--traces", SESSION)
    sol = grade("aging", "--traces", SESSION)
    for p in (sk, sol):
        assert p.returncode == 0 and "INCORRECT" not in p.stdout, p.stdout[-3000:]
    _, fsk = scores(sk.stdout)
    _, fsol = scores(sol.stdout)
    assert fsk.group(1) == fsol.group(1) == "correct"
    assert int(fsol.group(2)) >= int(fsk.group(2)) + 15, (fsk.group(0), fsol.group(0))


SMALL = [os.path.join(ROOT, "traces", t) for t in ("forktree.trace", "sort.trace", "toucher.trace")]


def test_the_score_rule_random_is_0_and_a_trace_without_a_gap_is_not_scored():
    """The scale runs from random replacement (0) to MIN (100); forktree, nearly all first
    touches (random within 5 % of MIN), is shown but not scored."""
    p = grade("random", "--traces", *SMALL)
    assert p.returncode == 0, p.stdout[-2000:]
    rows, final = scores(p.stdout)
    assert set(rows) == {"forktree.trace", "sort.trace", "toucher.trace"}, p.stdout[-2000:]
    assert rows["forktree.trace"] is None, rows
    assert rows["sort.trace"] == rows["toucher.trace"] == 0, rows
    assert final.groups() == ("correct", "0"), final.group(0)


def test_on_loops_lru_and_clock_score_0_and_a_loop_detector_more():
    """sort and the toucher go round loops larger than most memories: LRU and clock throw out the
    page wanted next, as Hagmann said of periodic work, and do no better than random; SPT, which
    finds periods, does."""
    got = {}
    for pol in ("clock", "lru", "spt"):
        p = grade(pol, "--traces", *SMALL[1:])
        assert p.returncode == 0, p.stdout[-2000:]
        got[pol] = scores(p.stdout)[0]
    assert got["clock"]["toucher.trace"] == got["lru"]["toucher.trace"] == 0, got
    assert got["spt"]["toucher.trace"] >= 50, got


def test_an_unknown_policy_is_one_line():
    p = grade("nosuchpolicy")
    assert p.returncode == 2 and p.stdout.count("\n") == 1 and "no policy nosuchpolicy" in p.stdout, p.stdout


def test_on_the_session_clock_lands_between_random_and_lru():
    """Where the literature puts clock (Hagmann 1991: a little worse than LRU, much better than
    random), measured on the workstation session, not set by the rule: random 0 <= fifo < clock
    <= lru < spt < MIN's 100. FIFO is level with random summed over the sizes (ahead of it at the
    large ones, behind at the small), once the pages of ended processes leave as in the kernel."""
    got = {}
    for pol in ("fifo", "clock", "lru", "spt"):
        p = grade(pol, "--traces", SESSION)
        assert p.returncode == 0, p.stdout[-2000:]
        rows, final = scores(p.stdout)
        assert "the total is the score on session" in p.stdout, p.stdout[-1000:]
        got[pol] = int(final.group(2))
        assert rows["session.trace.gz"] == got[pol], (rows, final.group(0))
    assert 0 <= got["fifo"] < got["clock"] <= got["lru"] < got["spt"] < 100, got


def test_the_report_says_the_score_is_the_grade_whether_or_not_the_kernel_agrees():
    sys.path.insert(0, os.path.join(ROOT, "tools", "lab"))
    import grade as g
    assert g.which_grade(True).startswith("grade: compare: the grade is the simulator's score; the kernel's ranking "
                                          "agrees with it"), g.which_grade(True)
    assert g.which_grade(False).startswith("grade: compare: the rankings disagree; the grade is the simulator's "
                                           "score, not the kernel's ranking: the simulator replays the same "
                                           "references for every policy"), g.which_grade(False)


def test_the_anchors_are_measured_once_and_kept_as_measured(tmp_path):
    """The anchors' runs (clock, LRU, FIFO, random) are kept per simulator and trace: a grade
    with them kept prints what one that measured them printed, and what is kept is what is read
    (a kept count changed by hand shows in the next grade). On a trace of the test's own, so that
    no other test reads the changed count."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "lab"))
    import grade as g
    t = tmp_path / "own.trace"
    t.write_text("# trace epoch_ms=100\n" + "".join("%d 1 %d 1 0\n" % (e, (e * 7) % 90 + (e // 50)) for e in range(900)))
    base = g.anchor_cache(str(t))
    for ext in (".csv", ".txt"):
        if os.path.exists(base + ext):
            os.unlink(base + ext)
    table = lambda p: [l for l in p.stdout.splitlines() if l.startswith("own.trace ")]
    first = grade("random", "--traces", str(t))
    assert first.returncode == 0 and os.path.exists(base + ".csv"), first.stdout[-2000:]
    again = grade("random", "--traces", str(t))
    assert table(first) == table(again) and len(table(first)) == 1, (table(first), table(again))
    with open(base + ".csv") as f:
        text = f.read()
    rows = text.splitlines()
    i = next(k for k, r in enumerate(rows) if ",clock," in r)
    cols = rows[i].split(",")
    cols[6] = str(int(cols[6]) + 1000)          # faults
    rows[i] = ",".join(cols)
    with open(base + ".csv", "w") as f:
        f.write("\n".join(rows) + "\n")
    changed = grade("random", "--traces", str(t))
    os.unlink(base + ".csv")
    clock = lambda p: int(table(p)[0].split()[3])     # trace, MIN, fifo, clock: the column of clock
    assert clock(changed) == clock(first) + 1000, (table(first), table(changed))
