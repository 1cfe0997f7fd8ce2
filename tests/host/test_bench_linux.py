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


def test_the_script_runs_nothing_of_the_shells_between_the_stamps_but_sort():
    """The compiled sampler in the background, the counters read by one run of it at each stamp,
    between the stamps sort alone, and the wait for the toucher's round one waitlines: no busybox
    `read` loop, no grep a second, wherever the toucher's round or sort is being timed."""
    s = bench_linux.script(15, 5, "/in", 320)
    lines = s.splitlines()
    at = lambda text: next(i for i, l in enumerate(lines) if text in l)
    assert at("/usr/bin/sampler -i 1000 -n 0 /proc/meminfo Cached MemFree SwapFree /proc/vmstat pswpin pswpout pgmajfault") \
        < at("toucher -t -m 15 -f -s 5") < at("echo @before; sampler ") < at("@stamp 0") \
        < at("sort -v -m 320 -o /tmp/out /in") < at("@stamp 1") < at("waitlines /mnt/toucher 'touch ' +1 600") \
        < at("sleep 7") < at("echo @after; sampler ")
    assert lines[at("@stamp 0") + 1:at("@stamp 1")] == ["sort -v -m 320 -o /tmp/out /in", "st=$?"]
    assert "/proc/diskstats vda@1 vda@5" in lines[at("@before")]
    assert "grep" not in "\n".join(lines[at("@stamp 0"):]) and "while read" not in s and "sample()" not in s
    assert "toucher -t" not in bench_linux.script(15, None, "/in", 320)
    # --sampler-cost's other two: none at all, and the shell's as it was.
    assert "sampler -i" not in bench_linux.script(15, None, "/in", 320, "none")
    shell = bench_linux.script(15, None, "/in", 320, "shell")
    assert "sample()" in shell and "sampler -i" not in shell
    with pytest.raises(ValueError):
        bench_linux.script(15, None, "/in", 320, "vmstat")


SAMPLER_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "linux-short-sampler.log")


def test_a_recorded_run_with_the_compiled_sampler_gives_the_figures_read_by_hand():
    """A run of the short preset at S = 1 s with user/sampler.c: the stamps' counters are its
    one samples after @before and @after (disk reads and writes among them), the cache's
    extremes come from its samples from sort's start on, and the guest's command line and
    multi-gen LRU state are read."""
    with open(SAMPLER_LOG, "rb") as f:
        r = bench_linux.parse_run(linuxboot.console_text(f.read()), True)
    assert {k: r[k] for k in ("sort_ms", "sort_internal_ms", "sort_runs", "sort_passes", "pageins", "pageouts",
                              "pageins_all", "disk_reads", "disk_writes", "cache_min_kb", "cache_max_kb", "rounds",
                              "resp_max_ms", "toucher_pageins", "free_after_boot_kb", "cmdline", "lru_gen")} == {
        "sort_ms": 5900 - 5800, "sort_internal_ms": 45 + 39, "sort_runs": 17, "sort_passes": 1, "pageins": 0,
        "pageouts": 0, "pageins_all": 18 - 17, "disk_reads": 64 - 51, "disk_writes": 12 - 1, "cache_min_kb": 2112,
        "cache_max_kb": 2768, "rounds": 2, "resp_max_ms": 0, "toucher_pageins": 0, "free_after_boot_kb": 34528,
        "cmdline": "console=ttyS0 quiet panic=-1", "lru_gen": "0x0000"}
    assert len(r["samples"]) == 7 and r["samples"][0] == (3801, {"Cached": 2108, "MemFree": 32912, "SwapFree": 65532,
                                                                 "pswpin": 0, "pswpout": 0, "pgmajfault": 17})


def test_the_samplers_output_parses_and_a_bad_line_is_an_error():
    text = "@sampler Cached pswpin vda@1\n@1000 2112 0 51\n@2001 2200 3 60\n"
    assert bench_linux.sampler_output(text) == (["Cached", "pswpin", "vda@1"], [
        (1000, {"Cached": 2112, "pswpin": 0, "vda@1": 51}), (2001, {"Cached": 2200, "pswpin": 3, "vda@1": 60})])
    assert bench_linux.sampler_output("") == ([], [])
    for bad, why in [(text + "@3000 2200 3\n", "values"),            # a value short (a line cut)
                     (text + "@3000 2200 ? 60\n", "values"),         # a name gone from its source
                     ("@1000 2112 0 51\n", "header")]:              # samples, but whose?
        with pytest.raises(bench_linux.ParseError, match=why):
            bench_linux.sampler_output(bad)


@pytest.mark.parametrize("cut,why", [
    ("@after\n", "counters after"),
    ("@sampler Cached MemFree SwapFree pswpin pswpout pgmajfault vda@1 vda@5\n@9923", "counters after"),
    ("@samples\n", "no samples"),
    ("@before\n", "did not start"),
])
def test_a_missing_piece_of_a_sampler_run_is_an_error(cut, why):
    with open(SAMPLER_LOG, "rb") as f:
        out = linuxboot.console_text(f.read())
    with pytest.raises(bench_linux.ParseError, match=why):
        bench_linux.parse_run(out.replace(cut, "@9923" if cut.endswith("@9923") else "", 1), True)


def test_a_run_without_a_sampler_has_the_stamps_counters_alone():
    """--sampler-cost's "none": the samples' block is empty; the cache's extremes are then the
    two stamps' values."""
    with open(SAMPLER_LOG, "rb") as f:
        out = linuxboot.console_text(f.read())
    a, b = out.index("@samples\n") + len("@samples\n"), out.index("@toucher\n")
    r = bench_linux.parse_run(out[:a] + out[b:], True)
    assert r["samples"] == [] and (r["cache_min_kb"], r["cache_max_kb"]) == (2112, 2768)


def test_the_guests_facts_and_a_console_recorded_before_them():
    assert linuxboot.boot_facts("linux-init: cmdline console=ttyS0 quiet\nlinux-init: lru_gen absent\n") == {
        "cmdline": "console=ttyS0 quiet", "lru_gen": "absent"}
    assert linuxboot.boot_facts(recorded()) == {"cmdline": "", "lru_gen": ""}
    assert all(c in bench_linux.COLUMNS for c in ["hz", "cmdline", "lru_gen", "sampler_cpu_ms"])


def test_the_kernels_hz_is_its_configs(tmp_path):
    boot = tmp_path / "root" / "boot"
    boot.mkdir(parents=True)
    (boot / "vmlinuz-6.1.0-50-686").write_bytes(b"")
    (boot / "config-6.1.0-50-686").write_text("CONFIG_HZ_250=y\nCONFIG_HZ=250\n")
    assert linuxboot.kernel_hz(str(tmp_path)) == 250
    (boot / "config-6.1.0-50-686").unlink()
    assert linuxboot.kernel_hz(str(tmp_path)) is None


def test_the_sampler_cost_table_gives_each_kernels_spread_against_none():
    rows = [dict(kernel=k, sampler=s, sort_ms=ms, samples_in_sort=n, samples=m, sampler_cpu_ms=c)
            for k, s, ms, n, m, c in [
        ("ours", "none", 60000, 0, "", ""), ("ours", "none", 61000, 0, "", ""), ("ours", "none", 59000, 0, "", ""),
        ("ours", "sampler", 60500, 60, "", ""), ("ours", "sampler", 61500, 61, "", ""),
        ("ours", "sampler", 62000, 60, "", ""),
        ("linux", "none", 80000, 0, 0, ""), ("linux", "shell", 90000, 70, 100, 5000),
        ("linux", "shell", 100000, 75, 100, 7000)]]
    text = bench_linux.cost_table(rows)
    line = lambda kernel, label: next(l for l in text.splitlines() if l.startswith(kernel) and label in l)
    assert line("ours", "none").split()[-7:] == ["3", "59.00", "60.00", "61.00", "-", "0", "-"]
    assert line("ours", "sampler (kstat").split()[-8:] == ["3", "60.50", "61.50", "62.00", "+2.5", "%", "60", "-"]
    assert line("linux", "busybox read").split()[-8:] == ["2", "90.00", "95.00", "100.00", "+18.8", "%", "72.5",
                                                          "60.0"]
    assert "vmstat -i" not in text               # a configuration not run has no line


def test_the_samplers_cpu_time_is_its_own_and_its_childrens():
    stat = ("@cpu 291 (sh) S 1 291 1 1088 297 4194304 1200 5000 0 0 12 30 250 140 20 0 1 0 380 1236992 "
            "91 4294967295\n")
    assert bench_linux.sampler_cpu_ms(stat) == (12 + 30 + 250 + 140) * 10      # USER_HZ ticks in ms
    assert bench_linux.sampler_cpu_ms("@cpu 291 (a name) S 1 291 1 1088 297 4194304 1 2 0 0 1 2 3 4 20\n") == 100
    assert bench_linux.sampler_cpu_ms("no sampler\n") == ""
    with pytest.raises(bench_linux.ParseError):
        bench_linux.sampler_cpu_ms("@cpu 291 (sh) S 1 291\n")
    assert "/proc/$sampler_pid/stat" in bench_linux.script(15, None, "/in", 320)


def test_our_cost_runs_stamps_are_read_around_the_samplers_lines():
    """On ours the sampler's lines land on the console among the shell's; the stamps (vmstat -i's
    one sample) are still found, and the samples taken while sort ran are counted."""
    typed = ["sysctl vm.policy=clock", "sampler -i 1000 -n 0 kstat fs.cache.blocks vm.pageins.backing "
             "mem.frames.free &", "vmstat -i 1 1 fs.cache.blocks", "sort -v -m 320 -o /tmp/out /in",
             "vmstat -i 1 1 fs.cache.blocks"]
    out = ("$ sysctl vm.policy=clock\nvm.policy = clock\n$ sampler -i 1000 -n 0 kstat fs.cache.blocks "
           "vm.pageins.backing mem.frames.free &\n[1]\n$ @sampler fs.cache.blocks vm.pageins.backing "
           "mem.frames.free\n@500 14 0 4000\nvmstat -i 1 1 fs.cache.blocks\n@ms fs.cache.blocks\n@1200 14\n"
           "$ sort -v -m 320 -o /tmp/out /in\n@1500 20 0 3990\nsort: 9 lines, 1 runs in 1 ms, 0 merge passes and "
           "the last merge in 1 ms\n@2500 30 0 3980\n$ vmstat -i 1 1 fs.cache.blocks\n@ms fs.cache.blocks\n@3100 30\n$ ")
    assert bench_linux.parse_ours_cost(out, typed) == (3100 - 1200, 2)
    with pytest.raises(bench_linux.ParseError, match="stamp"):
        bench_linux.parse_ours_cost(out.replace("@3100 30\n", ""), typed)


PROTECTED_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "linux-short-protected-s1.log")


def test_a_recorded_protected_run_has_its_settings_and_the_disk_by_class():
    """A run of the short preset's protected setup (--setup protected), read by hand: the
    settings in force as the script printed them, the toucher in its cgroup with its
    memory.low, and the disk's requests by class and their KB across sort (/proc/diskstats'
    reads, read sectors, writes, written sectors and flushes of vda at the two stamps)."""
    with open(PROTECTED_LOG, "rb") as f:
        r = bench_linux.parse_run(linuxboot.console_text(f.read()), True)
    assert r["settings"] == ("swappiness=0 dirty_background_bytes=3453747 dirty_bytes=6907494 root=rw,noatime "
                             "toucher_cgroup=/toucher memory.low=1572864")
    assert {k: r[k] for k in ("read_requests", "read_kb", "write_requests", "write_kb", "flush_requests",
                              "disk_reads", "disk_writes")} == {
        "read_requests": 65 - 52, "read_kb": (5434 - 4618) // 2, "write_requests": 13 - 2,
        "write_kb": (632 - 16) // 2, "flush_requests": 0, "disk_reads": 13, "disk_writes": 11}
    # A run recorded before the classes were read has reads and writes, and no classes.
    old = bench_linux.parse_run(recorded(), True)
    assert "read_kb" not in old and "flush_requests" not in old and old["settings"] == ""


def test_the_settings_line_of_each_setup():
    assert bench_linux.settings("@setup 60 0 0 rw,relatime\n@cgroup  \n") == \
        "swappiness=60 dirty_background_bytes=0 dirty_bytes=0 root=rw,relatime"
    assert bench_linux.settings("@setup 60 0 0 rw,relatime\n") == \
        "swappiness=60 dirty_background_bytes=0 dirty_bytes=0 root=rw,relatime"
    assert bench_linux.settings("no such line\n") == ""


def test_the_protected_setup_is_set_as_ours_and_fails_the_run_if_it_cannot_be():
    """The dirty bounds are fs/dirtybound.c's default shares of what our pools share after boot
    (or, with no boot of ours, of what memfit kept on Linux); memory.low covers the toucher's
    heap; each setting's command ends the script when it fails; the toucher is put in its
    cgroup before it allocates, by busybox's shell (/bin/sh: a program of ours named sh would
    stand in for a bare `sh`); the default setup sets none of it and prints the same line."""
    src = open(os.path.join(ROOT, "fs", "dirtybound.c")).read()
    import re
    m = re.search(r"background_ratio = (\d+), dirty_ratio = (\d+);", src)
    assert (bench_linux.DIRTY_BACKGROUND_PCT, bench_linux.DIRTY_PCT) == (int(m.group(1)), int(m.group(2)))
    cfg = dict(bench_linux.PRESETS["short"], toucher_mb=6.0)
    p = bench_linux.protection(cfg, {"ours_shared_kb": 7500}, {"memfit_kb": 9000, "MemAvailable": 1})
    assert p == {"dirty_background_bytes": 7500 * 1024 // 10, "dirty_bytes": 7500 * 1024 // 5,
                 "low_bytes": (6 * 1024 + 512) * 1024}
    assert bench_linux.protection(cfg, {}, {"memfit_kb": 9000, "MemAvailable": 1})["dirty_bytes"] == 9000 * 1024 // 5
    s = bench_linux.script(6, 5, "/in", 128, protect=p)
    lines = s.splitlines()
    for l in bench_linux.protect_lines(p):
        assert l + " || exit 1" in lines
    assert "echo 0 > /proc/sys/vm/swappiness || exit 1" in lines and "mount -o remount,noatime / || exit 1" in lines
    tl = next(l for l in lines if "toucher -t" in l)
    assert tl.startswith("/bin/sh -c 'echo $$ > /sys/fs/cgroup/toucher/cgroup.procs && exec /usr/bin/toucher -t -m 6 ")
    assert lines.index(tl) > max(lines.index(l + " || exit 1") for l in bench_linux.protect_lines(p))
    plain = bench_linux.script(6, 5, "/in", 128)
    assert "swappiness" in plain and "echo 0 >" not in plain and "cgroup.procs" not in plain
    assert [l for l in plain.splitlines() if l.startswith("echo \"@setup")] == \
        [l for l in lines if l.startswith("echo \"@setup")]


def test_memfits_line_and_a_run_without_it():
    assert bench_linux.memfit_kb("$ memfit\nmemfit: 7168 KB written and kept, a page-out at 7232 KB\n") == 7168
    with pytest.raises(bench_linux.ParseError):
        bench_linux.memfit_kb("$ memfit\nsh: memfit: not found\n")


def test_memory_is_matched_by_what_memfit_kept_on_both(monkeypatch):
    """The line through two probes gives the size, which goes up a MB while Linux's memfit is
    short of ours; linux-mem.csv's row has both kernels' figures. With --linux-mem the size is
    kept, and ECD's matching (by MemAvailable) boots Linux without memfit."""
    boots = []
    monkeypatch.setattr(bench_linux, "ours_after_boot",
                        lambda mem, log: dict(free_kb=7244, shared_kb=7500, memfit_kb=7168))

    def linux(mem, img, log, memfit=True):
        boots.append((mem, memfit))
        # The line through the probes (36 MB, the least Linux boots on, and 44) says 39 MB, which
        # keeps 7,000 KB: short.
        fit = {36: 5000, 44: 13000, 39: 7000, 40: 9000}.get(mem, 64000)
        return {"MemAvailable": fit + 4000, "MemFree": fit, "MemTotal": mem * 1024,
                **({"memfit_kb": fit} if memfit else {})}
    monkeypatch.setattr(bench_linux, "linux_after_boot", linux)
    row = {}
    mb, info = bench_linux.match_memory(10, None, "disk", "/tmp", lambda t: None, row)
    assert mb == 40 and info["memfit_kb"] == 9000
    assert [b[0] for b in boots] == [36, 44, 39, 40]
    assert row["ours_memfit_kb"] == 7168 and row["linux_memfit_kb"] == info["memfit_kb"] and row["matched_by"] == "memfit"
    assert all(c in bench_linux.MEM_COLUMNS for c in row)
    boots.clear()
    assert bench_linux.match_memory(10, 64, "disk", "/tmp", lambda t: None, {})[0] == 64 and boots == [(64, True)]
    boots.clear()
    assert bench_linux.match_memory(12, 80, "disk", "/tmp", lambda t: None, {}, by="available")[0] == 80
    assert boots == [(80, False)]


def test_rows_of_another_setup_stay_when_one_is_run_again(tmp_path):
    path = str(tmp_path / "linux-ifs.csv")
    cols = ["preset", "setup", "run"]
    bench_linux.write_rows(path, cols, [dict(preset="paper", setup="default", run=1),
                                        dict(preset="paper", setup="protected", run=1),
                                        dict(preset="matched", setup="", run=1)], "paper")
    bench_linux.write_rows(path, cols, [dict(preset="paper", setup="protected", run=2)], "paper", ("protected",))
    assert [(r["preset"], r["setup"], r["run"]) for r in bench_linux.read_rows(path)] == [
        ("paper", "default", "1"), ("matched", "", "1"), ("paper", "protected", "2")]
    bench_linux.write_rows(path, cols, [dict(preset="matched", setup="default", run=3)], "matched", ("default",))
    assert ("matched", "", "1") not in [(r["preset"], r["setup"], r["run"]) for r in bench_linux.read_rows(path)]
