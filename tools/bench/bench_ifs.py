#!/usr/bin/env python3
"""make bench-ifs: the IFS benchmark of WRL 90/4 (sections 3, 5.2 and 6.3; Tables 3 and 4).

An interactive program, the toucher, holds most of memory and every S seconds touches all of
it, dirtying half (--dirty: the thesis's Table 6-5 dirtied 10 %); `sort`, an external merge sort with many temporary files, runs beside it
and wants memory for the file cache. Without a penalty the cache takes the sleeping toucher's
pages, and each touch waits for them to come back from backing store; with a 120 s penalty
the cache may take a VM page only if it has been idle 120 s longer than the cache's own oldest
block, so the toucher keeps its memory and sort lives in a small cache. Sprite ran with 1200 s
(thesis 6.3). Rows with a small FIXED cache (fs.cache_fixed_kb, --fixed-kb) test the paper's
section 4: a cache of 170 KB-1 MB gives instant response (no page-ins) and costs sort at most
25 % against sort alone with all of memory for its cache.

ONE RUN is one fresh boot on a private copy of an image that holds sort's input (/in, made once
a preset by mklines: on disk, not in the cache, when a run begins): set the policy and the
penalty, start a sampler of the cache's size (`vmstat -i`) and the toucher in the background;
once the toucher has touched everything once (it prints "touch 1"), reset the negotiation's
counters, take a time stamp, run sort, take another, wait until the toucher has finished a
round begun after that stamp (however long it pages), read every counter and `ps`, kill both
background jobs. The standalone
case is the same boot without the toucher. Each row (preset, penalty or fixed cache, S) runs
--runs times. What the kernel has free after boot (free frames and the cache's blocks, less the
kernel's reserve) is read before anything starts and kept with each run (free_kb).
A run whose guest fell below 0.95 of real time (sort's guest span over its host span, or the
whole run's: benchlib.boot_steps' pace) is booted again, 3 boots in all; each row keeps its
guest_ratio, and a run none of whose boots kept pace is a row that says "guest too slow: not
measured", its figures empty.

WHAT A ROW REPORTS. The toucher's responses (min, max, avg of its rounds that overlapped sort)
and, apart from them, its first round after sort (after_ms, after_pageins: the damage sort did
is seen when the toucher next wakes, and at S = 30 it may be the only round there is); its
page-ins are those of both; sort's time (between the two time stamps: exec and exit included)
and its degradation against the median standalone sort of the same preset; page-ins from
backing store and page-outs of the whole machine and of the toucher alone; the cache's least
and greatest size since the reset (fs.cache.held_min_kb/held_max_kb); the paper's Table 2 counters;
sort's runs and merge passes (sort -v); the disk driver's watchdog notes (disk_stalls: a completion
interrupt lost on a slow host, a second's stall each). The CSV has one line a run; the documented
(docs/results.md) and the printed tables show a row's median with the runs' least and greatest
(ifs_tables.py, SPREADS: the paper averaged 3 runs and hid their spread).

PRESETS.
  paper         Sprite's machine as the benchmark pressed it (WRL 90/4 section 3: 6.7 MB for user
                processes, a 5.7 MB interactive program, "at most 1 Mbyte for sort and the file
                system cache"): a 10 MB machine, the least whole size that leaves this kernel at
                least Sprite's 6.7 MB free after boot (7.1 MB: free_kb), and a toucher of all of
                that but 1 MB (6.1 MB: computed in the guest from its free frames before it
                starts), filled first and dirtying half its pages a round; sort of a 3 MB file
                with its default budget (51 runs, one merge pass before the last). A 1990-class
                machine: the CPU slowed by -icount shift=7 (128 ns of guest time an instruction,
                7.8 MIPS; a Sun-3/75 did about 2), its clock held to the host's (align=on) and
                kept by the TSC (kernel.clock=tsc: a count of the PIT's interrupts lost a quarter
                of the time at shift 8); the disk throttled to 1 MB/s and 25 requests a second (a
                random access of 40 ms). QEMU holds the guest's clock to the host's: a disk
                transfer that overlaps the CPU's work then takes its real share of it. Times are
                the guest's, equal to real time.
                CALIBRATED on the rows without a penalty against Table 3 in bytes (printed under
                the table, ifs_tables.calibration; tests/host/test_bench_ifs.py holds recorded
                runs to it): page-ins and sort's degradation within a factor of 2 of Sprite's at
                S = 5 and 30 s. Tried on the way, one run a point (S = 5 / 30: page-ins, sort):
                the old 8 MB preset at shift 8 with a 1 MB sort, 10 / 227 pages (0.04 / 0.9 MB),
                +4 / +3 %: sort CPU-bound and done inside one sleep; shift 6, 5 MB, 50
                requests/s: 11.6 / 8.3 MB, +49 / +27 % (sort's cache took so fast that a toucher
                sleeping 5 s lost every page it had, rounds of 1,060 page-ins); 8 MB at shift 7, 3 MB:
                50 requests/s 2.9 / 8.2 MB, +17 / +15 %, 30 requests/s three runs 1.7-5.9 /
                7.9-8.1 MB, +20-30 / +31-32 %; at 30 and 25 requests/s S = 30 stayed near +30 %,
                because a round cannot page in more than the toucher holds (4.3 MB at 8 MB);
                at 10 MB, 30 requests/s 3.5 / 9.8 MB, +27 / +30 %, and 25 requests/s 5.1 / 9.7
                MB, +31 / +39 %. What stands for what: Sprite's sort degraded because its CPU
                was busy faulting pages in over the network (section 5.2); here a page-in costs
                the CPU little (virtio's DMA), and its cost is the disk's time, shared with
                sort, so the slow disk stands for both the server and the client's CPU.
  matched       the Linux runs' mix on the same memory free to programs (make bench-linux,
                build/bench/linux-ifs.csv): a 20 MB machine, which leaves this kernel 16.9 MB
                free after boot (measured, free_kb; Linux 6.1 had 17.4 MB free in its 96 MB
                guest), a 15 MB toucher, sort of an 8 MB file with a 320 KB budget (-m 320,
                tried by hand for the 38 runs and 2 merge passes of the hand-made Linux runs'
                sort; ours makes 54 runs and 1 pass before the last merge with it, and
                make bench-linux runs this same sort with the same budget), the disk
                throttled to 512 KB/s and 100 requests a second; the toucher fills its memory
                first (toucher -f, on Linux too: a page it only reads would otherwise be
                Linux's shared zero page there, and Linux's toucher would hold 8 MB of its 15);
                a CPU of 62.5 MIPS (-icount shift=4, align=on). Not
                full speed: plain TCG delivers the kernel's 1000 Hz tick late or not at all on
                a busy host, and its clock lost time (a guest `sleep 10` took 17.8-27.7 s of
                host time at a load of 8-11), while the throttled disk keeps the host's; with
                the guest's clock held to the host's, a guest second is a second of the disk's.
                The host's time of each sort is kept beside the guest's (sort_host_ms) to show
                it. The table puts Linux's rows (linux-ifs.csv, when it exists) under ours.

SPRITE'S MECHANISM (--mechanism sprite): the ablation. This kernel has what Sprite had not -- a
dirty bound, busy answers, read-ahead, clustered requests -- and each changes what sort and the
toucher do under pressure; so that "beside Sprite" compares Sprite's mechanism, the same rows
run with all four off (SPRITE_MECHANISM) are kept apart (column mechanism) and printed in a
table of their own, with their own sort alone and calibration against Table 3.

    bench_ifs.py [--preset paper|matched|both] [--intervals 1,5,10,30] [--penalties 0,120,120:stepped,1200,adaptive]
                 [--fixed-kb 170,512,1024] [--dirty PERCENT] [--mechanism ours|sprite] [--runs 3] [-j 2] [--mem MB] [--toucher-mb MB]
                 [--sort-input SIZE] [--sort-kb KB] [--throttle-bps N] [--throttle-iops N]
                 [--icount SHIFT|none] [--no-standalone]

Writes build/bench/ifs.csv (one line a run; a preset's lines replace that preset's earlier
ones), build/bench/ifs-series.csv (the cache's size and the toucher's responses over time),
the console of each run under build/bench/ifs-logs, and the figures ifs-PRESET-time.png and
ifs-PRESET-tables.png. The parsing below is pure (console text in, numbers out) and
tests/host/test_bench_ifs.py holds it against recorded consoles."""
import argparse, csv, os, re, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (RUN_COLUMNS, ROOT, TOO_SLOW, TOO_SLOW_RC, boot_steps, bench_path, run_all,  # noqa: E402
                      Journal, run_identity, run_ratio)
import ifs_tables   # noqa: E402
from ifs_tables import aggregate, config_label, config_of, read_csv   # noqa: E402
import targets   # noqa: E402

NAME = "bench-ifs"
PRESETS = {
    "paper": dict(mem=10, toucher_mb=None, sort_input="3M", sort_kb=None, throttle_bps=1 << 20, throttle_iops=25,
                  icount=7, policy="clock", align=True, dirty=50, fill=True, clock="tsc"),
    # must_negotiate: its table is refused unless the cache and the VM asked each other (results.py)
    "matched": dict(mem=20, toucher_mb=15.0, sort_input="8M", sort_kb=320, throttle_bps=512 << 10,
                    throttle_iops=100, icount=4, policy="clock", align=True, dirty=50, must_negotiate=True,
                    fill=True, clock="tsc"),
}
LINUX_CSV = "linux-ifs.csv"         # make bench-linux's runs, columns as ifs.csv's
LINUX_FREE_KB = 17818               # Linux 6.1 in a 96 MB guest, after boot, without linux-ifs.csv
LEAVE_KB = 1024           # what the paper preset's toucher leaves to sort and the cache together
SORT_DEFAULT_KB = 128     # sort's budget without -m (user/sort.c)
RESERVE_FRAMES = 64       # the kernel's reserve of free frames (kernel/mem/negotiate.c KERNEL_RESERVE)
SAMPLE_MS = 1000          # the cache sampler's period (a sample costs the guest some kstat text)
# Numbers that reach the text, each with what it is (tests/host/test_bench_literals.py).
PRINTED_CONSTANTS = {"LEAVE_KB": "a setting of the paper preset", "SAMPLE_MS": "a setting (a typed command's)",
                     "SORT_DEFAULT_KB": "sort's budget without -m (a setting)"}


# Counted from just before sort: DELTA (their values then are subtracted), then the rest.
DELTA = ["vm.pageins.backing", "vm.pageouts", "vm.pageins", "fs.disk.reads", "fs.disk.writes"]
COUNTERS = DELTA + ["fs.cache.held_min_kb", "fs.cache.held_max_kb", "neg.fs_asks_vm", "neg.fs_asks_vm_satisfied",
                    "neg.vm_asks_fs", "neg.vm_asks_fs_satisfied", "vm.age_lag_ms"]
# What a negotiation in which nothing was traded cost (kernel/mem/negotiate.c): a line of its own after
# the others (runs recorded before it have none).
COST = ["neg.untraded", "neg.untraded_tsc_avg", "neg.untraded_tsc_min"]
# The disk's requests by class and their bytes (a request may carry several blocks: fs/cluster.c),
# before sort and at the end, each a line of its own (runs recorded before them have neither; runs
# recorded before the flushes were counted have the first four). bench_linux.py reads the same
# classes of Linux's /proc/diskstats.
REQUESTS = ["disk.reads", "disk.writes", "disk.read_kb", "disk.write_kb", "disk.flushes"]
REQUEST_COLUMNS = ["read_requests", "write_requests", "read_kb", "write_kb", "flush_requests"]
# The pools' refaults since sort began (neg.reset clears them, kernel/mem/refault.c) and the bias the
# VM had learned at the end (vm.penalty_mode=adaptive; 0 in the other modes): a line at the end.
REFAULTS = ["refault.vm.refaults", "refault.vm.early", "refault.vm.saved", "refault.vm.bias_ms",
            "refault.fs.refaults", "refault.fs.early"]
REFAULT_COLUMNS = ["vm_refaults", "vm_early_refaults", "vm_saved", "bias_ms", "fs_refaults", "fs_early_refaults"]
SAMPLED = ["fs.cache.blocks", "vm.pageins.backing", "mem.frames.free"]
STAMP = "vmstat -i 1 1 fs.cache.blocks"          # one time-stamped sample: "@UPTIME BLOCKS"

COLUMNS = ["preset", "kind", "interval_s", "penalty_s", "mode", "cache_fixed_kb", "mechanism", "run", "policy", "mem_mb",
           "free_kb", "toucher_kb", "dirty_pct", "sort_input", "sort_kb", "throttle_bps", "throttle_iops",
           "icount_shift", "clock", "rounds", "resp_min_ms", "resp_max_ms", "resp_avg_ms", "after_ms", "after_pageins",
           "sort_ms", "sort_internal_ms", "sort_runs", "sort_passes", "pageins", "pageouts", "toucher_pageins", "toucher_pageouts",
           "cache_min_kb", "cache_max_kb", "fs_asks_vm", "fs_asks_vm_satisfied", "vm_asks_fs",
           "vm_asks_fs_satisfied", "age_lag_ms", "pageins_all", "disk_reads", "disk_writes", "sort_host_ms",
           "host_load", "untraded", "untraded_tsc_avg", "untraded_tsc_min"] + REQUEST_COLUMNS + REFAULT_COLUMNS + ["disk_stalls", "guest_ratio", "refused"] + RUN_COLUMNS


# --- parsing: console text in, numbers out (tests/host/test_bench_ifs.py) ----------------------
TOUCH = re.compile(r"touch (\d+) (\d+) ms, (\d+) page-ins, at (\d+) ms\n")
# The sampler's lines have a value of each of SAMPLED; a time stamp (STAMP) has one and stays.
SAMPLE = re.compile(r"@(\d+)((?: \d+){2,})\n")
SAMPLE_HEAD = re.compile(r"@ms((?: [\w.]+){2,})\n")
QEMU_LATE = re.compile(r"Warning: The guest is now late by [\d.]+ to [\d.]+ seconds\n")   # align=on, stderr
# The disk driver's watchdog, when a completion interrupt was lost (a slow host): the kernel's own
# line, wherever it fell; the row counts them (disk_stalls: each stood the disk still for a second).
DISK_STALL = re.compile(r"virtio-blk: no completion for \d+ s \(\d+ in flight\): polled, \d+ recovered[^\n]*\n")


def background(out):
    """Takes the lines the background jobs printed out of the console text, wherever they fell
    (between a prompt and the echo of the line typed after it, even inside that echo: the
    console echoes a typed line a byte at a time as the shell reads it), and the kernel's own
    notes that can fall there too (QEMU's lateness, the disk's watchdog). Returns the text
    without them, the toucher's rounds [(round, ms, page-ins, start uptime ms)] and the
    samples [(uptime ms, [values])] in order, and the sampled counters' names."""
    out = DISK_STALL.sub("", QEMU_LATE.sub("", out))
    rounds = [tuple(map(int, m.groups())) for m in TOUCH.finditer(out)]
    out = TOUCH.sub("", out)
    head = SAMPLE_HEAD.search(out)
    names = head.group(1).split() if head else []
    out = SAMPLE_HEAD.sub("", out)
    samples = [(int(m.group(1)), [int(x) for x in m.group(2).split()]) for m in SAMPLE.finditer(out)]
    return SAMPLE.sub("", out), rounds, samples, names


def split_commands(out, lines):
    """{typed line: [what it printed, each time it ran]}: the text between the echo of a line
    ("$ LINE\\n", as the shell read it) and the echo of the next typed line found after it. The
    echo itself is never part of a command's output, so a command that names a counter cannot
    be read as its value."""
    found, pos = [], 0
    for line in lines:
        i = out.find("$ " + line + "\n", pos)
        if i < 0:
            found.append(None)
            continue
        found.append((i, i + len(line) + 3))
        pos = i + len(line) + 3
    res = {}
    for k, line in enumerate(lines):
        if found[k] is None:
            continue
        nxt = next((f[0] for f in found[k + 1:] if f), None)
        if nxt is None:
            j = out.find("\n$ ", found[k][1] - 1)
            nxt = j + 1 if j >= 0 else len(out)
        res.setdefault(line, []).append(out[found[k][1]:nxt])
    return res


TYPED = "\n#--- lines typed ---\n"    # ends a run's log; the lines typed follow


def read_log(path):
    """(console text, lines typed) of a run's log."""
    with open(path, encoding="utf-8", errors="replace") as f:
        out, _, typed = f.read().partition(TYPED)
    return out, typed.splitlines()


class ParseError(Exception):
    pass


class TooSlow(ParseError):
    """Every boot of a run had its guest below benchlib.GUEST_FLOOR of real time."""


def printed(cmds, line, nth=0):
    got = cmds.get(line, [])
    if len(got) <= nth:
        raise ParseError("no output of %r" % line)
    return got[nth]


def numbers(text, n, what):
    """The n values `vmstat NAME...` printed, one a line: "name value" (or a bare value, as
    vmstat printed them before it named each)."""
    vals = [int(m.group(1)) for m in re.finditer(r"^\s*(?:[a-z][\w.]*\s+)?(\d+)\s*$", text, re.M)]
    if len(vals) != n:
        raise ParseError("%s printed %r, not %d values" % (what, text, n))
    return vals


def stamp(cmds, nth):
    """The uptime of the nth time stamp (STAMP's one sample)."""
    m = re.search(r"@(\d+) \d+", printed(cmds, STAMP, nth))
    if not m:
        raise ParseError("time stamp %d missing" % nth)
    return int(m.group(1))


def ps_row(text, name):
    """(PAGEIN, PAGEOUT) of the process called name in ps's output, or None."""
    for l in text.splitlines():
        f = l.split()
        if len(f) == 8 and f[-1] == name and f[0].isdigit():
            return int(f[5]), int(f[6])
    return None


def parse_run(out, typed, toucher):
    """The numbers of one run from its console text and the lines typed (see the module's
    docstring for what is measured). toucher: False for the standalone case."""
    clean, rounds, samples, names = background(out)
    cmds = split_commands(clean, typed)
    t0, t1 = stamp(cmds, 0), stamp(cmds, 1)
    m = re.search(r"sort: \d+ lines, (\d+) runs in (\d+) ms, (\d+) merge passes and the last merge in (\d+) ms",
                  printed(cmds, next(l for l in typed if l.startswith("sort "))))
    if not m:
        raise ParseError("sort did not finish")
    line = "vmstat " + " ".join(COUNTERS)
    c = dict(zip(COUNTERS, numbers(printed(cmds, line), len(COUNTERS), line)))
    free, cached = numbers(printed(cmds, FREE), 2, FREE)
    clock = re.search(r"kernel\.clock = (\w+)", cmds[CLOCK][0]) if CLOCK in cmds else None
    r = {"clock": clock.group(1) if clock else "", "sort_ms": t1 - t0, "sort_internal_ms": int(m.group(2)) + int(m.group(4)),
         "sort_runs": int(m.group(1)), "sort_passes": int(m.group(3)), "free_kb": (free + cached - RESERVE_FRAMES) * 4,
         "pageins": c["vm.pageins.backing"], "pageouts": c["vm.pageouts"],
         "cache_min_kb": c["fs.cache.held_min_kb"], "cache_max_kb": c["fs.cache.held_max_kb"],
         "fs_asks_vm": c["neg.fs_asks_vm"], "fs_asks_vm_satisfied": c["neg.fs_asks_vm_satisfied"],
         "vm_asks_fs": c["neg.vm_asks_fs"], "vm_asks_fs_satisfied": c["neg.vm_asks_fs_satisfied"],
         "age_lag_ms": c["vm.age_lag_ms"], "t0": t0, "t1": t1, "rounds_all": rounds,
         "samples": samples, "sampled": names, "disk_stalls": len(DISK_STALL.findall(out))}
    line = "vmstat " + " ".join(COST)
    if line in cmds:
        r["untraded"], r["untraded_tsc_avg"], r["untraded_tsc_min"] = numbers(printed(cmds, line), len(COST), line)
    for n in (len(REQUESTS), 4):
        line = "vmstat " + " ".join(REQUESTS[:n])
        if len(cmds.get(line, [])) == 2:
            ends = [numbers(printed(cmds, line, k), n, line) for k in (0, 1)]
            for col, a, b in zip(REQUEST_COLUMNS, *ends):
                r[col] = b - a
            break
    line = "vmstat " + " ".join(REFAULTS)
    if line in cmds:
        r.update(zip(REFAULT_COLUMNS, numbers(printed(cmds, line), len(REFAULTS), line)))
    line = "vmstat " + " ".join(DELTA)
    before = dict(zip(DELTA, numbers(printed(cmds, line), len(DELTA), line)))
    r["pageins"] -= before["vm.pageins.backing"]
    r["pageouts"] -= before["vm.pageouts"]
    r["pageins_all"] = c["vm.pageins"] - before["vm.pageins"]
    r["disk_reads"] = c["fs.disk.reads"] - before["fs.disk.reads"]
    r["disk_writes"] = c["fs.disk.writes"] - before["fs.disk.writes"]
    if not toucher:
        return r
    # Every round that overlapped sort, and apart from them the first one that began after it.
    during = [x for x in rounds if x[0] >= 2 and x[3] < t1 and x[3] + x[1] >= t0]
    after = [x for x in rounds if x[3] >= t1][:1]
    if not after:
        raise ParseError("no round of the toucher after sort")
    ms = [x[1] for x in during]
    r.update(rounds=len(during), resp_min_ms=min(ms, default=""), resp_max_ms=max(ms, default=""),
             resp_avg_ms=round(statistics.mean(ms), 1) if ms else "", after_ms=after[0][1],
             after_pageins=after[0][2], toucher_pageins=sum(x[2] for x in during + after))
    p0, p1 = ps_row(printed(cmds, "ps", 0), "toucher"), ps_row(printed(cmds, "ps", 1), "toucher")
    if p0 is None or p1 is None:
        raise ParseError("ps did not list the toucher")
    r["toucher_pageouts"] = p1[1] - p0[1]
    return r


def toucher_kb(out, mem_free_line):
    """The paper preset's toucher: all of the frames free (and in the cache) before it starts but
    the kernel's reserve and LEAVE_KB, which sort and the file cache share (WRL 90/4 section 3:
    of 6.7 MB for user processes the toucher took 5.7 and left "at most 1 Mbyte for sort and
    the file system cache")."""
    free, cached = numbers(mem_free_line, 2, "free frames")
    return max(64, (free + cached - RESERVE_FRAMES) * 4 - LEAVE_KB)


# --- one run in the guest ---------------------------------------------------------------------
FREE = "vmstat mem.frames.free fs.cache.blocks"     # typed first: what the kernel has free after boot
CLOCK = "sysctl kernel.clock"        # the guest's own word on the clock its times are read from


# --mechanism sprite: the ablation, this kernel with what Sprite did not have turned off, so that
# the rows set beside Sprite's Table 3 compare Sprite's mechanism: no dirty bound (fs/dirtybound.c:
# both 0), no busy answer (the asker recycles at once, kernel/mem/negotiate.c), no read-ahead
# (fs/readahead.c) and a request a block (fs/cluster.c).
SPRITE_MECHANISM = ["fs.dirty_background_ratio=0", "fs.dirty_ratio=0", "neg.busy_wait_ms=0", "fs.readahead=0",
                    "fs.cluster_max=1"]
MECHANISMS = ("ours", "sprite")


def setup_lines(cfg, value, mode):
    """What is typed first: Sprite's mechanism when asked (SPRITE_MECHANISM), the policy, then
    the penalty (value s and mode) or the fixed cache's size (mode "cache", value KB), what is
    free, the sampler."""
    setup = "".join("sysctl %s\n" % x for x in SPRITE_MECHANISM) if cfg.get("mechanism") == "sprite" else ""
    setup += "%s\nsysctl vm.policy=%s\n" % (CLOCK, cfg["policy"])
    if mode == "cache":
        setup += "sysctl fs.cache_fixed_kb=%d\n" % value
    elif value is not None:
        setup += "sysctl vm.penalty=%d\nsysctl vm.penalty_mode=%s\n" % (value, mode)
    return setup + FREE + "\nvmstat -i %d 0 %s &\n" % (SAMPLE_MS, " ".join(SAMPLED))


def toucher_line(cfg, kb, interval):
    return "toucher -t -m %.3f -d %d %s-s %g -n 100000 &\n" % (kb / 1024, cfg["dirty"], "-f " if cfg.get("fill") else "",
                                                              interval)


def sort_line(cfg):
    return "sort -v%s -o /tmp/out /in" % (" -m %d" % cfg["sort_kb"] if cfg.get("sort_kb") else "")


def round_after_sort(text):
    """Whether the console since sort was typed shows sort's end (the time stamp after it, and a
    prompt) and a whole round of the toucher that began after that stamp: the round that shows
    the damage sort left. A round is printed when it ends, and one that pages for a minute must
    not be cut short by reading the counters first."""
    clean, rounds, _, _ = background(text)
    m = re.search(r"(?s)sort: \d+ lines.*?\n@(\d+) \d+\n.*\$ ", clean)
    return bool(m) and any(x[3] >= int(m.group(1)) for x in rounds)


def one_run(cfg, interval, value, mode, run, log):
    """Boots once and returns the parsed run (a dict), or raises ParseError with the log's name."""
    toucher = interval is not None
    setup = setup_lines(cfg, value, mode)
    chosen = {}

    def start_toucher(out):
        cmds = split_commands(background(out)[0], [FREE])
        kb = toucher_kb(out, printed(cmds, FREE)) if cfg["toucher_mb"] is None \
            else int(cfg["toucher_mb"] * 1024)
        chosen["kb"] = kb
        return toucher_line(cfg, kb, interval)

    measure = ("sysctl neg.reset=1\nps\nvmstat %s\nvmstat %s\n%s\n%s\n%s\n"
               % (" ".join(DELTA), " ".join(REQUESTS), STAMP, sort_line(cfg), STAMP))

    def finish(out):
        jobs = re.findall(r"^\[(\d+)\]$", background(out)[0], re.M)
        return "vmstat %s\nvmstat %s\nvmstat %s\nvmstat %s\nps\nkill %s\n" % (
            " ".join(COUNTERS), " ".join(COST), " ".join(REQUESTS), " ".join(REFAULTS),
            " ".join("-" + j for j in jobs))

    if toucher:
        steps = [(None, setup), (r"\[\d+\]\n", start_toucher), (r"touch 1 \d+ ms", measure),
                 (round_after_sort, finish)]
    else:
        steps = [(None, setup), (r"\[\d+\]\n", measure), (r"(?s)sort: \d+ lines.*@\d+ \d+\n.*\$ ", finish)]
    timeout = 3600
    rc, out, typed, arrivals = boot_steps(steps, image=cfg["image"], mem=cfg["mem"], icount=cfg["icount"], throttle_bps=cfg["throttle_bps"],
                                throttle_iops=cfg["throttle_iops"], timeout=timeout, log=log, align=cfg["align"],
                                pace=pace if cfg["align"] else None, clock=cfg.get("clock"))
    with open(log, "a") as f:          # what was typed, for reading the log again (tests/host)
        f.write(TYPED + "\n".join(typed) + "\n")
    if rc == TOO_SLOW_RC:
        raise TooSlow("%s: see %s" % (out.strip().splitlines()[-1], os.path.relpath(log)))
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, os.path.relpath(log)))
    try:
        r = parse_run(out, typed, toucher)
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, os.path.relpath(log)))
    r["toucher_kb"] = chosen.get("kb", "")
    r["sort_host_ms"] = host_span(out, arrivals)
    r["guest_ratio"] = "%.3f" % (r["sort_ms"] / r["sort_host_ms"]) if r["sort_host_ms"] else ""
    return r


def sort_ratio(out, typed, arrivals):
    """Sort's guest time over its host time (the span the benchmark measures), or None."""
    try:
        cmds = split_commands(background(out)[0], typed)
        guest = stamp(cmds, 1) - stamp(cmds, 0)
    except ParseError:
        return None
    host = host_span(out, arrivals)
    return guest / host if host else None


def pace(out, typed, arrivals, host_s):
    """How well the guest kept the host's time (benchlib.boot_steps' pace): the worse of sort's
    span and the whole run (benchlib.run_ratio), None when neither is known."""
    known = [q for q in (sort_ratio(out, typed, arrivals), run_ratio(out, arrivals, host_s)) if q is not None]
    return min(known) if known else None


def host_span(out, arrivals):
    """The host's milliseconds from the echo of sort's line to that of the time stamp after it,
    from when their bytes arrived: a check that the guest's clock kept the host's time."""
    a = out.find("$ sort -v")
    b = out.find("$ " + STAMP, a)
    if a < 0 or b < 0:
        return ""
    when = lambda off: next((t for o, t in reversed(arrivals) if o <= off), None)
    ta, tb = when(a), when(b)
    return int((tb - ta) * 1000) if ta is not None and tb is not None else ""


def prepare_image(preset, size, logs):
    """build/bench/ifs-PRESET.img: the default image with sort's input, /in, made once by mklines
    in a full-speed guest and synced. Every run boots a copy, so the input is on disk and not
    in the cache when a run begins, and no run spends its time (minutes, on a throttled disk)
    making it."""
    img = bench_path("ifs-%s.img" % preset)
    log = os.path.join(logs, "%s-prepare.log" % preset)
    rc, out, _, _ = boot_steps([(None, "mklines /in %s\nsync\nls -l /in\n" % size)], mem=64, log=log, keep=img,
                            timeout=600)
    if rc != 0 or "No such" in out.split("$ ls -l /in", 1)[-1]:
        sys.exit("%s: could not make sort's input: see %s" % (NAME, os.path.relpath(log)))
    return img


# --- the whole benchmark ----------------------------------------------------------------------
def parse_penalties(text):
    """"0,120,120:stepped,adaptive,ignored" -> [(0, 'fixed'), (120, 'fixed'), (120, 'stepped'),
    (0, 'adaptive'), (0, 'ignored')]: adaptive sets no penalty (the bias is learned, vm.penalty is
    not used); ignored is its control, the bias learned and not applied."""
    out = []
    for item in text.split(","):
        if item.strip() in ("adaptive", "ignored"):
            out.append((0, item.strip()))
            continue
        p, _, mode = item.strip().partition(":")
        mode = mode or "fixed"
        if mode not in ("fixed", "stepped") or not p.isdigit():
            raise ValueError("penalty %r: give SECONDS, SECONDS:stepped, adaptive or ignored" % item)
        out.append((int(p), mode))
    return out


def parse_fixed_kb(text):
    """"170,512,1024" -> [(170, 'cache'), (512, 'cache'), (1024, 'cache')]; "" -> []. The kernel
    keeps a cache of at least 64 KB (16 blocks, fs/cache.c), so a size under that is refused."""
    out = []
    for item in filter(None, (x.strip() for x in text.split(","))):
        if not item.isdigit() or int(item) < 64:
            raise ValueError("fixed cache %r: give KB, 64 or more" % item)
        out.append((int(item), "cache"))
    return out


def host_load():
    try:
        return "%.1f" % os.getloadavg()[0]
    except OSError:
        return ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS) + ["both"], default="both",
                    help="both (the default): paper, then matched")
    ap.add_argument("--intervals", default="1,5,10,30", help="the toucher's sleep intervals, seconds")
    ap.add_argument("--penalties", default="0,120,120:stepped,1200",
                    help="vm.penalty values, :stepped for that mode (1200: Sprite's own); adaptive: "
                         "vm.penalty_mode=adaptive, the bias learned from refaults; ignored: its control, "
                         "vm.penalty_mode=ignored, the bias learned and not applied")
    ap.add_argument("--fixed-kb", default="170,512,1024", help="rows with a fixed cache of these KB "
                    "(fs.cache_fixed_kb; the paper's section 4); '' for none")
    ap.add_argument("--dirty", type=int, help="the %% of its pages the toucher dirties a round (toucher -d; 50, "
                    "the paper's; its thesis's Table 6-5: 10)")
    ap.add_argument("--runs", type=int, default=3, help="boots a row (3)")
    ap.add_argument("-j", type=int, default=2, dest="jobs", help="QEMUs at once (2; the clocks are held to the "
                    "host's, and 4 at once on a busy 2-core host moved sort by 1 %%)")
    ap.add_argument("--mem", type=int, help="MB of the machine")
    ap.add_argument("--toucher-mb", type=float, help="the toucher's MB (paper: all but 1 MB for sort and the cache)")
    ap.add_argument("--fill", action=argparse.BooleanOptionalAction, help="the toucher writes every page before its "
                    "first round (toucher -f; both presets do: a page only read is a zero fill, freed without I/O)")
    ap.add_argument("--sort-input", help="the size of sort's input (mklines: 1M, 512K)")
    ap.add_argument("--sort-kb", type=int, help="sort's memory budget, sort -m KB (matched: 320; else sort's 128)")
    ap.add_argument("--throttle-bps", type=int, help="the disk's bytes a second, reads and writes together")
    ap.add_argument("--throttle-iops", type=int, help="the disk's requests a second")
    ap.add_argument("--icount", help="-icount shift for the CPU's speed (2^SHIFT ns an instruction), auto, "
                    "or none (full speed, wall clock)")
    ap.add_argument("--policy", help="vm.policy (clock, the kernel's default; the VM's offer to the "
                    "negotiation is its oldest page whatever the policy, the policy chooses among its own)")
    ap.add_argument("--clock", choices=["ticks", "tsc"], help="kernel.clock the guest keeps its time by (both "
                    "presets: tsc, as the PIT's count loses ticks under a slow -icount)")
    ap.add_argument("--no-align", action="store_true", help="with --icount, let the guest's clock run ahead of "
                    "the host's while its CPU is busy (QEMU's align=off): disk transfers overlapping the CPU's work "
                    "then look that much slower")
    ap.add_argument("--no-standalone", action="store_true", help="skip sort alone (degradation then unknown)")
    ap.add_argument("--mechanism", choices=MECHANISMS, default="ours", help="sprite: the ablation, with this kernel's "
                    "dirty bound, busy answers, read-ahead and clustering off (SPRITE_MECHANISM); its rows are kept "
                    "apart from ours")
    ap.add_argument("--resume", action="store_true", help="keep the runs the journal has of this preset and code "
                    "(build/bench/journal-ifs.jsonl: benchlib.Journal) and run only the others: a run that stopped "
                    "picks up where it was")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args(argv)
    if a.dirty is not None and not 0 <= a.dirty <= 100:
        ap.error("--dirty takes 0 to 100")
    failed = 0
    for preset in (["paper", "matched"] if a.preset == "both" else [a.preset]):
        a.preset = preset
        failed += run_preset(a)
    if failed:
        sys.exit("%s: %d runs failed (above); the others are written" % (NAME, failed))


def run_preset(a):
    """Every run of one preset; writes its CSV lines and figures. Returns how many runs failed."""
    cfg = dict(PRESETS[a.preset])
    for k in ("mem", "toucher_mb", "sort_input", "sort_kb", "throttle_bps", "throttle_iops", "policy", "dirty", "fill",
              "clock"):
        if getattr(a, k) is not None:
            cfg[k] = getattr(a, k)
    if a.icount is not None:
        cfg["icount"] = None if a.icount == "none" else a.icount
    cfg["align"] = cfg["align"] and not a.no_align and cfg["icount"] is not None
    cfg["mechanism"] = a.mechanism
    try:
        intervals = [float(x) if "." in x else int(x) for x in a.intervals.split(",")]
        configs = parse_penalties(a.penalties) + parse_fixed_kb(a.fixed_kb)
    except ValueError as e:
        sys.exit("%s: %s" % (NAME, e))

    jobs = [(None, None, "fixed", k) for k in range(1, a.runs + 1)] if not a.no_standalone else []
    jobs += [(s, v, m, k) for v, m in configs for s in intervals for k in range(1, a.runs + 1)]
    journal = Journal("ifs", dict(cfg, preset=a.preset), a.resume, keep=ifs_tables.measured)
    logs = bench_path("ifs-logs")
    os.makedirs(logs, exist_ok=True)
    print("%s: preset %s: %d MB, vm.policy=%s, toucher %s%s dirtying %d %%, sort of %s (%s KB budget), disk %s B/s "
          "and %s requests/s, CPU %s; %d boots, %d at once" % (
              NAME, a.preset, cfg["mem"], cfg["policy"], "all but %d KB" % LEAVE_KB if cfg["toucher_mb"] is None
              else "%g MB" % cfg["toucher_mb"], " filled first" if cfg.get("fill") else "", cfg["dirty"], cfg["sort_input"], cfg["sort_kb"] or SORT_DEFAULT_KB,
              cfg["throttle_bps"] or "any", cfg["throttle_iops"] or "any", "full speed" if cfg["icount"] is None else
              "-icount shift=%s%s" % (cfg["icount"], ",align=on" if cfg["align"] else "")
              + ", kernel.clock=%s" % (cfg.get("clock") or "ticks")
              + (", Sprite's mechanism (%s)" % " ".join(SPRITE_MECHANISM) if a.mechanism == "sprite" else ""),
              len(jobs), a.jobs),
          flush=True)
    t_start, done = time.monotonic(), [0]
    cfg["image"] = prepare_image(a.preset, cfg["sort_input"], logs)

    def job(j):
        s, v, m, k = j
        tag = "%s-%s-%s-run%d" % (a.preset, "alone" if s is None else "s%g" % s,
                                  "" if v is None else "c%d" % v if m == "cache" else
                                  m if m in ("adaptive", "ignored") else
                                  "p%d%s" % (v, "s" if m == "stepped" else ""), k)
        if a.mechanism == "sprite":
            tag = tag.replace("-run%d" % k, "-sprite-run%d" % k)
        load, ident = host_load(), run_identity(a.preset)
        try:
            r = one_run(cfg, s, v, m, k, os.path.join(logs, tag.replace("--", "-") + ".log"))
        except TooSlow as e:            # the point is reported, as not measured
            r = {"refused": TOO_SLOW}
            print("%s: %s: %s" % (NAME, tag, e), flush=True)
        r.update(job_fields(j), preset=a.preset, mechanism=a.mechanism, policy=cfg["policy"], mem_mb=cfg["mem"],
                 dirty_pct=cfg["dirty"] if s is not None else "", sort_input=cfg["sort_input"],
                 sort_kb=cfg["sort_kb"] or SORT_DEFAULT_KB, throttle_bps=cfg["throttle_bps"] or "",
                 throttle_iops=cfg["throttle_iops"] or "", icount_shift="" if cfg["icount"] is None else cfg["icount"],
                 host_load=load)
        r.update(ident)
        done[0] += 1
        if r.get("refused"):
            return r
        what = "sort alone" if s is None else "S=%g %s" % (s, config_label(v, m) if m == "cache" else
                                                         "penalty " + config_label(v, m))
        tail = "" if s is None else ", toucher %d page-ins, touches during sort %s ms, after %d ms" % (
            r["toucher_pageins"], "%s-%s" % (r["resp_min_ms"], r["resp_max_ms"]) if r["rounds"] else "none",
            r["after_ms"])
        print("%s [%d/%d] %s run %d: sort %.1f s (%d runs, %d merge pass%s before the last), %d page-ins, cache "
              "%d-%d KB, asks fs>vm %d vm>fs %d%s; sort's guest at %s of real time (%.0f s so far)"
              % (NAME, done[0], len(jobs), what, k, r["sort_ms"] / 1000, r["sort_runs"], r["sort_passes"],
                 "" if r["sort_passes"] == 1 else "es",
                 r["pageins"], r["cache_min_kb"], r["cache_max_kb"], r["fs_asks_vm"], r["vm_asks_fs"], tail,
                 r["guest_ratio"] or "?", time.monotonic() - t_start), flush=True)
        return r

    results, failures = run_all(NAME, job, jobs, a.jobs, ParseError, journal)
    write_csv(bench_path("ifs.csv"), results, a.preset, a.mechanism)
    write_series(bench_path("ifs-series.csv"), results, a.preset, a.mechanism)
    print()
    print(table_text(read_rows(bench_path("ifs.csv")), a.preset, read_rows(bench_path(LINUX_CSV))))
    if not a.no_figures:
        import bench_figures
        pngs = bench_figures.ifs(bench_path("ifs.csv"), bench_path("ifs-series.csv"), a.preset,
                                 bench_path("ifs-%s-time.png" % a.preset), bench_path("ifs-%s-tables.png" % a.preset),
                                 linux_csv=bench_path(LINUX_CSV))
        print("written: %s" % ", ".join(os.path.relpath(p) for p in [bench_path("ifs.csv"), bench_path("ifs-series.csv")] + pngs))
    return len(failures)


# --- CSVs and the printed table -----------------------------------------------------------------
read_rows = read_csv


def others(path, preset, mechanism):
    """path's rows that a run of preset with mechanism leaves: other presets', and the other
    mechanism's (ours and the ablation are run apart)."""
    return [r for r in read_rows(path) if r["preset"] != preset or ifs_tables.mechanism_of(r) != mechanism]


def write_csv(path, results, preset, mechanism="ours"):
    """This preset's runs of the mechanism replace their earlier ones; the others stay."""
    keep = others(path, preset, mechanism)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(keep)
        for r in sorted(results, key=lambda r: (r["kind"] != "standalone", r["mode"] == "cache", str(r["penalty_s"]),
                                                str(r["cache_fixed_kb"]), r["mode"], float(r["interval_s"] or 0),
                                                r["run"])):
            w.writerow({k: r.get(k, "") for k in COLUMNS})


SERIES = ["preset", "interval_s", "penalty_s", "mode", "cache_fixed_kb", "mechanism", "run", "what", "t_s", "value",
          "pageins"] + RUN_COLUMNS


def job_fields(j):
    """The columns that say what a job (S, value, mode, run) is of, as its row has them."""
    s, v, m, k = j
    return dict(kind="standalone" if s is None else "ifs", interval_s="" if s is None else s,
                penalty_s="" if v is None or m == "cache" else v, mode="" if v is None else m,
                cache_fixed_kb=v if m == "cache" else "", run=k)


def write_series(path, results, preset, mechanism="ours"):
    """The cache's size (KB) and the toucher's responses (ms) against seconds since sort began:
    this preset's and mechanism's lines replaced by those of results, the others kept."""
    keep = others(path, preset, mechanism)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=SERIES, extrasaction="ignore")
        w.writeheader()
        w.writerows(keep)
        for r in (r for r in results if not r.get("refused")):     # a refused run has no series
            base = dict(preset=preset, interval_s=r["interval_s"], penalty_s=r["penalty_s"], mode=r["mode"],
                        cache_fixed_kb=r["cache_fixed_kb"], mechanism=r["mechanism"], run=r["run"],
                        **{c: r.get(c, "") for c in RUN_COLUMNS})
            col = r["sampled"].index("fs.cache.blocks") if "fs.cache.blocks" in r["sampled"] else 0
            for t, vals in r["samples"]:
                w.writerow(dict(base, what="cache_kb", t_s="%.2f" % ((t - r["t0"]) / 1000), value=vals[col] * 4,
                                pageins=""))
            w.writerow(dict(base, what="sort_end", t_s="%.2f" % ((r["t1"] - r["t0"]) / 1000), value="", pageins=""))
            for n, ms, ins, start in r["rounds_all"]:
                if n >= 2:
                    w.writerow(dict(base, what="touch_ms", t_s="%.2f" % ((start - r["t0"]) / 1000), value=ms,
                                    pageins=ins))


def linux_of(linux_rows, preset, setup="default"):
    """Linux's rows of one setup beside a preset's: those of the same preset (bench_linux.py runs
    the paper and the matched presets); the matched preset's also those recorded before rows
    named their preset."""
    if not PRESETS[preset].get("must_negotiate") and not any(r.get("preset") == preset for r in linux_rows):
        return None
    return ifs_tables.linux(linux_rows, preset, setup)


def disk_and_ablation(rows, preset, linux_rows):
    """The parts under the IFS table, as (title, markdown): the disk's requests by class of
    ours, Sprite's mechanism and Linux's setups, and Sprite's mechanism's own table (with its
    calibration, on the paper preset). What has no rows is left out."""
    parts = []
    lin = [r for r in linux_rows if r.get("preset") == preset]
    kernel = {"ours": "ours", "sprite": "Sprite's mechanism"}
    disk = ifs_tables.disk_table([r for r in rows if r["preset"] == preset] + lin, lambda r: (
        ("Linux", r.get("setup") or "default") if r.get("policy") == "linux" else
        (kernel[ifs_tables.mechanism_of(r)], config_label(*config_of(r)) if r["kind"] == "ifs" else "–")))
    if len(disk) > 1:
        parts.append(("The disk's requests during sort, by class (medians of the runs [min–max]):",
                      ifs_tables.markdown(disk)))
    sprite, sbase = aggregate(rows, preset, "sprite")
    if sprite or sbase:
        text = ifs_tables.markdown(ifs_tables.table(sprite, paper=preset == "paper",
                                                    too_slow=ifs_tables.refused(rows, preset, "sprite")))
        if preset == "paper":
            text += "\n\n" + "\n".join("  " + l for l in ifs_tables.calibration(sprite))
        parts.append(("Sprite's mechanism alone (--mechanism sprite: %s; sort alone %s):" % (
            ", ".join(SPRITE_MECHANISM), "%.1f s" % (sbase / 1000) if sbase else "not run"), text))
    return parts


def table_text(rows, preset, linux_rows=()):
    agg, base = aggregate(rows, preset)
    linux_rows = list(linux_rows)
    lin, prot = linux_of(linux_rows, preset), linux_of(linux_rows, preset, "protected")
    free = [float(r["free_kb"]) for r in rows if r["preset"] == preset and r.get("free_kb")]
    lines = ["IFS benchmark, preset %s (medians of the runs [min–max]; sort alone %s; free after boot %s%s)" % (
        preset, "%.1f s" % (base / 1000) if base else "not run",
        "%.1f MB" % (statistics.median(free) / 1024) if free else "not measured",
        "; Linux %.1f MB" % (lin[2] / 1024) if lin and lin[2] else "")]
    lines.append(ifs_tables.markdown(ifs_tables.table(agg, paper=preset == "paper", linux_rows=lin[0] if lin else None,
                                                      too_slow=ifs_tables.refused(rows, preset),
                                                      linux_protected=prot[0] if prot else None)))
    if preset == "paper":
        lines += ["", "Calibration, the rows without a penalty against Table 3 (in bytes):"]
        lines += ["  " + l for l in ifs_tables.calibration(agg)]
    lines += ["", targets.printed(targets.judge_ifs(agg))]
    if preset == "paper":
        import default_rule
        lines += ["", default_rule.printed(agg)]
    for title, text in disk_and_ablation(rows, preset, linux_rows):
        lines += ["", title, text]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
