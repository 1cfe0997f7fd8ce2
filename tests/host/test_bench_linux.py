"""make bench-linux's reading of the Linux guest (tools/bench/bench_linux.py), held against
recorded consoles (a run of the short preset, S = 1 s, and one of the matched preset at S = 30 s
that paged the toucher, each read by hand) and against made-up ones:
the counters are differences across sort, the cache's extremes come from sort's start on, the
toucher's rounds are those that began while sort ran and the first after it, and a missing
piece is an error, never a zero. Also the choice of Linux's memory size and our kernel's figure
it is matched to, and the CSV's columns, which must stay those of ifs.csv where they apply."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools", "linux"))
import bench_ifs, bench_linux, linuxboot  # noqa: E402

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "linux-short-s1.log")
EXPECTED = {"sort_ms": 5160 - 5080, "sort_internal_ms": 29 + 33, "sort_runs": 17, "sort_passes": 1,
            "pageins": 0, "pageouts": 0, "pageins_all": 18 - 17, "disk_reads": 57 - 44, "disk_writes": 0,
            "cache_min_kb": 1900, "cache_max_kb": 2560, "rounds": 1, "resp_min_ms": 0, "resp_max_ms": 0,
            "toucher_pageins": 0, "free_after_boot_kb": 34592, "available_after_boot_kb": 39440,
            "kernel": "6.1.0-50-686"}


def recorded():
    with open(LOG, "rb") as f:
        return linuxboot.console_text(f.read())


def test_a_recorded_run_gives_the_figures_read_by_hand():
    r = bench_linux.parse_run(recorded(), True)
    assert {k: r[k] for k in EXPECTED} == EXPECTED
    assert len(r["samples"]) == 5 and r["samples"][0] == (3920, {"Cached": 1772, "MemFree": 34332, "SwapFree": 65532,
                                                                 "pswpin": 0, "pswpout": 0, "pgmajfault": 17})


MATCHED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "linux-matched-s30.log")


def test_a_recorded_matched_run_that_paged_the_toucher():
    """Rounds 2-4 began while sort ran (round 4 waited 16.28 s for 56 faults), round 5 is the
    first after; swap and faults are the @after sample's less the @before one's."""
    with open(MATCHED, "rb") as f:
        r = bench_linux.parse_run(linuxboot.console_text(f.read()), True)
    assert {k: r[k] for k in ("sort_ms", "sort_internal_ms", "sort_runs", "pageins", "pageouts", "pageins_all",
                              "disk_reads", "disk_writes", "cache_min_kb", "cache_max_kb", "rounds", "resp_min_ms",
                              "resp_max_ms", "resp_avg_ms", "toucher_pageins", "free_after_boot_kb",
                              "available_after_boot_kb")} == {
        "sort_ms": 222010 - 109930, "sort_internal_ms": 32518 + 79522, "sort_runs": 54, "pageins": 394,
        "pageouts": 472, "pageins_all": 84 - 17, "disk_reads": 783 - 44, "disk_writes": 523 - 5,
        "cache_min_kb": 1900, "cache_max_kb": 5508, "rounds": 4, "resp_min_ms": 0, "resp_max_ms": 16280,
        "resp_avg_ms": 4070.0, "toucher_pageins": 56, "free_after_boot_kb": 12120, "available_after_boot_kb": 17820}


def swapped(out):
    """The recording with swap traffic and a slow round while sort ran."""
    out = out.replace("@after @8160 2560 32504 65532 0 0 18", "@after @8160 2560 32504 60000 700 900 650")
    out = out.replace("@before @5050 1900 33544 65532 0 0 17", "@before @5050 1900 33544 65532 40 100 37")
    return out.replace("touch 2 0 ms, 0 page-ins, at 5995 ms", "touch 2 0 ms, 0 page-ins, at 5100 ms").replace(
        "touch 3 1 ms, 0 page-ins, at 7000 ms", "touch 3 1500 ms, 620 page-ins, at 7000 ms")


def test_swap_counts_are_differences_across_sort_and_rounds_are_those_sort_touched():
    r = bench_linux.parse_run(swapped(recorded()), True)
    assert (r["pageins"], r["pageouts"], r["pageins_all"]) == (700 - 40, 900 - 100, 650 - 37)
    # Round 2 began while sort ran, round 3 is the first after it; round 4 is not counted.
    assert (r["rounds"], r["resp_min_ms"], r["resp_max_ms"], r["resp_avg_ms"], r["toucher_pageins"]) == \
        (2, 0, 1500, 750, 620)


def test_qemus_late_clock_warnings_inside_a_line_are_taken_out():
    raw = open(LOG, "rb").read().replace(b"@stamp 1 5160", b"@stamp 1 51Warning: The guest is now late by 0.0 to "
                                          b"1.0 seconds\n60")
    assert bench_linux.parse_run(linuxboot.console_text(raw), True)["sort_ms"] == 80


@pytest.mark.parametrize("cut,why", [
    ("@stamp 1 5160\n", "time stamps"),
    ("sort: 12529 lines", "sort did not finish"),
    ("@after @8160 2560 32504 65532 0 0 18\n", "counters after"),
    ("@samples\n", "no samples"),
    ("--- /proc/meminfo after boot", "meminfo"),
])
def test_a_missing_output_is_an_error_not_a_number(cut, why):
    with pytest.raises(bench_linux.ParseError, match=why):
        bench_linux.parse_run(recorded().replace(cut, "", 1), True)


def test_a_sample_short_of_a_value_is_an_error():
    with pytest.raises(bench_linux.ParseError, match="values"):
        bench_linux.parse_run(recorded().replace("@6030 2560 32504 65532 0 0 18", "@6030 2560 32504 65532 0 18"), True)


def test_a_toucher_gone_quiet_is_an_error_but_sort_alone_needs_none():
    quiet = recorded().split("@toucher\n")[0] + "@toucher\n@end\n"
    with pytest.raises(bench_linux.ParseError, match="no round"):
        bench_linux.parse_run(quiet, True)
    assert bench_linux.parse_run(quiet, False)["sort_ms"] == 80


def test_linux_gets_the_least_machine_that_leaves_what_ours_leaves():
    assert bench_linux.matched_mem([(40, 15948), (48, 23764)], 17308) == 42     # 41.39 MB, up
    assert bench_linux.matched_mem([(40, 16000), (48, 24000)], 18000) == 42     # exactly 42
    with pytest.raises(bench_linux.ParseError):
        bench_linux.matched_mem([(40, 16000), (40, 16000)], 18000)


def test_our_kernels_figure_is_free_frames_and_cache_less_the_reserve():
    out = "vmstat mem.frames.free fs.cache.blocks\nmem.frames.free 4300\nfs.cache.blocks 91\n$ "
    assert bench_linux.ours_free_kb(out, 64) == (4300 + 91 - 64) * 4
    assert bench_linux.kernel_reserve() == 64
    with pytest.raises(bench_linux.ParseError):
        bench_linux.ours_free_kb("mem.frames.free 4300\n", 64)


def test_the_columns_are_ifs_csvs_where_they_apply():
    assert [c for c in bench_ifs.COLUMNS if c in bench_linux.IFS_COLUMNS] == bench_linux.IFS_COLUMNS
    assert bench_linux.COLUMNS[:len(bench_linux.IFS_COLUMNS)] == bench_linux.IFS_COLUMNS


def test_the_script_samples_then_sorts_between_two_stamps():
    s = bench_linux.script(15, 5, "/in", 320)
    assert s.index("toucher -t -m 15 -f -s 5") < s.index("@stamp 0") < s.index("sort -v -m 320 -o /tmp/out /in") \
        < s.index("@stamp 1") < s.index("grep -c '^touch '") < s.index("sleep 7") < s.index("@after")
    assert "toucher -t" not in bench_linux.script(15, None, "/in", 320)
