"""Spreads everywhere (issue 36): a figure of several runs is shown as its median with the least
and greatest, and a verdict (ahead / behind) is given only where the two sides' ranges do not
overlap; "level" where they do, and "one run: no verdict" where a side measured here has one run a
point. On synthetic CSV rows: the medians alone would say ahead where the ranges overlap, and the
test fails a verdict of medians."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import headline  # noqa: E402
import ifs_tables  # noqa: E402
from headline import ONE_RUN, verdict  # noqa: E402


def test_separated_ranges_give_ahead_and_behind():
    assert verdict([10, 11, 12], [13, 14, 20]) == "ahead"
    assert verdict([13, 14, 20], [10, 11, 12]) == "behind"
    # against a point quoted from a paper (Sprite's averages)
    assert verdict([10, 11, 12], 12.5) == "ahead" and verdict([10, 11, 12], 9) == "behind"


def test_overlapping_ranges_are_level_whatever_the_medians():
    assert verdict([10, 11, 30], [12, 20, 21]) == "level"         # medians 11 against 20
    assert verdict([10, 11, 12], [12, 13, 14]) == "level"         # touching at 12
    assert verdict([10, 11, 12], 11.5) == "level"


def test_one_run_a_point_gives_no_verdict():
    assert verdict([10], [20, 21]) == ONE_RUN == "one run: no verdict"
    assert verdict([10, 11], [20]) == ONE_RUN
    assert verdict([10], 20) == ONE_RUN
    assert headline.ratio_verdict([100], [120, 121], 1.0) == ONE_RUN


def test_within_the_floor_is_level():
    assert verdict([3, 4], [1, 2], headline.INSTANT_MS) == "level"
    assert verdict([3, 4], [150, 200], headline.INSTANT_MS) == "ahead"


def ifs_row(preset, kind, s, sort_s, touch_ms=10, **more):
    r = {"preset": preset, "kind": kind, "interval_s": "" if s is None else str(s), "penalty_s": "" if s is None else "120",
         "mode": "" if s is None else "fixed", "cache_fixed_kb": "", "sort_ms": str(int(sort_s * 1000)),
         "toucher_pageins": "0", "resp_max_ms": str(touch_ms), "after_ms": str(touch_ms), "pageins": "5"}
    r.update(more)
    return r


def rows(kernel_sorts, alone=(50, 50, 50)):
    return [ifs_row("matched", "standalone", None, a) for a in alone] + \
        [ifs_row("matched", "ifs", 30, x) for x in kernel_sorts]


def test_the_ifs_headline_verdict_follows_the_ranges():
    ours = rows([100, 101, 102])
    apart = headline.ifs_linux(ours, rows([150, 151, 160]))
    assert apart.startswith("**IFS beside Linux 6.1 (sort: ahead;")
    assert "at S = 30 s 101 s [100–102] (+102 % over sort alone) here, 151 s [150–160] (+202 %) under Linux" in apart
    # Linux's median 151 s is far above ours, but one of its runs took 95 s: level
    overlap = headline.ifs_linux(ours, rows([95, 151, 160]))
    assert overlap.startswith("**IFS beside Linux 6.1 (sort: level;"), overlap
    one = headline.ifs_linux(rows([100]), rows([150, 151, 160]))
    assert one.startswith("**IFS beside Linux 6.1 (sort: one run: no verdict; the toucher: one run: no verdict)")


def test_the_ifs_table_shows_median_min_and_max_of_several_runs():
    agg, base = ifs_tables.aggregate(rows([100, 101, 110]), "matched")
    assert base == 50000
    t = ifs_tables.table(agg)
    row = t[1]
    assert row[t[0].index("sort s")] == "101.0 [100.0–110.0]"
    assert row[t[0].index("deg")] == "+102 % [+100–+120]"
    one = ifs_tables.table(ifs_tables.aggregate(rows([100]), "matched")[0])[1]
    assert one[t[0].index("sort s")] == "100.0" and one[t[0].index("deg")] == "+100 %"


def test_the_write_policy_table_shows_the_runs_spread(tmp_path):
    import results
    head = "mode,kind,bytes,write_MBps_or_data_writes,overwrite_MBps_or_meta_writes,read_MBps,ns_or_ms,note\n"
    (tmp_path / "fs.csv").write_text(head + "wall,policy_through,,1428,3545,,900,min/max data 1400/1450 meta 3500/3600 "
                                     "runs 3\nwall,policy_delay,,484,173,,100,\n")
    t = results.fs_policy(str(tmp_path))
    assert t.startswith("Disk writes, median [min–max] of the runs:")
    assert "| through | 1428 [1400–1450] | 3545 [3500–3600] | 4973 |" in t
    assert "| delay (30 s / 5 s) | 484 | 173 | 657 |" in t          # a row without its runs: the median alone


def test_ecd_table_2_shows_the_runs_spread(tmp_path):
    import results
    from test_bench_tables import CSVS
    (tmp_path / "ecd.csv").write_text(CSVS["ecd.csv"])
    t = results.ecd_table2(str(tmp_path))
    # 16 MB without a penalty has two runs (alike in these counters), 10 MB one
    assert "| 16 | 0.05 [0.05–0.05]–7.51 [7.51–7.51] | 226 [226–226] / 1,752 [1,752–1,752] |" in t
    assert "| 10 | 0.05–4.95 | 4,042 / 7,501 |" in t
