"""The benchmarks' tables and figures, from small CSVs in the formats the bench scripts write:
tools/bench/results.py (make results) regenerates exactly the marked parts of docs/results.md (and refuses
what it cannot do, and a run shorter than a table's full one, in one line), and
tools/bench/bench_figures.py draws every figure. A benchmark is not a test, but the code that turns
its figures into the docs and PNGs must not break silently."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "bench", "results.py")
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))

CSVS = {
    "boot.csv": """mode,min_s,median_s,max_s,runs,clock,host_load
grub,0.610,0.660,0.720,5,"wall, TCG",0.5-1.5 on 2 cores
kernel,0.160,0.180,0.300,5,"wall, TCG",0.5-1.5 on 2 cores
""",
    "vm.csv": """figure,value,unit,mode
copy,5127,guest ns,"icount shift=0, MEM=64"
zero,4103,guest ns,"icount shift=0, MEM=64"
zerofault,4975,guest ns,"icount shift=0, MEM=64"
refault,8,guest ns,"icount shift=0, MEM=64"
pagein,51235,guest ns,"icount shift=0, MEM=64"
zerofault_overhead,872,guest ns,"icount shift=0, MEM=64"
zerofault_overhead_pct,17.0,% of copy,"icount shift=0, MEM=64"
""",
    "vm-irlam.csv": """run,active_mb,procs,ms,sweeps,touches_per_s,relative_speed,faults,pageins,pageouts,done_procs,bound,frames_mb,mode
1,2,1,100,20000,102400000,1.000000,514,0,0,1,,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
1,4,2,200,40000,102400000,1.000000,1028,0,0,2,,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
1,26,13,40000,260000,3328000,0.032500,159807,153138,155849,3,<,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
2,2,1,100,20000,102400000,1.000000,514,0,0,1,,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
2,4,2,230,40000,89043478,0.870000,1028,0,0,2,,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
2,26,13,44000,260000,3025454,0.030000,159807,153000,155849,3,<,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
3,2,1,100,20000,102400000,1.000000,514,0,0,1,,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
3,4,2,215,40000,95255813,0.930000,1028,0,0,2,,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
3,26,13,37000,260000,3597837,0.035000,159807,153200,155849,3,<,13.7,"icount shift=0, MEM=16, 20000 sweeps a process, at most 30000 ms a row"
""",
    "fs.csv": """mode,kind,bytes,write_MBps_or_data_writes,overwrite_MBps_or_meta_writes,read_MBps,ns_or_ms,note
icount,copy,4096,,,798.9,5127,
icount,cached,4,1,1,2,,
icount,cached,4096,225,432,503,,
icount,cached,8192,239,485,533,,
icount,cached,65536,253,543,562,,
icount,lookup_1MB,4096,,,,8989,
icount,lookup_16MB,4096,,,,8952,blocks=3861
wall,disk,1024,9,,8,,min/max w 7/11 r 6/9
wall,disk,65536,77,,12,,min/max w 60/80 r 10/13
wall,policy_through,,1428,3545,,900,
wall,policy_asap,,1344,1001,,800,
wall,policy_delay,,651,22,,700,
""",
    "fork.csv": """resident_kb,fork_mode,pages,ns_per_fork,copy4k_ns,clock
0,cowcor,resident,105000,5127,icount shift=0 (guest ns)
2048,cowcor,resident,210000,5127,icount shift=0 (guest ns)
0,cowcor,backing,240000,5127,icount shift=0 (guest ns)
2048,cowcor,backing,318000,5127,icount shift=0 (guest ns)
0,copy,resident,90000,5127,icount shift=0 (guest ns)
2048,copy,resident,3929000,5127,icount shift=0 (guest ns)
0,copy,backing,342000,5127,icount shift=0 (guest ns)
2048,copy,backing,52500000,5127,icount shift=0 (guest ns)
""",
    "fork-workload.csv": """cow_marked,cor_marked,cow_faulted_pct,cor_faulted_pct,cowcor_pct_of_faults,copies_cowcor,copies_copy_on_fork,saved_pct,list_max,faults_cowcor,faults_copy
366,366,30.1,34.2,34.0,232,366,36.6,4,2000,2100
""",
    "ifs.csv": """preset,kind,interval_s,penalty_s,mode,cache_fixed_kb,run,policy,mem_mb,free_kb,toucher_kb,dirty_pct,sort_input,sort_kb,throttle_bps,throttle_iops,icount_shift,rounds,resp_min_ms,resp_max_ms,resp_avg_ms,after_ms,after_pageins,sort_ms,sort_internal_ms,sort_runs,sort_passes,pageins,pageouts,toucher_pageins,toucher_pageouts,cache_min_kb,cache_max_kb,fs_asks_vm,fs_asks_vm_satisfied,vm_asks_fs,vm_asks_fs_satisfied,age_lag_ms,pageins_all,disk_reads,disk_writes,host_load
paper,standalone,,,,,1,lru,8,5464,,,1M,128,1048576,50,8,,,,,,,45000,44000,17,1,0,0,,,1000,3000,0,0,0,0,2000,10,2,40,1.0
paper,standalone,,,,,2,lru,8,5464,,,1M,128,1048576,50,8,,,,,,,47000,46000,17,1,0,0,,,1000,3000,0,0,0,0,2000,10,2,40,2.5
paper,ifs,1,0,fixed,,1,lru,8,5464,4260,50,1M,128,1048576,50,8,59,0,40,2,10,1,90000,89000,17,1,3,5,1,2,800,1100,600,10,20,20,2000,5,700,900,1.5
paper,ifs,30,0,fixed,,1,lru,8,5464,4260,50,1M,128,1048576,50,8,2,13944,15388,14666,8139,110,118952,116433,17,1,280,354,273,310,912,2076,992,623,630,610,2109,300,724,902,1.5
paper,ifs,1,120,fixed,,1,lru,8,5464,4260,50,1M,128,1048576,50,8,60,0,30,1,2,0,100000,99000,17,1,0,0,0,0,800,1000,600,0,50,50,2000,5,700,900,1.5
paper,ifs,30,120,fixed,,1,lru,8,5464,4260,50,1M,128,1048576,50,8,3,1,3,2,1,0,92000,91000,17,1,0,0,0,0,820,1010,610,0,40,40,2000,5,700,900,1.5
paper,ifs,30,,cache,170,1,lru,8,5464,4260,50,1M,128,1048576,50,8,4,1,4,2,2,0,55000,54000,17,1,0,0,0,0,168,172,0,0,30,0,2000,5,700,900,1.5
matched,standalone,,,,,1,clock,20,17308,,,8M,320,524288,100,4,,,,,,,35500,35000,54,1,0,0,,,40,16836,1963,1900,4,4,2000,10,2,40,1.0
matched,ifs,30,0,fixed,,1,clock,20,17308,15360,50,8M,320,524288,100,4,3,0,9,4,20000,900,60000,59000,54,1,900,1000,880,950,900,2000,500,300,200,150,2000,5,700,900,1.5
matched,ifs,30,120,fixed,,1,clock,20,17308,15360,50,8M,320,524288,100,4,2,1,5,3,2,0,100000,99000,54,1,0,0,0,0,64,1200,800,0,40,40,2000,5,700,900,1.5
""",
    "ecd.csv": """preset,mem_paper_mb,mem_mb,cache,cache_kb,penalty_s,run,loops,scale,env_kb,usable_kb,throttle_bps,throttle_iops,icount_shift,elapsed_ms,ms_edit,ms_compile,ms_link,ms_debug,fs_read_kb,fs_write_kb,vm_read_kb,vm_write_kb,faults,pageins,pageouts,fs_asks_vm,fs_asks_vm_satisfied,vm_asks_fs,vm_asks_fs_satisfied,cache_min_kb,cache_max_kb,disk_busy_ms,disk_reads,disk_writes,pageins_backing,wall_s,host_load
short,10,12,variable,0,0,1,2,100,5716,9508,1048576,50,8,171355,2769,13828,81640,71678,28600,10880,12600,17504,12933,3150,4376,7501,4042,9551,4804,56,5072,109039,10288,7098,3101,369.5,2.5
short,16,18,variable,0,0,1,2,100,5492,15428,1048576,50,8,96091,2738,13773,41882,37239,16184,11648,588,1248,6953,147,312,1752,226,3237,2848,56,7688,22872,4193,3224,128,250.0,2.5
short,16,18,variable,0,0,2,2,100,5492,15428,1048576,50,8,104091,2738,13773,41882,37239,16184,11648,588,1248,6953,147,312,1752,226,3237,2848,56,7688,22872,4193,3224,128,250.0,2.5
short,16,18,variable,0,120,1,2,100,5492,15428,1048576,50,8,94000,2738,13773,41882,37239,16184,11648,100,0,6689,25,0,1818,0,3054,3054,56,7260,20000,4100,2912,25,240.0,2.5
short,16,18,fixed,512,,1,2,100,5492,15428,1048576,50,8,120000,2738,13773,51882,47239,30000,11000,400,800,6000,100,200,0,0,0,0,56,512,40000,7600,2950,90,300.0,2.5
""",
    "linux-ifs.csv": """preset,kind,interval_s,penalty_s,mode,run,policy,mem_mb,toucher_kb,sort_input,throttle_bps,throttle_iops,icount_shift,rounds,resp_min_ms,resp_max_ms,resp_avg_ms,sort_ms,sort_internal_ms,pageins,pageouts,toucher_pageins,toucher_pageouts,cache_min_kb,cache_max_kb,fs_asks_vm,fs_asks_vm_satisfied,vm_asks_fs,vm_asks_fs_satisfied,age_lag_ms,pageins_all,disk_reads,disk_writes,sort_host_ms,host_load,sort_kb,free_after_boot_kb,available_after_boot_kb,kernel
matched,standalone,,,,1,linux,42,,8M,524288,100,4,,,,,84600,84000,0,0,,,1764,12304,,,,,,3,,,,,320,11864,17808,6.1.0-50-686
matched,ifs,5,,,1,linux,42,15360,8M,524288,100,4,20,10,9000,1200.5,126900,,2000,3000,1900,,500,3000,,,,,,2100,,,,,320,11864,17808,6.1.0-50-686
matched,ifs,30,,,1,linux,42,15360,8M,524288,100,4,4,20,30000,15000,169200,,3000,4000,2900,,600,4000,,,,,,3100,,,,,320,11864,17808,6.1.0-50-686
""",
    "linux-mem.csv": """preset,ours_mem_mb,ours_free_kb,linux_mem_mb,linux_available_kb,linux_free_kb,linux_total_kb
matched,20,17308,42,17808,11864,26860
""",
    # two traces at two sizes below their pages (and one at all pages, which the sums skip)
    "tracesim/sim.csv": """trace,epoch_ms,references,pages,frames,policy,faults,writes,over_min_pct
a.trace,100,500,100,50,MIN,100,0,0.0
a.trace,100,500,100,50,clock,150,0,50.0
a.trace,100,500,100,50,lru,110,0,10.0
a.trace,100,500,100,50,clusterlru,115,0,15.0
a.trace,100,500,100,50,random,200,0,100.0
a.trace,100,500,100,50,spt,100,0,0.0
a.trace,100,500,100,80,MIN,100,0,0.0
a.trace,100,500,100,80,clock,130,0,30.0
a.trace,100,500,100,80,lru,120,0,20.0
a.trace,100,500,100,80,clusterlru,120,0,20.0
a.trace,100,500,100,80,random,140,0,40.0
a.trace,100,500,100,80,spt,110,0,10.0
a.trace,100,500,100,100,MIN,100,0,0.0
a.trace,100,500,100,100,clock,100,0,0.0
a.trace,100,500,100,100,lru,100,0,0.0
a.trace,100,500,100,100,clusterlru,100,0,0.0
a.trace,100,500,100,100,random,100,0,0.0
a.trace,100,500,100,100,spt,100,0,0.0
b.trace,100,900,300,100,MIN,300,0,0.0
b.trace,100,900,300,100,clock,302,0,0.7
b.trace,100,900,300,100,lru,310,0,3.3
b.trace,100,900,300,100,clusterlru,305,0,1.7
b.trace,100,900,300,100,random,301,0,0.3
b.trace,100,900,300,100,spt,310,0,3.3
""",
    "linux-ecd.csv": """preset,mem_paper_mb,mem_mb,cache,cache_kb,penalty_s,run,loops,scale,icount_shift,elapsed_ms,fs_read_kb,fs_write_kb,vm_read_kb,vm_write_kb,faults,disk_busy_ms,kernel
matched-fast,16,40,linux,,,1,2,100,,50000,20000,10000,1024,2048,9000,0,6.1.0-50-686
""",
}
PARTS = ["boot", "vm-faults", "vm-irlam", "fs-cached", "fs-summary", "fs-disk", "fs-policy", "fork-7-1",
         "fork-7-3", "ifs-paper", "ifs-matched", "ecd-points", "ecd-table2", "linux-ifs", "hagmann", "headline"]


def readme_text(parts=PARTS):
    out = ["# Title", "", "Prose before stays.", ""]
    for p in parts:
        out += ["Prose about %s." % p, "<!-- bench:%s (generated) -->" % p, "old %s figures" % p,
                "<!-- /bench:%s -->" % p, ""]
    return "\n".join(out + ["Prose after stays.", ""])


@pytest.fixture
def setup(tmp_path):
    bench = tmp_path / "bench"
    bench.mkdir()
    for name, text in CSVS.items():
        (bench / name).parent.mkdir(exist_ok=True)
        (bench / name).write_text(text)
    readme = tmp_path / "README.md"
    readme.write_text(readme_text())
    return readme, bench


def tool(readme, bench, *extra, partial=True):
    """results.py on readme (a file or a folder of them). The CSVs above hold a short IFS run,
    taken with --partial unless partial=False."""
    return subprocess.run([sys.executable, TOOL, "--docs", str(readme), "--bench", str(bench), *extra]
                          + (["--partial"] if partial else []), capture_output=True, text=True, timeout=60)


def part(text, name):
    """The generated part, its lines joined by single spaces (sentences are wrapped)."""
    return " ".join(text.split("<!-- bench:%s" % name)[1].split("<!-- /bench:%s -->" % name)[0].split())


def test_every_part_regenerated_and_nothing_else(setup):
    readme, bench = setup
    r = tool(readme, bench)
    assert r.returncode == 0, r.stderr
    text = readme.read_text()
    assert "old " not in text                                   # every part replaced
    for p in PARTS:
        assert "Prose about %s." % p in text
    assert text.startswith("# Title\n\nProse before stays.") and text.endswith("Prose after stays.\n")
    assert "| GRUB ISO (menu timeout 0) | 0.66 s | 0.61 s | 0.72 s |" in part(text, "boot")
    assert "host load average 0.5-1.5 on 2 cores" in part(text, "boot")
    vmf = part(text, "vm-faults")
    assert "| 5,127 |" in vmf and "| 4,975 |" in vmf and "872 = 17 % of a page copy" in vmf
    assert "NOT MET" not in vmf
    # min, median and max over the runs, not one run's figure
    assert "| 4 | 2 | 0.93 | 0.87 | 1.00 | 0 |" in part(text, "vm-irlam")
    irl = part(text, "vm-irlam")
    assert "| 26 | 13 | < 0.03 | < 0.03 | < 0.04 | 153,138 |" in irl, irl
    assert "had runs cut" not in irl
    assert "| 4 | 2 | 0.93 | 0.87 | 1.00 | 0 |" in irl
    assert "3 runs" in irl and "13.7 MB of frames" in irl and "`vmtest -l 30000 MB 20000`" in irl
    # The knee is the first row below half the 2 MB row's speed, read from the rows, with its page-ins.
    assert "The knee: 26 MB (13.7 MB of frames)" in irl and "where 4 MB still ran at 0.93" in irl, irl
    assert "from 0 at 4 MB to 153,138 at 26 MB (in the time limit, not done" in irl, irl
    fsc = part(text, "fs-cached")
    assert "5,127 ns (799 MB/s)" in fsc and "| read | 2 | 503 | 533 | 562 |" in fsc
    assert "| read / page copy | 0 % | 63 % | 67 % | 70 % |" in fsc
    fss = part(text, "fs-summary")
    assert "67–70 % of the copy bandwidth (target 50 %: met)" in fss and "3,861 blocks" in fss
    assert "single runs ranged over 6–80 MB/s" in part(text, "fs-disk")
    assert "| through | 1428 | 3545 | 4973 | 718 | 1489 | 2207 |" in part(text, "fs-policy")
    f71 = part(text, "fork-7-1")
    assert "| 2048 | 0.210 | 0.318 | 3.929 | 52.500 |" in f71
    assert "18.7 resident (target >= 10: met" in f71 and "165 on backing store" in f71
    assert "| 64 | – |" in f71                                   # a size not measured: a dash
    assert "| here | 366 | 366 | 30 % | 34 % | 34 % | 37 % (232 vs 366" in part(text, "fork-7-3")
    ifs = part(text, "ifs-paper")
    # averages of the runs; degradation against the median sort alone (46 s); the touches during
    # sort apart from the first after it; page-ins in pages and MB; Sprite's row beside
    assert "| ours | 0 s | 30 | 13.94 / 15.39 / 14.67 (2) | 8.14, 110 | 119.0 | +159 % | 280 (1.1 MB) | " \
        "354 (1.4 MB) | 273 / 310 | 912–2,076 | 623 / 992 | 610 / 630 | " \
        "12.5 / 22.0 / 15.8 s, 96.3 s, 61 %, 1250 / 983 (9.8 MB in), 141–2533 |" in ifs
    assert "| ours | 170 KB fixed cache | 30 | 0.00 / 0.00 / 0.00 (4) | 0.00, 0 | 55.0 | +20 % |" in ifs
    assert "8 MB (5.3 MB free after boot" in ifs and "a toucher of 4.16 MB dirtying 50 % of its pages a round, " \
        "sort of a 1M file with a 128 KB budget (17 runs, 1 merge pass before the last merge)" in ifs
    assert "sort alone 46.0 s (2 runs: 45.0–47.0)" in ifs and "3.9 MIPS (-icount shift=8" in ifs
    # every target names its control and the control's figure (tools/bench/targets.py); one run a
    # point has no verdict (the verdicts themselves: test_headline.py's three runs, test_bench_controls.py)
    assert "| the 120 s penalty: its slowest touch at most 0.1 s | S = 30 s | 0.00 s | no penalty | 15.39 s | " \
        "one run: no verdict |" in ifs
    assert "| the 120 s penalty: sort within 20 % of sort alone | S = 30 s | +100 % | no penalty | +159 % |" in ifs
    assert "by point: 8 no verdict, 1 no target." in ifs and "Linux" not in ifs
    # the small fixed cache's claim (WRL 90/4 section 4): its cost to sort has no 64 KB control run
    assert "| the 170 KB fixed cache: its slowest touch at most 0.1 s | S = 30 s | 0.00 s | no penalty | 15.39 s |" in ifs
    assert "| the 170 KB fixed cache: sort within 25 % of sort alone | S = 30 s | +20 % | the fixed 64 KB cache | " \
        "not run | no control measured: not a target |" in ifs
    assert "page-ins by S (1, 30): 1, 273, growing with S (Sprite's Table 3" in ifs
    m = part(text, "ifs-matched")
    assert "20 MB (16.9 MB free after boot" in m and "with a 320 KB budget (54 runs" in m
    # Linux's row under ours, what it does not measure empty, its degradation against its own sort alone
    assert "| Linux | page cache | 5 | 0.01 / 9.00 / 1.20 (20) | | 126.9 | +50 % | 2,000 (7.8 MB) | " \
        "3,000 (11.7 MB) | 1,900 / – | 500–3,000 | | |" in m
    assert "| Linux | page cache | 30 |" in m
    assert "Linux had 17.4 MB available after boot (MemAvailable)" in m and "Sprite" not in m
    assert "Negotiations happened each way: over the variable-cache rows the cache asked the VM 1,300 times " \
        "(got 300 pages) and the VM asked the cache 240 times (got 190)." in m
    # ECD: the runs of a point averaged (16 MB variable: 96.1 and 104.1 s), Sprite's row beside,
    # busy = disk.busy_ms over elapsed; a fixed cache with Sprite's name; the fastest point named.
    ecd = part(text, "ecd-points")
    assert "| 16 | variable | 100 [96–104] | 23 % | 27.2 [27.2–27.2] (15.8 / 11.4) | 1.8 [1.8–1.8] (0.6 / 1.2) | 6,953 " \
        "| 663 s, 18.2 %, 16.2, 23.3, 1,560 |" in ecd
    assert "| 16 | fixed 0.5M | 120 | 33 % | 40.0 (29.3 / 10.7) |" in ecd and "667 s, 17.4 %, 38.9, 10.6, 699 |" in ecd
    assert "16 MB: fastest here variable 120 s (94 s), Sprite variable 120 s (653 s)" in ecd
    assert "Sprite's P MB standing for a guest of P + 2 MB" in ecd and "2 runs (elapsed, FS and VM MB: median [min–max]; the rest averaged)" in ecd
    assert "a penalty against none (elapsed, VM MB): 16 MB 120 s 94 s against 100 s, 0.1 against 1.8 MB (Sprite, " \
        "the same points: 16 MB 653 s against 663 s, 20.4 against 23.3 MB)" in ecd
    assert "16 MB 27.2 against 40.0 and 1.8 against 1.2; fewer file bytes at 1 of 1 memories and more VM bytes " \
        "at 1" in ecd
    assert "| 10 | 0.05–4.95 | 4,042 / 7,501 | 4,804 / 9,551 | 0.25–5.6, 1,810 / 8,125, 1,846 / 2,942 |" in \
        part(text, "ecd-table2")
    lx = part(text, "linux-ifs")
    assert "in a 42 MB machine" in lx and "17,808 KB available" in lx and "leaves 17,308 KB" in lx
    assert "| sort alone | 84.6 | |" in lx and "| 5 | 126.9 | +50 % | 0.01 / 9.00 / 1.20 | 1,900 | 2,000 | 3,000 |" in lx
    assert "| 30 | 169.2 | +100 % |" in lx
    # Hagmann: faults summed over the sizes below the pages (a: 200 MIN, 280 clock, 230 LRU), his
    # findings each held against ours, a trace with no gap from clock to MIN left out of SPT's
    hg = part(text, "hagmann")
    assert "| a (100, 500) | +40 % | +70 % | +18 % | +15 % | +5 % |" in hg and "| b (300, 900) | +1 % |" in hg
    assert "clock over LRU by 10-40 %: a +22 %, b -3 % (1 of 2 traces inside his range)" in hg
    assert "clock had fewer faults on 1 of 2 traces (a)" in hg
    assert "on 2 of 2 traces within a third of the clock-LRU difference" not in hg
    assert "SPT closes 20-50 % of the gap from clock to MIN: a 88 % (0 of 1 inside his range; b: clock within 5 % " \
        "of MIN, no gap)" in hg


def test_rerun_changes_nothing_and_check_sees_stale_figures(setup):
    readme, bench = setup
    assert tool(readme, bench).returncode == 0
    first = readme.read_text()
    assert tool(readme, bench).returncode == 0
    assert readme.read_text() == first
    assert tool(readme, bench, "--check").returncode == 0
    (bench / "vm.csv").write_text(CSVS["vm.csv"].replace("zerofault,4975", "zerofault,5548")
                                  .replace("zerofault_overhead_pct,17.0", "zerofault_overhead_pct,28.3"))
    r = tool(readme, bench, "--check")
    assert r.returncode == 1 and "differs" in r.stderr
    assert readme.read_text() == first                          # --check writes nothing
    assert tool(readme, bench).returncode == 0
    assert "28 % of a page copy (target <= 25 %: NOT MET" in readme.read_text()


def test_a_benchmark_not_run_leaves_its_part(setup):
    readme, bench = setup
    (bench / "fork.csv").unlink()
    r = tool(readme, bench)
    assert r.returncode == 0, r.stderr
    text = readme.read_text()
    assert "old fork-7-1 figures" in text and "old vm-faults figures" not in text


@pytest.mark.parametrize("damage", ["marker", "column", "rows"])
def test_what_it_cannot_do_is_one_clear_line(setup, damage):
    readme, bench = setup
    if damage == "marker":
        readme.write_text(readme_text([p for p in PARTS if p != "fs-policy"]))
        want = "no <!-- bench:fs-policy -->"
    elif damage == "column":
        (bench / "boot.csv").write_text(CSVS["boot.csv"].replace("median_s", "med_s"))
        want = "median_s"
    else:
        (bench / "vm-irlam.csv").write_text(CSVS["vm-irlam.csv"].splitlines()[0] + "\n")
        want = "vm-irlam.csv has no rows"
    before = readme.read_text()
    r = tool(readme, bench)
    assert r.returncode != 0 and want in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert readme.read_text() == before


def test_the_results_chapter_has_every_part_and_no_other_chapter_has_one(tmp_path):
    """make results writes into docs/results.md by default; a part left in a design chapter
    would be a second copy of its figures (or, with the default, never made again)."""
    r = subprocess.run([sys.executable, TOOL, "--bench", str(tmp_path), "--check"], capture_output=True,
                       text=True, timeout=60)                    # no CSVs: nothing to change
    assert r.returncode == 0, r.stderr
    import results
    names = [name for name, *_ in results.PARTS]
    assert set(PARTS) <= set(names)
    docs = os.path.join(ROOT, "docs")
    chapter = open(os.path.join(docs, "results.md")).read()
    for name in names:                                           # the headline too: the README links to it
        assert results.marker(name).search(chapter), "docs/results.md has no part %s" % name
    assert "<!-- bench:" not in open(os.path.join(ROOT, "README.md")).read(), "the README holds a generated part"
    for md in sorted(os.listdir(docs)):
        if md.endswith(".md") and md != "results.md":
            text = open(os.path.join(docs, md)).read()
            assert "<!-- bench:" not in text, "docs/%s holds a generated part: it belongs in docs/results.md" % md
    r = subprocess.run([sys.executable, TOOL, "--docs", docs, os.path.join(ROOT, "README.md"), "--bench", str(tmp_path),
                        "--check"], capture_output=True, text=True, timeout=60)   # the book and README: each part once
    assert r.returncode == 0, r.stderr


def test_a_short_run_is_refused_for_a_full_table(setup):
    readme, bench = setup
    before = readme.read_text()
    r = tool(readme, bench, partial=False)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    # what it lacks, named: rows never run, too few runs, sort alone
    assert "ifs-paper: a shorter run" in r.stderr and "0 s at S = 5: 0 runs of 3" in r.stderr, r.stderr
    assert "0 s at S = 1: 1 run of 3" in r.stderr and "sort alone: 2 runs of 3" in r.stderr, r.stderr
    assert "RESULTS_ARGS=--partial" in r.stderr
    assert readme.read_text() == before                          # nothing written


def test_a_partial_run_says_so_in_its_table(setup):
    readme, bench = setup
    assert tool(readme, bench).returncode == 0
    ifs = part(readme.read_text(), "ifs-paper")
    assert ifs.startswith("(generated) --> Partial run (not the full one this table is made from): ")
    assert "120 s stepped at S = 10: 0 runs of 3" in ifs
    assert "Partial run" not in part(readme.read_text(), "boot")     # 5 runs: a full one
    # the short ECD preset: 4 points of the full grid's 58, the first missing ones named
    assert "4 of the full grid's 58 points (none of 10 MB nocache, 10 MB 0.5M, 10 MB 1M," in \
        part(readme.read_text(), "ecd-points")


def test_only_the_parts_named_are_regenerated(setup):
    readme, bench = setup
    r = tool(readme, bench, "--only", "boot,fork-7-1")
    assert r.returncode == 0, r.stderr
    text = readme.read_text()
    assert "old boot" not in text and "old fork-7-1" not in text
    assert all("old %s figures" % p in text for p in PARTS if p not in ("boot", "fork-7-1"))
    before = readme.read_text()
    r = tool(readme, bench, "--only", "boot,nosuch")
    assert r.returncode != 0 and "no part named nosuch" in r.stderr and readme.read_text() == before


def test_a_short_boot_run_is_refused_too(setup):
    readme, bench = setup
    (bench / "ifs.csv").unlink()
    (bench / "boot.csv").write_text(CSVS["boot.csv"].replace(",5,", ",2,"))
    r = tool(readme, bench, partial=False)
    assert r.returncode != 0 and "boot: a shorter run" in r.stderr and "2 runs of the grub route, not 5" in r.stderr


def test_the_reading_under_a_table_cites_its_own_figures(setup):
    readme, bench = setup
    assert tool(readme, bench).returncode == 0
    ifs = part(readme.read_text(), "ifs-paper")
    # the rows without a penalty: S = 1 and 30; the toucher's page-ins 1 and 273, touches 0.04 and 15.39 s
    assert "Without a penalty the toucher's page-ins at S = 1, 30 were 1, 273, its slowest touches 0.04, " \
        "15.39 s, and the cache grew to 1100–2076 KB" in ifs
    assert "With a fixed penalty the toucher paged in 0 pages in all, over 2 rows; the cache's asks of the VM " \
        "were granted 0 times of 1210, and sort's cache held at most 1010 KB." in ifs
    assert "No negotiation took place" not in ifs
    lines = CSVS["ifs.csv"].splitlines(True)
    paper = "".join(lines[:1] + [l for l in lines if l.startswith("paper,")])
    (bench / "ifs.csv").write_text(paper.replace("600,10,20,20", "0,0,0,0").replace("992,623,630,610", "0,0,0,0")
                                   .replace("600,0,50,50", "0,0,0,0").replace("610,0,40,40", "0,0,0,0"))
    assert tool(readme, bench).returncode == 0
    ifs = part(readme.read_text(), "ifs-paper")
    assert "No negotiation took place" in ifs
    # with no ask of the cache, the toucher's targets were not tested, never met
    assert "| the 120 s penalty: the toucher's page-ins 0 at S >= 5 s | S = 30 s | 0 | no penalty | 273 | " \
        "not tested: the cache never asked the VM |" in ifs
    assert not re.search(r"\| the 120 s penalty: the toucher[^|]*(\|[^|]*){4}\| met \|", ifs)


def test_the_matched_preset_without_negotiation_is_refused(setup):
    # Its point is that the pools trade: a run with no ask either way tests nothing (the old
    # linux-scaled preset's 96 MB never ran short), and its table must not be written.
    readme, bench = setup
    before = readme.read_text()
    for old, new in (("500,300,200,150", "0,0,200,150"), ("500,300,200,150", "500,300,0,0")):
        (bench / "ifs.csv").write_text(CSVS["ifs.csv"].replace(old, new).replace("800,0,40,40", "0,0,0,0"))
        r = tool(readme, bench)
        assert r.returncode != 0 and "ifs-matched: no negotiation" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and readme.read_text() == before


def test_the_matched_preset_says_when_linux_has_not_run(setup):
    readme, bench = setup
    (bench / "linux-ifs.csv").unlink()
    assert tool(readme, bench).returncode == 0
    m = part(readme.read_text(), "ifs-matched")
    assert "No Linux rows: build/bench/linux-ifs.csv is missing (make bench-linux). The hand-made runs (not " \
        "measured in this run: a constant of bench_ifs.py) had Linux 6.1 at 17.4 MB free" in " ".join(m.split())
    assert "| Linux |" not in m


def test_parts_spread_over_several_files(setup, tmp_path):
    readme, bench = setup
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(readme_text(PARTS[:3]))
    (docs / "b.md").write_text(readme_text(PARTS[3:]))
    (docs / "notes.txt").write_text("<!-- bench:boot -->\nnot a document\n<!-- /bench:boot -->\n")
    r = tool(docs, bench)
    assert r.returncode == 0, r.stderr
    assert "old " not in (docs / "a.md").read_text() + (docs / "b.md").read_text()
    assert "not a document" in (docs / "notes.txt").read_text()
    (docs / "c.md").write_text(readme_text(PARTS[:1]))            # boot twice: which one?
    r = tool(docs, bench)
    assert r.returncode != 0 and "two pairs of <!-- bench:boot -->" in r.stderr, r.stderr


def test_every_figure_is_drawn(setup, tmp_path):
    try:
        import bench_figures
    except ImportError as e:
        pytest.fail("%s: make test installs matplotlib (tools/setup/pydeps.py)" % e)
    _, bench = setup
    for fn, name in ((bench_figures.vm, "vm-irlam"), (bench_figures.fork, "fork"), (bench_figures.fs, "fs"),
                     (bench_figures.boot, "boot")):
        png = tmp_path / (name + ".png")
        assert fn(str(bench / (name + ".csv")), str(png)) == str(png)
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
    (bench / "ifs-series.csv").write_text("preset,interval_s,penalty_s,mode,cache_fixed_kb,run,what,t_s,value,pageins\n"
                                          + "".join("%s,30,%s,%s,%s,1,%s,%d,%d,\n" % (pre, p, m, kb, w, t, v)
                                                    for pre in ("paper", "matched")
                                                    for p, m, kb in (("0", "fixed", ""), ("120", "fixed", ""),
                                                                     ("", "cache", "170"))
                                                    for w, v in (("cache_kb", 900), ("touch_ms", 5))
                                                    for t in range(-5, 120, 10)))
    for preset in ("paper", "matched"):
        pngs = bench_figures.ifs(str(bench / "ifs.csv"), str(bench / "ifs-series.csv"), preset,
                                 str(tmp_path / "t.png"), str(tmp_path / "tab.png"), linux_csv=str(bench / "linux-ifs.csv"))
        for png in pngs:
            data = open(png, "rb").read()
            assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, png


def test_linuxs_rows_say_how_its_machine_was_matched_and_what_each_setup_stands_for(tmp_path):
    """results.linux_setups: by memfit, both kernels' figures and MemAvailable's; a row matched by
    MemAvailable says so; none recorded says that; each setup named with what it is read against."""
    import results
    (tmp_path / "linux-mem.csv").write_text(
        "preset,matched_by,ours_mem_mb,ours_free_kb,ours_shared_kb,ours_memfit_kb,linux_mem_mb,linux_available_kb,"
        "linux_free_kb,linux_total_kb,linux_memfit_kb\n"
        "paper,memfit,10,7244,7500,7168,37,13036,6776,30000,7296\nmatched,,20,17000,,,96,17800,12000,90000,\n")
    text = results.linux_setups(str(tmp_path), "paper", {5: {}}, {5: {}})
    assert "Linux ran in 37 MB" in text and "7,296 KB there, 7,168 KB here" in text and "13,036 KB" in text
    assert "'page cache' is Debian's setup" in text and "'page cache, protected' the control rows" in text
    assert "matched by MemAvailable (17800 KB)" in results.linux_setups(str(tmp_path), "matched", {5: {}}, None)
    assert "protected" not in results.linux_setups(str(tmp_path), "matched", {5: {}}, None)
    assert "not recorded" in results.linux_setups(str(tmp_path), "nosuch", {5: {}}, None)
