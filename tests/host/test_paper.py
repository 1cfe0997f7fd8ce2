"""make paper (tools/bench/paper.py): which benchmarks may share the host, the estimate of time left,
and a run of stand-in benchmarks (small scripts) that shows the progress lines, the saved times,
and that a failure names the benchmark, exits non-zero and leaves the documents alone."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import paper  # noqa: E402


def bench(name, exact, seconds=10, **kw):
    return paper.Bench(name, name + ".py", "a paper", exact, ([], {}), (["--all"], {}),
                       {"short": seconds, "full": seconds * 10}, **kw)


def test_exact_benchmarks_run_beside_the_timed_ones_only_with_two_cores():
    a, b, c = bench("a", False), bench("b", True), bench("c", False)
    assert paper.schedule([a, b, c], 1) == [[a, c, b]]
    assert paper.schedule([a, b, c], 2) == [[a, c], [b]]
    assert paper.schedule([b], 2) == [[b]]


def test_time_left_is_the_longest_lane():
    a, b, c = bench("a", False), bench("b", True), bench("c", False)
    lanes = [[a, c], [b]]
    expected = {"a": 100, "b": 150, "c": 80}
    assert paper.left(lanes, set(), expected, {}, 0) == 180
    # a ran 30 s of its 100; b is done
    assert paper.left(lanes, {"b"}, expected, {"a": 0}, 30) == 150
    # a running over its estimate counts as none left, not less than none
    assert paper.left(lanes, {"b"}, expected, {"a": 0}, 500) == 80


def test_a_benchmark_gets_its_presets_arguments_and_minus_j_only_if_it_takes_one():
    plain, parallel = bench("p", False), bench("q", False, jobs_flag=True)
    assert plain.command("short", 3)[0][2:] == []
    assert plain.command("full", 3)[0][2:] == ["--all"]
    assert parallel.command("full", 3)[0][2:] == ["--all", "-j", "3"]


@pytest.fixture
def stand_ins(tmp_path, monkeypatch):
    """paper.py over scripts in tmp_path: ok.py prints a progress line, bad.py exits 3."""
    (tmp_path / "ok.py").write_text("print('ok [1/1] working')\n")
    (tmp_path / "bad.py").write_text("import sys\nprint('bad [1/1] trying')\nsys.exit(3)\n")
    (tmp_path / "results.py").write_text("import sys\nopen(%r, 'w').write(' '.join(sys.argv[1:]))\n"
                                         % str(tmp_path / "results-ran"))
    monkeypatch.setattr(paper, "HERE", str(tmp_path))
    monkeypatch.setattr(paper, "bench_path", lambda name: str(tmp_path / "bench" / name))
    os.makedirs(tmp_path / "bench", exist_ok=True)
    monkeypatch.setattr(paper, "BENCHES", [bench("ok", True), bench("bad", False)])
    return tmp_path


def run(monkeypatch, *args):
    monkeypatch.setattr(sys, "argv", ["paper.py"] + list(args))
    try:
        paper.main()
    except SystemExit as e:
        return e.code
    return 0


def test_a_run_reports_progress_saves_times_and_writes_the_docs_partially(stand_ins, monkeypatch, capsys):
    assert run(monkeypatch, "--only", "ok", "-j", "2") == 0
    out = capsys.readouterr().out
    assert "paper: ok started (a paper; about 10 s left in all)" in out, out
    assert "  ok| ok [1/1] working" in out, out
    assert "paper: ok done in" in out and "(1 of 1; about 0 s left)" in out, out
    assert "ok,short," in (stand_ins / "bench" / "paper-times.csv").read_text()
    assert (stand_ins / "results-ran").read_text() == "--partial"
    assert (stand_ins / "bench" / "paper-logs" / "ok.log").read_text() == "ok [1/1] working\n"


def test_a_failed_benchmark_is_named_and_the_docs_are_left_alone(stand_ins, monkeypatch, capsys):
    code = run(monkeypatch, "--preset", "full")
    out = capsys.readouterr().out
    assert "paper: bad FAILED (exit 3" in out and "paper-logs/bad.log" in out, out
    assert "ok done" in out, out          # the other lane ran to its end
    assert code == "paper: bad failed; docs/ left as they were"
    assert not (stand_ins / "results-ran").exists()


def test_unknown_names_and_bad_jobs_are_refused(stand_ins, monkeypatch):
    assert run(monkeypatch, "--only", "ok,nosuch") == "paper: no benchmark nosuch (there are: ok, bad)"
    assert run(monkeypatch, "-j", "0") == "paper: -j must be at least 1"


def test_rough_durations_and_the_estimate_line(capsys, monkeypatch):
    assert [paper.rough(s) for s in (60, 1500, 3600, 6300, 6400, 36000, 73200)] == [
        "5 minutes", "25 minutes", "1 h", "1 h 45 min", "1 h 45 min", "10 hours", "20 hours"]
    # The presets' first estimates, the lanes of -j 2: the longest lane is what the whole waits for.
    monkeypatch.setattr(paper, "BENCHES", [bench("a", True, 600), bench("b", False, 3000), bench("c", False, 3300)])
    assert paper.estimate("short") == 6300
    monkeypatch.setattr(sys, "argv", ["paper.py", "--estimate"])
    paper.main()
    assert capsys.readouterr().out == "short preset about 1 h 45 min on 2 cores, full about 18 hours\n"


def test_resume_skips_what_ended_well_on_this_code_and_tells_ifs_to_keep_its_runs(stand_ins, monkeypatch, capsys):
    """--resume: a benchmark whose last run in this preset ended well on this commit (of a clean
    tree) is not run again; one that failed, or ran on another commit, is; a benchmark that
    keeps its own runs (IFS's) is given --resume; on a dirty tree nothing counts as done."""
    monkeypatch.setattr(paper, "tree_commit", lambda: "abc")
    assert run(monkeypatch, "--preset", "full") != 0           # ok ends well, bad fails
    capsys.readouterr()
    assert "ok,full," in (stand_ins / "bench" / "paper-times.csv").read_text()
    assert paper.done_at("full", "abc") == {"ok"} and paper.done_at("full", "other") == set()
    assert paper.done_at("full", "abc-dirty") == set()
    run(monkeypatch, "--preset", "full", "--resume")
    out = capsys.readouterr().out
    assert "paper: --resume: ok done on this code (abc), not run again" in out, out
    assert "ok started" not in out and "bad started" in out, out
    keeps = bench("k", False, resume_flag=True)
    assert keeps.command("full", 2, resume=True)[0][2:] == ["--all", "--resume"]
    assert keeps.command("full", 2)[0][2:] == ["--all"]
    assert bench("p", False).command("full", 2, resume=True)[0][2:] == ["--all"]


def test_every_benchmark_longer_than_a_session_hour_resumes_point_by_point():
    """A session ends without warning: a benchmark of the full preset that takes more than an
    hour keeps its finished runs in a journal and is given --resume, so a stop costs at most the
    runs it was in (the short ones start again)."""
    long = [b for b in paper.BENCHES if b.estimate["full"] > 3600]
    assert {b.name for b in long} >= {"bench-ifs", "bench-ecd", "bench-linux", "bench-linux-paper"}
    for b in long:
        with open(os.path.join(os.path.dirname(paper.__file__), b.script)) as f:
            text = f.read()
        assert b.resume_flag and '"--resume"' in text and "Journal(" in text and "journal)" in text, b.name
