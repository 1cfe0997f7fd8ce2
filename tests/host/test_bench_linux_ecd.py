"""make bench-linux-ecd's reading of the Linux guest (tools/bench/bench_linux_ecd.py), held
against a recorded console (a run of the short preset, read by hand) and made-up ones: the
counters are differences across the phases, file traffic is the block traffic less the swap's,
the cache's extremes are Cached's from the first sample to the last, and a missing piece is an
error, never a zero. Also the CSV's columns (ecd.csv's where they apply), the Linux row of the
ECD points table and the Linux line of the figures."""
import csv
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools", "linux"))
import bench_ecd, bench_linux_ecd, ecd_paper, linuxboot, results  # noqa: E402
from bench_linux import ParseError  # noqa: E402

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "linux-ecd-short.log")
# @stamp 0 4790 2093 4 0 0 17 2412 44 1 4186 8 0 1912 and @stamp 1 4880 2373 4 0 0 17 2819 54 1
# 4746 8 0 2416 (uptime ms, pgpgin pgpgout pswpin pswpout pgmajfault pgfault, vda's reads writes
# sectors read and written io_ticks, Cached); Cached sampled once before the phases (4470 ms: not
# counted); the phases' own lines.
EXPECTED = {"elapsed_ms": 4880 - 4790, "fs_read_kb": 2373 - 2093, "fs_write_kb": 0, "vm_read_kb": 0,
            "vm_write_kb": 0, "faults": 2819 - 2412, "pageins": 0, "pageouts": 0, "majfaults": 0,
            "disk_reads": 54 - 44, "disk_writes": 0, "disk_read_kb": (4746 - 4186) // 2, "disk_write_kb": 0,
            "disk_busy_ms": 0, "ms_edit": 6, "ms_compile": 7, "ms_link": 18, "ms_debug": 6,
            "phase_read_kb": 4 + 52 + 436 + 348, "phase_write_kb": 4 + 12 + 224, "cache_min_kb": 1912,
            "cache_max_kb": 2416, "free_after_boot_kb": 34596, "usable_kb": 39444, "kernel": "6.1.0-50-686"}


def recorded():
    with open(LOG, "rb") as f:
        return linuxboot.console_text(f.read())


def test_a_recorded_run_gives_the_figures_read_by_hand():
    r = bench_linux_ecd.parse_run(recorded(), 1)
    assert {k: r[k] for k in EXPECTED} == EXPECTED


def test_swap_is_taken_out_of_the_file_traffic():
    out = recorded().replace("@stamp 1 4880 2373 4 0 0 17", "@stamp 1 4880 2773 804 25 50 30")
    r = bench_linux_ecd.parse_run(out, 1)
    assert (r["vm_read_kb"], r["vm_write_kb"], r["pageins"], r["pageouts"], r["majfaults"]) == (100, 200, 25, 50, 13)
    assert (r["fs_read_kb"], r["fs_write_kb"]) == (2773 - 2093 - 100, 804 - 4 - 200)


def test_cached_samples_count_only_while_the_phases_ran():
    out = recorded().replace("@cached 4470 1772", "@cached 4470 100\n@cached 4800 9000\n@cached 4900 1")
    r = bench_linux_ecd.parse_run(out, 1)
    assert (r["cache_min_kb"], r["cache_max_kb"]) == (1912, 9000)


@pytest.mark.parametrize("cut,why", [
    ("@stamp 1 ", "missing"),
    ("phase link: ", "phases that finished"),
    ("@head ", "did not start"),
    ("@end", "script did not reach its end"),
    ("--- /proc/meminfo after boot", "meminfo"),
])
def test_a_missing_piece_is_an_error(cut, why):
    out = recorded().replace(cut, "X" + cut[1:])
    with pytest.raises(ParseError, match=why):
        bench_linux_ecd.parse_run(out, 1)


def test_two_loops_need_every_phase_twice():
    with pytest.raises(ParseError, match="phases that finished"):
        bench_linux_ecd.parse_run(recorded(), 2)


def test_an_environment_that_ended_early_is_named():
    out = recorded().replace("phase env: 1780 KB ready", "phase: no memory\n@noenv")
    with pytest.raises(ParseError, match="environment"):
        bench_linux_ecd.parse_run(out, 1)


def test_the_script_runs_the_phases_bench_ecd_types():
    text = bench_linux_ecd.script(5, 1780, 5, 2)
    phases = [l for l in text.splitlines() if l.startswith("phase -x 5 -d /ecd ")]
    assert [l.split()[-3] for l in phases] == bench_ecd.PHASES * 2
    assert "phase -x 5 -k 1780 -s 5 env > /mnt/env &" in text
    assert "phase -d /ecd edit || st=1" in bench_linux_ecd.script(100, 5120, 5, 1)


def test_the_columns_are_ecd_csvs_then_linuxs():
    assert bench_linux_ecd.COLUMNS[:len(bench_ecd.COLUMNS)] == bench_ecd.COLUMNS


def test_the_presets_use_bench_ecds_cpu_and_disk():
    m = bench_linux_ecd.PRESETS["matched"]
    assert (m["icount"], m["throttle_bps"], m["throttle_iops"]) == (
        bench_ecd.COMMON["icount"], bench_ecd.COMMON["throttle_bps"], bench_ecd.COMMON["throttle_iops"])


def write(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in columns})


OURS = dict(preset="short", mem_paper_mb=10, mem_mb=12, cache="fixed", cache_kb=512, penalty_s="", run=1, loops=2,
            scale=100, throttle_bps=1048576, throttle_iops=50, icount_shift=8, elapsed_ms=144870, ms_edit=1,
            ms_compile=1, ms_link=1, ms_debug=1, fs_read_kb=30000, fs_write_kb=9000, vm_read_kb=2000,
            vm_write_kb=3000, faults=5000, pageins=500, pageouts=750, fs_asks_vm=1, fs_asks_vm_satisfied=1,
            vm_asks_fs=1, vm_asks_fs_satisfied=1, cache_min_kb=56, cache_max_kb=512, disk_busy_ms=70000,
            wall_s=300)


def linux_row(**kw):
    r = bench_linux_ecd.parse_run(recorded(), 1)
    r.update(preset="matched", mem_paper_mb=10, mem_mb=33, cache="linux", run=1, loops=2, scale=100)
    r.update(kw)
    return r


def test_the_points_table_gets_a_linux_row_with_empty_negotiation(tmp_path):
    write(tmp_path / "ecd.csv", bench_ecd.COLUMNS, [OURS])
    before = results.ecd_points(str(tmp_path))
    assert "Linux" not in before
    write(tmp_path / "linux-ecd.csv", bench_linux_ecd.COLUMNS, [linux_row(elapsed_ms=120000, icount_shift=8)])
    text = results.ecd_points(str(tmp_path))
    row = [l for l in text.splitlines() if l.startswith("| 10 | Linux 6.1 |")]
    assert len(row) == 1 and "| 120 |" in row[0] and "Linux on the same work" in row[0]
    assert "10 MB 120 s against our 145 s (fixed 0.5M)" in " ".join(text.split())
    agg = ecd_paper.aggregate(ecd_paper.linux_rows(str(tmp_path / "linux-ecd.csv")))
    assert agg[(10, "linux")]["fs_asks_vm"] is None and agg[(10, "linux")]["elapsed_ms"] == 120000


def test_the_figures_draw_a_linux_line(tmp_path):
    import ecd_figures
    write(tmp_path / "ecd.csv", bench_ecd.COLUMNS, [OURS, dict(OURS, mem_paper_mb=16, mem_mb=18)])
    write(tmp_path / "linux-ecd.csv", bench_linux_ecd.COLUMNS, [linux_row(), linux_row(mem_paper_mb=16)])
    drawn = []
    real = ecd_figures._grid

    def spy(agg, configs, *rest):
        drawn.append(configs)
        return real(agg, configs, *rest)
    ecd_figures._grid = spy
    try:
        pngs = ecd_figures.draw(str(tmp_path / "ecd.csv"), "short", str(tmp_path / "ecd"),
                                linux_csv=str(tmp_path / "linux-ecd.csv"))
    finally:
        ecd_figures._grid = real
    assert all(os.path.getsize(p) > 0 for p in pngs)
    assert ["linux" in c for c in drawn] == [True, True, True, True, False]


def as_sampler_run(out):
    """The recorded console as user/sampler.c prints it: each stamp one run of the sampler (its
    header, then one sample) after "@stamp N", the Cached samples its header and "@UPTIME KB"."""
    import re
    spec = " ".join(bench_linux_ecd.VMSTAT + bench_linux_ecd.DISK_WORDS + ["Cached"])
    out = re.sub(r"^@stamp (\d) (.*)$", lambda m: "@stamp %s\n@sampler %s\n@%s" % (m.group(1), spec, m.group(2)),
                 out, flags=re.M)
    return out.replace("@cached-samples\n@cached 4470 1772\n", "@cached-samples\n@sampler Cached\n@4470 1772\n")


def test_the_compiled_samplers_stamps_and_samples_give_the_same_figures():
    out = as_sampler_run(recorded())
    assert "@stamp 0\n@sampler pgpgin" in out and "@4470 1772" in out
    r = bench_linux_ecd.parse_run(out, 1)
    assert {k: r[k] for k in EXPECTED} == EXPECTED
    # A cache sample inside the phases counts; one the sampler could not read ("?") is an error.
    assert bench_linux_ecd.parse_run(out.replace("@4470 1772\n", "@4800 100\n"), 1)["cache_min_kb"] == 100
    with pytest.raises(ParseError, match="values"):
        bench_linux_ecd.parse_run(out.replace("@4470 1772\n", "@4800 ?\n"), 1)
    # A stamp whose sampler read other names is refused, not read in the wrong order.
    with pytest.raises(ParseError, match="read"):
        bench_linux_ecd.parse_run(out.replace("@sampler pgpgin pgpgout", "@sampler pgpgout pgpgin", 1), 1)


def test_the_script_samples_with_the_compiled_sampler_alone():
    text = bench_linux_ecd.script(5, 1780, 5, 1)
    assert "/usr/bin/sampler -i 1000 -n 0 /proc/meminfo Cached > /mnt/cached &" in text
    assert "echo '@stamp 0'; sampler /proc/vmstat pgpgin" in text and "vda@1 vda@5 vda@3 vda@7 vda@10" in text
    assert "while read" not in text and "$(ms)" not in text
    lines = text.splitlines()
    first = next(i for i, l in enumerate(lines) if "@stamp 0" in l)
    last = next(i for i, l in enumerate(lines) if "@stamp 1" in l)
    assert all(l.startswith("phase ") for l in lines[first + 1:last])


def test_a_recorded_run_with_the_compiled_sampler_gives_the_figures_read_by_hand():
    """A short-preset run with user/sampler.c: @stamp 0 at 3831 ms (pgpgin 2321, pgfault 2493, vda's
    reads 52, sectors read 4642, Cached 2132) and @stamp 1 at 3888 ms (2601, 2891, 62, 5202, 2636);
    Cached sampled once before the phases (3608 ms: not counted); the sampler's own CPU time
    (/proc/PID/stat of the sampler itself) under one tick."""
    with open(os.path.join(os.path.dirname(LOG), "linux-ecd-sampler.log"), "rb") as f:
        r = bench_linux_ecd.parse_run(linuxboot.console_text(f.read()), 1)
    assert {k: r[k] for k in ("elapsed_ms", "fs_read_kb", "fs_write_kb", "vm_read_kb", "faults", "disk_reads",
                              "disk_writes", "disk_read_kb", "cache_min_kb", "cache_max_kb", "sampler_cpu_ms",
                              "cmdline", "lru_gen")} == {
        "elapsed_ms": 3888 - 3831, "fs_read_kb": 2601 - 2321, "fs_write_kb": 0, "vm_read_kb": 0,
        "faults": 2891 - 2493, "disk_reads": 62 - 52, "disk_writes": 0, "disk_read_kb": (5202 - 4642) // 2,
        "cache_min_kb": 2132, "cache_max_kb": 2636, "sampler_cpu_ms": 0, "cmdline": "console=ttyS0 quiet panic=-1",
        "lru_gen": "0x0000"}
