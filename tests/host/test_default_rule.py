"""The arbiter's default by its written rule (tools/bench/default_rule.py), on made-up rows of
the paper preset: adaptive behind the fixed penalty on the toucher keeps fixed; adaptive level
on the toucher and ahead on sort, its targets met and its control failing them, earns the
place; level everywhere keeps fixed; a point missing or of one run decides nothing."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import bench_ifs, default_rule  # noqa: E402


def row(**kw):
    base = {k: "" for k in bench_ifs.COLUMNS}
    base.update(preset="paper", kind="ifs", mechanism="ours", fs_asks_vm="100", toucher_pageouts="0", rounds="3",
                resp_min_ms="5", after_pageins="0", pageins="0", pageouts="0")
    base.update({k: str(v) for k, v in kw.items()})
    return base


def rows(adaptive_touch=(6, 6, 6), adaptive_sort=(97000, 97500, 98000), adaptive_ins=(0, 0, 0), runs=3,
         points=(5, 30)):
    out = [row(kind="standalone", interval_s="", penalty_s="", mode="", sort_ms=76000, run=k) for k in (1, 2, 3)]
    for s in points:
        for k in range(runs):
            out.append(row(interval_s=s, penalty_s=120, mode="fixed", run=k + 1, sort_ms=100000 + 100 * k,
                           resp_max_ms=6, after_ms=6, toucher_pageins=0))
            out.append(row(interval_s=s, penalty_s=0, mode="adaptive", run=k + 1, sort_ms=adaptive_sort[k],
                           resp_max_ms=adaptive_touch[k], after_ms=6, toucher_pageins=adaptive_ins[k]))
            for mode in ("ignored", "fixed"):       # the controls: the bias ignored, no penalty
                out.append(row(interval_s=s, penalty_s=0, mode=mode, run=k + 1, sort_ms=103000,
                               resp_max_ms=30000, after_ms=40, toucher_pageins=1000))
    return out


def decided(rs):
    return default_rule.decide(bench_ifs.aggregate(rs, "paper")[0])


def test_behind_on_the_toucher_keeps_the_incumbent():
    mode, reasons = decided(rows(adaptive_touch=(120, 407, 253), adaptive_ins=(5, 5, 4)))
    assert mode == "fixed"
    assert "S = 30 s: adaptive behind on the slowest touch (0.25 s [0.12–0.41] against 0.01 s [0.01–0.01])" in reasons
    assert "S = 30 s: the adaptive arbiter: the toucher's page-ins 0 at S >= 5 s: missed, where the incumbent " \
        "meets it" in reasons, reasons


def test_level_on_the_toucher_and_ahead_on_sort_earns_the_place():
    mode, reasons = decided(rows())
    assert mode == "adaptive", reasons
    assert "S = 5 s: adaptive ahead on the sort (97.50 s [97.00–98.00] against 100.10 s [100.00–100.20])" in reasons


def test_level_everywhere_keeps_the_incumbent():
    mode, reasons = decided(rows(adaptive_sort=(99000, 100100, 101000)))
    assert mode == "fixed" and reasons[-1].endswith("level with the incumbent everywhere: the incumbent stays")


def test_a_missing_point_or_one_run_decides_nothing():
    assert decided(rows(points=(5,)))[0] is None
    mode, reasons = decided(rows(runs=1))
    assert mode is None and "S = 5 s: not decided (one run a point)" in reasons, reasons
    assert default_rule.printed(bench_ifs.aggregate(rows(), "paper")[0]).startswith(
        "The arbiter's default: adaptive earns it (default_rule.py)\n  S = 5 s:")
