"""make bench-ifs's reading of the guest (tools/bench/bench_ifs.py), held against a recorded console:
one run of the paper preset (S = 30 s, no penalty) whose figures were checked by hand. The
toucher and the cache sampler print in the background, so their lines land anywhere, even
between a prompt and the echo of the next typed line (as in this recording) or inside that
echo; the benchmark's numbers must come from what each command printed, never from an echo,
and a missing output must be an error, not a zero."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import bench_ifs  # noqa: E402

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ifs-paper-s30-p0.log")
FINAL = "vmstat " + " ".join(bench_ifs.COUNTERS)

# Read off the recording by hand: its rounds 2 and 3 began while sort ran, round 4 is the first
# after; the counters are the final vmstat's less the one before sort; the toucher's page-outs
# its ps PAGEOUT at the end less at the start.
EXPECTED = {"sort_ms": 167402 - 48450, "sort_internal_ms": 48429 + 68004, "pageins": 280, "pageouts": 354,
            "pageins_all": 359 - 59, "disk_reads": 740 - 16, "disk_writes": 1178 - 276, "cache_min_kb": 912,
            "cache_max_kb": 2076, "fs_asks_vm": 992, "fs_asks_vm_satisfied": 623, "vm_asks_fs": 630,
            "vm_asks_fs_satisfied": 610, "age_lag_ms": 2109, "rounds": 3, "resp_min_ms": 8139,
            "resp_max_ms": 15388, "resp_avg_ms": round((13944 + 15388 + 8139) / 3, 1),
            "toucher_pageins": 74 + 89 + 110, "toucher_pageouts": 310}


def recorded():
    return bench_ifs.read_log(LOG)


def check(r):
    got = {k: r[k] for k in EXPECTED}
    assert got == EXPECTED


def test_a_recorded_run_gives_the_figures_read_by_hand():
    out, typed = recorded()
    r = bench_ifs.parse_run(out, typed, toucher=True)
    check(r)
    assert r["sampled"] == ["fs.cache.blocks", "vm.pageins.backing", "mem.frames.free"]
    assert len(r["samples"]) == 184 and r["samples"][0] == (16287, [271, 0, 1145])
    assert [x[0] for x in r["rounds_all"]] == [1, 2, 3, 4]


def test_background_lines_anywhere_are_taken_out():
    out, typed = recorded()
    # A sample inside the echo of the final counters' line, a toucher round (long after sort:
    # not counted) between a prompt and the echo of ps.
    final = out.index("$ " + FINAL)
    j = out.index("$ ps\n", final)
    out = out[:j + 2] + "touch 5 3 ms, 0 page-ins, at 999999 ms\n" + out[j + 2:]
    out = out[:final + 30] + "@170000 500 171 80\n" + out[final + 30:]
    k = out.index("$ sort -v")                      # QEMU's own word on a busy host (icount align=on)
    out = out[:k + 2] + "Warning: The guest is now late by 0.0 to 1.0 seconds\n" + out[k + 2:]
    r = bench_ifs.parse_run(out, typed, toucher=True)
    check(r)
    assert len(r["samples"]) == 185 and [x[0] for x in r["rounds_all"]] == [1, 2, 3, 4, 5]


def test_a_missing_output_is_an_error_not_a_number():
    out, typed = recorded()
    start = out.index("$ " + FINAL) + len(FINAL) + 3
    end = out.index("$ ps", start)
    # One counter missing (a kernel without it): the others must not shift into its place.
    short = out[start:end].split("\n", 1)[1]
    with pytest.raises(bench_ifs.ParseError, match="not 12 values"):
        bench_ifs.parse_run(out[:start] + "vmstat: vm.pageins.backing: no such counter\n" + short + out[end:],
                            typed, toucher=True)
    # The echo of the command names the counters: it must not stand in for their values.
    with pytest.raises(bench_ifs.ParseError):
        bench_ifs.parse_run(out[:start] + out[end:], typed, toucher=True)


def test_a_toucher_gone_quiet_is_an_error():
    out, typed = recorded()
    quiet = "".join(l for l in out.splitlines(True) if not l.startswith("touch "))
    with pytest.raises(bench_ifs.ParseError, match="no round"):
        bench_ifs.parse_run(quiet, typed, toucher=True)


def test_sort_alone_needs_no_toucher():
    out, typed = recorded()
    r = bench_ifs.parse_run(out, typed, toucher=False)
    assert r["sort_ms"] == EXPECTED["sort_ms"] and "resp_max_ms" not in r


def test_the_paper_presets_toucher_leaves_a_megabyte():
    # 1160 free frames and 270 in the cache, less the kernel's 64, less sort's 180 KB and 1 MB.
    assert bench_ifs.toucher_kb("", "1160\n270\n") == (1160 + 270 - 64) * 4 - 180 - 1024 == 4260


def test_penalties_and_their_modes():
    assert bench_ifs.parse_penalties("0,120,120:stepped") == [(0, "fixed"), (120, "fixed"), (120, "stepped")]
    with pytest.raises(ValueError):
        bench_ifs.parse_penalties("120:sometimes")


def row(**kw):
    base = {k: "0" for k in bench_ifs.COLUMNS}
    base.update(preset="paper", kind="ifs", mode="fixed", penalty_s="0", interval_s="30")
    base.update({k: str(v) for k, v in kw.items()})
    return base


def test_rows_average_over_runs_and_degrade_against_the_median_standalone_sort():
    rows = [row(kind="standalone", penalty_s="", interval_s="", sort_ms=s) for s in (40000, 50000, 90000)]
    rows += [row(run=k, sort_ms=s, resp_max_ms=m, toucher_pageins=p)
             for k, s, m, p in ((1, 60000, 100, 0), (2, 70000, 300, 4), (3, 80000, 200, 2))]
    rows += [row(preset="linux-scaled", kind="standalone", sort_ms=1)]        # another preset: ignored
    agg, base = bench_ifs.aggregate(rows, "paper")
    a = agg[(0, "fixed", 30.0)]
    assert base == 50000 and a["runs"] == 3
    assert a["sort_ms"] == 70000 and a["deg"] == pytest.approx(40.0)
    assert a["resp_max_ms"] == 200 and a["worst_resp_max_ms"] == 300 and a["worst_toucher_pageins"] == 4
    assert a["worst_deg"] == pytest.approx(60.0)


def test_sorts_host_time_comes_from_when_the_echoes_arrived():
    out, _ = recorded()
    a = out.index("$ sort -v")
    b = out.index("$ " + bench_ifs.STAMP, a)
    arrivals = [(0, 100.0), (a - 5, 110.0), (a + 40, 111.0), (b, 170.5), (b + 100, 171.0)]
    assert bench_ifs.host_span(out, arrivals) == 60500
