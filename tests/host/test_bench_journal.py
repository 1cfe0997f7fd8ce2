"""benchlib.Journal and run_all: a benchmark stopped part way keeps the runs it finished, and
--resume runs only the others, of the same context and code; what it keeps is what it ran."""
import json, os, sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tools", "bench"))
import benchlib  # noqa: E402


class Failed(Exception):
    pass


@pytest.fixture
def bench(tmp_path, monkeypatch):
    monkeypatch.setattr(benchlib, "BENCH", str(tmp_path))
    return tmp_path


def runs(jobs, journal, fail=(), parallel=2):
    """run_all over jobs with a job that returns its result and remembers that it ran."""
    ran = []

    def job(j):
        ran.append(j)
        if j in fail:
            raise Failed("run %s failed" % (j,))
        return dict(job=list(j), refused=j[0] == "slow")
    results, failures = benchlib.run_all("t", job, jobs, parallel, Failed, journal)
    return results, failures, sorted(ran, key=str)


def test_a_resumed_run_runs_only_the_jobs_the_journal_lacks_and_returns_all_in_order(bench):
    jobs = [(5, 0, 1), (5, 0, 2), (30, "adaptive", 1), (None, None, 1)]
    j = benchlib.Journal("t", dict(preset="paper"), resume=False, code="abc")
    results, failures, ran = runs(jobs[:2], j)      # a run that stopped after two jobs
    assert ran == sorted(jobs[:2], key=str) and not failures
    j = benchlib.Journal("t", dict(preset="paper"), resume=True, code="abc")
    results, failures, ran = runs(jobs, j)
    assert ran == sorted(jobs[2:], key=str)
    assert [r["job"] for r in results] == [list(x) for x in jobs]
    # Resumed again, nothing is left to run.
    results, _, ran = runs(jobs, benchlib.Journal("t", dict(preset="paper"), resume=True, code="abc"))
    assert ran == [] and [r["job"] for r in results] == [list(x) for x in jobs]


def test_other_code_a_dirty_tree_or_another_context_keeps_nothing(bench):
    jobs = [(5, 0, 1), (5, 0, 2)]
    runs(jobs, benchlib.Journal("t", dict(preset="paper"), resume=False, code="abc"))
    for context, code in ((dict(preset="paper"), "def"), (dict(preset="paper"), "abc-dirty"),
                          (dict(preset="matched"), "abc"), (dict(preset="paper", mem=12), "abc")):
        _, _, ran = runs(jobs, benchlib.Journal("t", context, resume=True, code=code))
        assert ran == sorted(jobs, key=str), (context, code)


def test_a_fresh_run_forgets_its_contexts_lines_and_keeps_the_others(bench):
    runs([(1,)], benchlib.Journal("t", dict(preset="paper"), resume=False, code="abc"))
    runs([(2,)], benchlib.Journal("t", dict(preset="matched"), resume=False, code="abc"))
    benchlib.Journal("t", dict(preset="paper"), resume=False, code="abc")       # started afresh
    assert benchlib.Journal("t", dict(preset="paper"), resume=True, code="abc").result((1,)) is None
    assert benchlib.Journal("t", dict(preset="matched"), resume=True, code="abc").result((2,)) == \
        dict(job=[2], refused=False)


def test_refused_and_failed_runs_are_run_again_and_a_cut_line_is_ignored(bench):
    jobs = [("slow", 1), ("ok", 1), ("bad", 1)]
    j = benchlib.Journal("t", {}, resume=False, code="abc")
    _, failures, _ = runs(jobs, j, fail=[("bad", 1)])
    assert failures == ["run ('bad', 1) failed"]
    with open(j.path, "a") as f:
        f.write('{"context": {}, "code": "abc", "job": ["ok", 2], "res')     # a stop mid-write
    keep = lambda r: not r["refused"]
    _, _, ran = runs(jobs + [("ok", 2)], benchlib.Journal("t", {}, resume=True, keep=keep, code="abc"))
    assert ran == [("bad", 1), ("ok", 2), ("slow", 1)]


def test_each_result_is_on_disk_as_its_run_ends(bench):
    j = benchlib.Journal("t", dict(preset="paper"), resume=False, code="abc")
    seen = []

    def job(n):
        with open(j.path) as f:
            seen.append(len(f.readlines()))
        return n
    benchlib.run_all("t", job, [(1,), (2,), (3,)], 1, Failed, j)
    assert seen == [0, 1, 2]
    with open(j.path) as f:
        assert [json.loads(x)["result"] for x in f] == [[1], [2], [3]]
