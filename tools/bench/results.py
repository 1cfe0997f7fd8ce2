#!/usr/bin/env python3
"""make results: the documented figures (docs/results.md, the book's results chapter, its
headline first) made again from the CSVs the benchmarks wrote under build/bench, so that
every figure there is one the current code measured. Benchmarks never run it: they write under
build/ only, and the tracked documents change only when someone asks for it with this target.

The chapter marks each generated part:

    <!-- bench:NAME (generated from build/bench/FILE.csv by tools/bench/results.py) -->
    ...replaced on every run...
    <!-- /bench:NAME -->

A part whose CSV is missing (that benchmark not run yet) is left as it is; a marker pair
missing from the documents is an error, as is a CSV without the rows its part needs, so a
renamed column cannot quietly leave stale figures behind. Sprite's and xv6's figures, which
no benchmark here measures, are constants below, quoted beside ours. Prose that cites a figure
of a table is generated with it (the notes under each table), never written by hand beside it.

A table has a full run (the boot times: 5 runs a route; IFS: every S of 1, 5, 10, 30 with
penalties 0, 120 and 120 stepped, 3 runs each and 3 of sort alone, at the preset's own sizes).
A shorter run (IFS_ARGS='--runs 1 --intervals 1,30', RUNS=2) is refused for that table, with
what it lacks, and nothing is written; --partial takes it, and the table then begins by saying
what it lacks.

    results.py [--docs FILE_OR_DIR ...] [--bench build/bench] [--check] [--partial] [--only NAME,...]

--docs defaults to docs/results.md, which holds every part, the headline (tools/bench/headline.py)
first; the README keeps one sentence and a link to it, so that it stays one screen. A folder
means every .md in it, each part in exactly one.

--check changes nothing and exits 1 if the documents differ from what the CSVs give.

--only ifs-matched,linux-ifs regenerates those parts alone and leaves the others as they are:
for a benchmark run again on its own while other CSVs under build/bench hold shorter runs (a
test's, a quick try) that must not replace a documented table."""
import argparse, csv, os, re, statistics, sys, textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class Missing(Exception):
    pass


def load(bench, name):
    path = os.path.join(bench, name)
    if not os.path.exists(path):
        raise Missing(name)
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load_optional(bench, name):
    """load, or no rows when the file is not there."""
    try:
        return load(bench, name)
    except Missing:
        return []


def num(x):
    """1234567 -> '1,234,567'."""
    return "{:,}".format(int(round(float(x))))


def para(text):
    """A generated sentence wrapped as the docs' own prose is (tables are left alone)."""
    return textwrap.fill(text, width=96, break_long_words=False, break_on_hyphens=False)


def need(rows, what, name):
    if not rows:
        raise ValueError("%s has no %s" % (name, what))
    return rows


# --- boot ----------------------------------------------------------------------------------
BOOT_ROUTES = [("grub", "GRUB ISO (menu timeout 0)", "0.8 s (a bare Multiboot kernel prints its first "
                "byte at 0.5 s; xv6 reaches its prompt at 0.65 s)"),
               ("kernel", "QEMU `-kernel`", "0.25 s (first byte at 0.1 s)")]


BOOT_FULL_RUNS = 5


def boot_short(bench):
    return ["%s runs of the %s route, not %d" % (r["runs"], r["mode"], BOOT_FULL_RUNS)
            for r in load(bench, "boot.csv") if int(r["runs"]) < BOOT_FULL_RUNS]


def boot(bench):
    rows = {r["mode"]: r for r in load(bench, "boot.csv")}
    out = ["| route | median | min | max | target |", "|---|---|---|---|---|"]
    for mode, label, target in BOOT_ROUTES:
        r = rows.get(mode)
        if r is None:
            raise ValueError("boot.csv has no %s row" % mode)
        out.append("| %s | %.2f s | %.2f s | %.2f s | %s |" % (label, float(r["median_s"]), float(r["min_s"]),
                                                           float(r["max_s"]), target))
    first = next(iter(rows.values()))
    hostload = " (host load average %s while measuring)" % first["host_load"] if first.get("host_load") else ""
    return para("Wall clock from QEMU's start to the shell's first prompt, plain TCG, %s runs%s:"
                % (first["runs"], hostload)) + \
        "\n\n" + "\n".join(out)


# --- vm --------------------------------------------------------------------------------------
def vm_faults(bench):
    v = {r["figure"]: r["value"] for r in load(bench, "vm.csv")}
    for k in ("copy", "zero", "zerofault", "zerofault_overhead", "zerofault_overhead_pct", "pagein"):
        if k not in v:
            raise ValueError("vm.csv has no %s row" % k)
    pct = float(v["zerofault_overhead_pct"])
    return "\n".join([
        "| figure | guest instructions (ns) |", "|---|---|",
        "| 4 KB page copy by the guest (word loop, `user/lib/bench.c`), the reference | %s |" % num(v["copy"]),
        "| 4 KB page zeroing by the guest | %s |" % num(v["zero"]),
        "| zero-fill fault (trap, frame, zeroing, mapping, return) | %s |" % num(v["zerofault"]),
        "| its overhead beyond zeroing | %s = %.0f %% of a page copy (target <= 25 %%%s; Sprite 44 %%) |"
        % (num(v["zerofault_overhead"]), pct, "" if pct <= 25 else ": NOT MET"),
        "| page-in from backing store (waits for the disk: not exact under icount) | %s |" % num(v["pagein"]),
    ])


def vm_irlam(bench):
    rows = need(load(bench, "vm-irlam.csv"), "rows", "vm-irlam.csv")
    by = {}
    for r in rows:
        by.setdefault(int(r["active_mb"]), []).append(r)
    runs = len({r["run"] for r in rows})
    frames = next((r["frames_mb"] for r in rows if r.get("frames_mb")), "?")
    sweeps = re.search(r"(\d+) sweeps a process", rows[0]["mode"])
    if not sweeps:
        raise Missing("vm-irlam.csv is from the timed vmtest (%s); make bench-vm runs the counted one" % rows[0]["mode"])
    base = min(by)
    fmt = lambda x: "%.2f" % x if x >= 0.01 else "%.1g" % x
    med = {mb: statistics.median(float(r["relative_speed"]) for r in by[mb]) for mb in by}
    out = ["| active MB | processes | relative speed (median) | min | max | page-ins (median) |",
           "|---|---|---|---|---|---|"]
    bound = lambda mb: any(r.get("bound") == "<" for r in by[mb])

    def cell(r):                      # a run cut at the limit gives a bound, "< X"
        return ("< " if r.get("bound") == "<" else "") + fmt(float(r["relative_speed"]))
    for mb in sorted(by):
        ranked = sorted(by[mb], key=lambda r: float(r["relative_speed"]))
        ins = [int(r["pageins"]) for r in by[mb]]
        mid = cell(ranked[len(ranked) // 2]) if len(ranked) % 2 else fmt(med[mb])
        out.append("| %d | %s | %s | %s | %s | %s |" % (mb, by[mb][0]["procs"], mid, cell(ranked[0]), cell(ranked[-1]),
                                                      num(statistics.median(ins))))
    knee = next((mb for mb in sorted(by) if med[mb] < 0.5), None)
    if knee is None:
        where = "No row fell below half the %d MB row's speed: no knee within %d MB." % (base, max(by))
    else:
        before = max((mb for mb in by if mb < knee), default=base)
        where = ("The knee: %d MB (%s MB of frames), the first row below half the %d MB row's speed, where %d MB "
                 "still ran at %s. Its cause here is memory: the page-ins go from %s at %d MB to %s at %d MB%s. "
                 "Irlam's Sparcstation-1 never ran short of memory (his processes shared one data segment); "
                 "its knee was the MMU's pmegs." % (
                     knee, frames, base, before, fmt(med[before]),
                     num(statistics.median(int(r["pageins"]) for r in by[before])), before,
                     num(statistics.median(int(r["pageins"]) for r in by[knee])), knee,
                     " (in the time limit, not done: every touch a page-in)" if bound(knee) else ""))
        cut = [mb for mb in sorted(by) if mb < knee and bound(mb)]
        if cut:
            where += (" Below it, %s MB had runs cut at the limit beside runs that finished: the edge is not "
                      "sharp from run to run." % ", ".join("%d" % mb for mb in cut))
    limit = re.search(r"at most (\d+) ms a row", rows[0]["mode"])
    return para("`vmtest -l %s MB %s` at MEM=16 (%s MB of frames): MB/2 processes, each sweeping its own 2 MB "
                "(a byte a page) %s times, started together once all have touched their memory, timed until "
                "the last is done: the work a second against the %d MB row of the same run; %d runs (min, "
                "median, max). A row not done in %s ms of guest time is stopped, and its speed is a bound "
                "(\"<\"): the work over the limit." % (limit.group(1) if limit else "?", sweeps.group(1), frames,
                                                    sweeps.group(1), base, runs, limit.group(1) if limit else "?")) + \
        "\n\n" + "\n".join(out) + "\n\n" + para(where)


# --- fs --------------------------------------------------------------------------------------
def fs_cached(bench):
    rows = load(bench, "fs.csv")
    copy = need([r for r in rows if r["kind"] == "copy"], "copy row", "fs.csv")[0]
    cached = need(sorted((r for r in rows if r["kind"] == "cached"), key=lambda r: int(r["bytes"])),
                  "cached rows", "fs.csv")
    cmbps = float(copy["read_MBps"])
    size = lambda b: "%d K" % (b // 1024) if b >= 1024 else str(b)
    out = ["| bytes/call | " + " | ".join(size(int(r["bytes"])) for r in cached) + " |",
           "|---|" + "---|" * len(cached)]
    for key, label in (("write_MBps_or_data_writes", "write, new file"),
                       ("overwrite_MBps_or_meta_writes", "overwrite"), ("read_MBps", "read")):
        out.append("| %s | %s |" % (label, " | ".join(num(r[key]) for r in cached)))
    out.append("| read / page copy | %s |" % " | ".join("%.0f %%" % (100 * float(r["read_MBps"]) / cmbps)
                                                     for r in cached))
    return para("CPU-bound figures under `-icount shift=0` (guest time, exact): the guest copies a 4 KB page in "
                "%s ns (%s MB/s) in the same run. A 2 MB file, cache-resident, by transfer size (MB/s of guest "
                "time):" % (num(copy["ns_or_ms"]), num(cmbps))) + "\n\n" + "\n".join(out)


def fs_summary(bench):
    rows = load(bench, "fs.csv")
    copy = float(need([r for r in rows if r["kind"] == "copy"], "copy row", "fs.csv")[0]["read_MBps"])
    cached = {int(r["bytes"]): r for r in rows if r["kind"] == "cached"}
    big = [100 * float(r["read_MBps"]) / copy for b, r in cached.items() if b >= 8192]
    if not big or 4096 not in cached:
        raise ValueError("fs.csv lacks the 4 KB and >= 8 KB cached rows")
    w4, r4 = float(cached[4096]["write_MBps_or_data_writes"]), float(cached[4096]["read_MBps"])
    l1 = need([r for r in rows if r["kind"] == "lookup_1MB"], "lookup_1MB row", "fs.csv")[0]
    l16 = need([r for r in rows if r["kind"] == "lookup_16MB"], "lookup_16MB row", "fs.csv")[0]
    blocks = re.search(r"blocks=(\d+)", l16["note"])
    met = lambda ok: "met" if ok else "NOT MET"
    return para("Cached reads of 8 KB or more run at %.0f–%.0f %% of the copy bandwidth (target 50 %%: %s); "
            "a new 2 MB file is written at %s MB/s in 4 KB calls (target 100: %s; xv6 2.3) and read at "
            "%s MB/s (target 300: %s; xv6 17). One cached 4 KB read costs %s ns with a 1 MB cache and "
            "%s ns with a 16 MB cache%s."
            % (min(big), max(big), met(min(big) >= 50), num(w4), met(w4 >= 100), num(r4), met(r4 >= 300),
               num(l1["ns_or_ms"]), num(l16["ns_or_ms"]),
               " holding %s blocks" % num(blocks.group(1)) if blocks else ""))


def fs_disk(bench):
    rows = need([r for r in load(bench, "fs.csv") if r["kind"] == "disk"], "disk rows", "fs.csv")
    ws = [float(r["write_MBps_or_data_writes"]) for r in rows]
    rs = [float(r["read_MBps"]) for r in rows]
    every = [int(x) for r in rows for x in re.findall(r"\d+", r["note"])]   # each run's min and max
    sizes = [int(r["bytes"]) for r in rows]
    return para("Not in the cache (wall clock, plain TCG, median of the runs by transfer size %s–%s bytes): "
            "reads %s–%s MB/s, overwrites + fsync %s–%s MB/s; single runs ranged over %s–%s MB/s "
            "(QEMU's disk and the host's load)." % (num(min(sizes)), num(max(sizes)), num(min(rs)), num(max(rs)),
                                                   num(min(ws)), num(max(ws)), min(every), max(every)))


THESIS_POLICY = {"through": ("718", "1489", "2207"), "asap": ("(Table 5-7)", "", ""),
                 "delay": ("484", "173", "657")}


def fs_policy(bench):
    rows = {r["kind"][len("policy_"):]: r for r in load(bench, "fs.csv") if r["kind"].startswith("policy_")}
    if not rows:
        raise ValueError("fs.csv has no policy rows")
    out = ["| policy | data | desc/ind/bitmap | total | thesis Andrew: data | ind/desc | total |",
           "|---|---|---|---|---|---|---|"]
    several = False
    for pol in ("through", "asap", "delay"):
        r = rows.get(pol)
        if r is None:
            continue
        d, m = int(float(r["write_MBps_or_data_writes"])), int(float(r["overwrite_MBps_or_meta_writes"]))
        # bench_fs.py writes the runs' least and greatest in the note (older CSVs: medians alone)
        got = re.search(r"min/max data (\d+)/(\d+) meta (\d+)/(\d+) runs (\d+)", r.get("note") or "")
        span = lambda med, lo, hi: "%d [%s–%s]" % (med, lo, hi) if got and int(got.group(5)) > 1 else "%d" % med
        several = several or bool(got and int(got.group(5)) > 1)
        out.append("| %s | %s | %s | %d | %s |" % ("delay (30 s / 5 s)" if pol == "delay" else pol,
                                                   span(d, *(got.groups()[0:2] if got else ("", ""))),
                                                   span(m, *(got.groups()[2:4] if got else ("", ""))), d + m,
                                                   " | ".join(THESIS_POLICY[pol])))
    return ("Disk writes, median [min–max] of the runs:\n\n" if several else "") + "\n".join(out)


# --- fork ------------------------------------------------------------------------------------
SPRITE_71 = {0: ("22.8 / 22.8 ms", "22.5 / 22.4 ms"), 64: ("24.7 / 24.0", "59.7 / 171.7"),
             256: ("28.0 / 24.6", "119.4 / 457.6"), 1024: ("41.1 / 26.8", "358.6 / 1635.1"),
             2048: ("58.7 / 29.7", "677.2 / 3209.0")}


def fork71(bench):
    rows = need(load(bench, "fork.csv"), "rows", "fork.csv")
    ms = {(int(r["resident_kb"]), r["fork_mode"], r["pages"]): int(r["ns_per_fork"]) / 1e6 for r in rows}
    cell = lambda kb, m, w, unit="": ("%.3f%s" % (ms[(kb, m, w)], unit)) if (kb, m, w) in ms else "–"
    out = ["| KB | COW-COR resident | COW-COR backing | copy resident | copy backing | Sprite COW-COR res / back "
           "| Sprite copy res / back |", "|---|---|---|---|---|---|---|"]
    for kb in sorted(SPRITE_71):
        unit = " ms" if kb == 0 else ""
        out.append("| %d | %s | %s | %s | %s | %s | %s |" % (
            kb, cell(kb, "cowcor", "resident", unit), cell(kb, "cowcor", "backing", unit),
            cell(kb, "copy", "resident", unit), cell(kb, "copy", "backing", unit), *SPRITE_71[kb]))
    text = "\n".join(out)
    ratio = lambda w: ms[(2048, "copy", w)] / ms[(2048, "cowcor", w)] if (2048, "copy", w) in ms and \
        (2048, "cowcor", w) in ms else None
    rr, rb = ratio("resident"), ratio("backing")
    if rr and rb and (0, "cowcor", "resident") in ms:
        text += "\n\n" + para("At 2048 KB copy-on-fork / COW-COR is %.1f resident (target >= 10: %s; Sprite 11.5) and "
                 "%.0f on backing store (target >= 50: %s; Sprite 108); a COW-COR fork takes %.3f ms at 0 KB "
                 "and %.3f ms at 2 MB (targets 0.2 and 0.6; xv6 1.97 and 9.58 ms). The guest's reference "
                 "4 KB page copy in these runs: %s ns."
                 % (rr, "met" if rr >= 10 else "NOT MET", rb, "met" if rb >= 50 else "NOT MET",
                    ms[(0, "cowcor", "resident")], ms[(2048, "cowcor", "resident")], num(rows[0]["copy4k_ns"])))
    return text


def fork73(bench):
    r = need(load(bench, "fork-workload.csv"), "row", "fork-workload.csv")[0]
    return "\n".join([
        "| | COW marked | COR marked | COW faulted | COR faulted | % of all faults | copies saved |",
        "|---|---|---|---|---|---|---|",
        "| here | %s | %s | %.0f %% | %.0f %% | %.0f %% | %.0f %% (%s vs %s copied by copy-on-fork) |" % (
            r["cow_marked"], r["cor_marked"], float(r["cow_faulted_pct"]), float(r["cor_faulted_pct"]),
            float(r["cowcor_pct_of_faults"]), float(r["saved_pct"]), r["copies_cowcor"], r["copies_copy_on_fork"]),
        "| Sprite (Andrew ... User-B) | 1430–109965 | 1448–112257 | 1–8 % | 63–72 % | 15–30 % | 22–28 % |",
    ]) + "\n\nThe longest COW-COR list in the workload: %s segments." % r["list_max"]


# --- ifs ---------------------------------------------------------------------------------------
IFS_FULL = dict(intervals=(1, 5, 10, 30), runs=3,
                configs=((0, "fixed"), (120, "fixed"), (120, "stepped"), (1200, "fixed"),
                         (170, "cache"), (512, "cache"), (1024, "cache")))


def ifs_short(preset):
    """What the preset's rows of ifs.csv lack against a full run (empty: a full run)."""
    def short(bench):
        from bench_ifs import PRESETS, SORT_DEFAULT_KB
        from ifs_tables import config_label, config_of
        rows = [r for r in load(bench, "ifs.csv") if r["preset"] == preset]
        lack = []
        runs = {}
        for r in rows:
            if r["kind"] == "ifs":
                key = config_of(r) + (float(r["interval_s"]),)
                runs[key] = runs.get(key, 0) + 1
        for v, m in IFS_FULL["configs"]:
            for s in IFS_FULL["intervals"]:
                n = runs.get((v, m, float(s)), 0)
                if n < IFS_FULL["runs"]:
                    lack.append("%s at S = %d: %d run%s of %d" % (config_label(v, m), s, n, "" if n == 1 else "s",
                                                                 IFS_FULL["runs"]))
        alone = sum(1 for r in rows if r["kind"] == "standalone")
        if alone < IFS_FULL["runs"]:
            lack.append("sort alone: %d run%s of %d" % (alone, "" if alone == 1 else "s", IFS_FULL["runs"]))
        want = dict(PRESETS[preset])
        want["sort_kb"] = want["sort_kb"] or SORT_DEFAULT_KB
        for col, key in (("mem_mb", "mem"), ("sort_input", "sort_input"), ("sort_kb", "sort_kb"),
                         ("throttle_bps", "throttle_bps"), ("throttle_iops", "throttle_iops"),
                         ("icount_shift", "icount"), ("policy", "policy")):
            seen = sorted({r.get(col, "") for r in rows})
            if seen != [str(want[key])]:
                lack.append("%s %s, not the preset's %s" % (col, "/".join(seen), want[key]))
        return lack
    return short


# A bound, never a measurement: a cache miss under -icount shift=0 with the disk unthrottled takes
# at least this long by docs/negotiation.md's first estimate. The reading below measures a
# negotiation against the fastest miss bench-negcost measured (negcost.csv's miss_min) and names
# the bound only when that CSV is missing, as the constant it is.
MISS_BOUND_NS = 35000
# Module-level numbers that reach generated text, each with what it is (none a measurement):
# tests/host/test_bench_literals.py fails a number printed that is not named here.
PRINTED_CONSTANTS = {"MISS_BOUND_NS": "a bound, printed as not measured",
                     "BOOT_FULL_RUNS": "the runs a full boot table has (a setting)",
                     "LINUX_FREE_KB": "the hand-made Linux runs' figure, printed as not measured in this run",
                     "LINUX_LEAST_MB": "bench_linux_ecd.py's floor for Linux's machine (a setting)",
                     "GUEST_FLOOR": "the least guest/real-time ratio a run is taken at (a setting)",
                     "PACE_TRIES": "the boots a run gets (a setting)",
                     "CALIBRATION_FACTOR": "the calibration's bound (a setting)"}


def fastest_miss(bench):
    """(ns, where) of the fastest cache miss make bench-negcost measured (its rows' least
    miss_min), or None without negcost.csv."""
    try:
        rows = [r for r in load(bench, "negcost.csv") if r.get("miss_min")]
    except Missing:
        return None
    return (min(int(r["miss_min"]) for r in rows), "build/bench/negcost.csv, %d run%s" % (
        len(rows), "" if len(rows) == 1 else "s")) if rows else None


def ifs_reading(agg, untraded_avg, untraded_min, paper=True, miss=None):
    """The sentences that read the table: every figure they cite comes from it, or from the
    fastest miss bench-negcost measured (miss: (ns, where), or None: then the bound is named as
    the constant it is)."""
    out = []
    asks = lambda rows: (sum(a["fs_asks_vm_satisfied"] for a in rows), sum(a["fs_asks_vm"] for a in rows))
    for mode in ("fixed", "stepped"):
        pen = [a for (p, m, s), a in agg.items() if p > 0 and m == mode]
        if pen:
            given, asked = asks(pen)
            out.append("With a %s penalty the toucher paged in %s page%s in all, over %d row%s; the cache's "
                       "asks of the VM were granted %.0f times of %.0f, and sort's cache held at most %.0f KB." % (
                           mode, "%.0f" % sum(a["toucher_pageins"] for a in pen),
                           "" if sum(a["toucher_pageins"] for a in pen) == 1 else "s", len(pen),
                           "" if len(pen) == 1 else "s", given, asked, max(a["cache_max_kb"] for a in pen)))
    none = {s: a for (p, m, s), a in agg.items() if p == 0 and m != "cache"}
    if none:
        order = sorted(none)
        out.append("Without a penalty the toucher's page-ins at S = %s were %s, its slowest touches %s s, and "
                   "the cache grew to %.0f–%.0f KB%s." % (
                       ", ".join("%g" % s for s in order), ", ".join("%.0f" % none[s]["toucher_pageins"] for s in order),
                       ", ".join("%.2f" % (slowest_ms(none[s]) / 1000) for s in order),
                       min(a["cache_max_kb"] for a in none.values()), max(a["cache_max_kb"] for a in none.values()),
                       " (Sprite's 1.2–2.5 MB)" if paper else ""))
    variable = [a for (p, m, s), a in agg.items() if m != "cache"]
    if variable and all(a["fs_asks_vm"] == 0 and a["vm_asks_fs"] == 0 for a in variable):
        out.append("No negotiation took place in any row (0 asks either way): the pools never ran short, so "
                   "neither the penalty nor S can change anything here.")
    if untraded_avg and miss:
        out.append("Against the fastest cache miss measured under -icount shift=0 with the disk unthrottled (%s "
                   "ns, make bench-negcost: %s), a negotiation with nothing traded costs %.1f %% at least and %.1f %% "
                   "on average." % (num(miss[0]), miss[1], 100 * untraded_min / miss[0], 100 * untraded_avg / miss[0]))
    elif untraded_avg:
        out.append("Against a bound of %s us for a cache miss under -icount shift=0 with the disk unthrottled (a "
                   "constant, not measured in this run: make bench-negcost measures the fastest miss), a negotiation "
                   "with nothing traded costs %.1f %% at least and %.1f %% on average." % (
                       "%g" % (MISS_BOUND_NS / 1000), 100 * untraded_min / MISS_BOUND_NS,
                       100 * untraded_avg / MISS_BOUND_NS))
    return out


def slowest_ms(a):
    """The slowest touch of a row: during sort or the first after it."""
    from ifs_tables import slowest_touch_ms
    return slowest_touch_ms(a)


def met(ok):
    return "met" if ok else "NOT MET"


def targets_part(judged):
    """The targets of a table, each at each point beside the control that must fail it
    (tools/bench/targets.py), as a sentence and a table; "" for none."""
    import targets
    if not judged:
        return ""
    return "\n\n" + para("The targets, each beside its control, the configuration that must fail it (a target its "
                          "control meets too cannot fail, and is no target; a verdict only where the runs' range "
                          "clears the target), by point: %s." % targets.tally(judged)) + \
        "\n\n" + targets.markdown(judged)


def ifs_negotiated(preset, agg):
    """The matched preset is there to make the pools trade: a run in which neither asked the
    other tests no penalty and no target, and its table is refused."""
    variable = [a for (p, m, s), a in agg.items() if m != "cache"]
    fs, vm = sum(a["fs_asks_vm"] for a in variable), sum(a["vm_asks_fs"] for a in variable)
    if not fs or not vm:
        raise ValueError("ifs-%s: no negotiation (the cache asked the VM %d times, the VM the cache %d, over the "
                         "variable-cache rows): the preset tests nothing" % (preset, fs, vm))
    return "Negotiations happened each way: over the variable-cache rows the cache asked the VM %s times (got %s " \
        "pages) and the VM asked the cache %s times (got %s)." % (
            num(fs), num(sum(a["fs_asks_vm_satisfied"] for a in variable)), num(vm),
            num(sum(a["vm_asks_fs_satisfied"] for a in variable)))


def ifs_part(preset):
    def part(bench):
        from bench_ifs import LINUX_CSV, LINUX_FREE_KB, PRESETS
        from benchlib import GUEST_FLOOR, PACE_TRIES
        import ifs_tables
        rows = [r for r in load(bench, "ifs.csv") if r["preset"] == preset]
        if not rows:
            raise Missing("ifs.csv: %s" % preset)
        agg, base = ifs_tables.aggregate(rows, preset)
        too_slow = ifs_tables.refused(rows, preset)
        if not agg and not too_slow:
            raise ValueError("ifs.csv has no %s runs with the toucher" % preset)
        import bench_ifs
        matched = PRESETS[preset].get("must_negotiate")
        linux_rows = load_optional(bench, LINUX_CSV)
        lin, prot = bench_ifs.linux_of(linux_rows, preset), bench_ifs.linux_of(linux_rows, preset, "protected")
        alone = [float(r["sort_ms"]) / 1000 for r in rows if r["kind"] == "standalone"]
        first = rows[0]
        shift = first["icount_shift"]
        cpu = "full speed, wall clock" if not shift else "-icount shift=auto" if shift == "auto" else \
            "%.1f MIPS (-icount shift=%s, the guest's clock held to the host's%s)" % (
                1e3 / 2 ** int(shift), shift, " and kept by the TSC" if first.get("clock") == "tsc" else "")
        tkb = [r["toucher_kb"] for r in rows if r["toucher_kb"]]
        dirty = sorted({r["dirty_pct"] for r in rows if r.get("dirty_pct")})
        free = [float(r["free_kb"]) for r in rows if r.get("free_kb")]
        sruns = sorted({(r["sort_runs"], r["sort_passes"]) for r in rows if r.get("sort_runs")})
        runs = sorted({int(a["runs"]) for a in agg.values()})
        loads = sorted(float(r["host_load"]) for r in rows if r.get("host_load"))
        head = para("%s MB (%s free after boot: free frames and the cache's, less the kernel's reserve), "
                    "vm.policy=%s, a toucher of %s dirtying %s of its pages a round, sort of a %s file with a %s KB "
                    "budget (%s), the disk throttled to %s KB/s and %s requests/s, CPU %s; %s run%s a row (median "
                    "[min–max] of the runs; the paper's are averages of 3), sort alone %s (%d run%s: %s)%s:" % (
                        first["mem_mb"], "%.1f MB" % (statistics.median(free) / 1024) if free else "not measured",
                        first["policy"], "%.2f MB" % (float(tkb[0]) / 1024) if tkb else "?",
                        "/".join(d + " %" for d in dirty) or "50 %", first["sort_input"],
                        first.get("sort_kb") or "128", "; ".join("%s runs, %s merge pass%s before the last merge" % (r, p, "" if p == "1" else "es")
                                  for r, p in sruns)
                        or "runs not recorded", num(float(first["throttle_bps"]) / 1024), first["throttle_iops"], cpu,
                        "–".join(map(str, runs)), "" if runs == [1] else "s",
                        "%.1f s" % (base / 1000) if base else "not run", len(alone), "" if len(alone) == 1 else "s",
                        "–".join("%.1f" % x for x in (min(alone), max(alone))) if alone else "–",
                        "; host load average %.1f–%.1f" % (loads[0], loads[-1]) if loads else ""))
        table = ifs_tables.markdown(ifs_tables.table(agg, paper=preset == "paper", linux_rows=lin[0] if lin else None,
                                                     too_slow=too_slow, linux_protected=prot[0] if prot else None))
        notes = []
        slow = [r for r in rows if not ifs_tables.measured(r)]
        if slow:
            notes.append("%d run%s refused: the guest fell below %.2f of real time (make bench-ifs boots a refused run "
                         "again, %d boots in all), and a row none of whose runs kept pace says it was not measured." % (
                             len(slow), " was" if len(slow) == 1 else "s were", GUEST_FLOOR, PACE_TRIES))
        if lin or prot:
            notes.append(linux_setups(bench, preset, lin, prot))
        if matched:
            notes.append(ifs_negotiated(preset, agg))
            if lin:
                notes.append("Linux's rows are build/bench/%s's (%s run%s of each S; sort alone %s): Linux had %s "
                             "available after boot (MemAvailable); its page-ins and page-outs are swap-ins and "
                             "swap-outs, its toucher's page-ins the toucher's major faults, and the cells it does "
                             "not measure are empty." % (
                                 LINUX_CSV, "–".join(str(n) for n in sorted({a["runs"] for a in lin[0].values()})),
                                 "" if [a["runs"] for a in lin[0].values()] == [1] * len(lin[0]) else "s",
                                 "%.1f s" % (lin[1] / 1000) if lin[1] else "not run",
                                 "%.1f MB" % (lin[2] / 1024) if lin[2] else "an unrecorded amount"))
            else:
                notes.append("No Linux rows: build/bench/%s is missing (make bench-linux). The hand-made runs "
                             "(not measured in this run: a constant of bench_ifs.py) had Linux 6.1 at %.1f MB free "
                             "after boot in a 96 MB guest." % (LINUX_CSV, LINUX_FREE_KB / 1024))
        none = {s: a for (p, m, s), a in agg.items() if p == 0 and m != "cache"}
        if len(none) > 1 and preset == "paper":       # the shape of Sprite's Table 3
            order = sorted(none)
            ins = [none[s]["toucher_pageins"] for s in order]
            grows = all(b >= a for a, b in zip(ins, ins[1:])) and ins[-1] > ins[0]
            notes.append("Without a penalty the toucher's page-ins by S (%s): %s, %s%s." % (
                ", ".join("%g" % s for s in order), ", ".join("%.0f" % x for x in ins),
                "growing with S" if grows else "NOT growing with S",
                " (Sprite's Table 3: 173, 437, 1605, 1250 at S = 1, 5, 10, 30)"))
        ratio = [float(r["sort_ms"]) / float(r["sort_host_ms"]) for r in rows if r.get("sort_host_ms")]
        if ratio and shift and min(ratio) < GUEST_FLOOR:
            notes.append("The host ran the guest at %.2f–%.2f of its nominal speed (sort's guest time over its host "
                         "time; QEMU says the guest is late): in guest time the CPU is exact, a wait for the disk "
                         "is real, but a transfer that overlaps the CPU's work takes less guest time than the disk's "
                         "rate gives, so the degradations and responses here are lower bounds." % (min(ratio), max(ratio)))
        elif ratio and shift:
            notes.append("The guest kept %.2f–%.2f of real time over sort (its guest time over its host time), so a "
                         "transfer that overlaps the CPU's work took its real share of the disk's rate."
                         % (min(ratio), max(ratio)))
        if preset == "paper":
            notes.append("The calibration, the rows without a penalty against Table 3 in bytes (page-ins and sort's "
                         "degradation within a factor of %d of Sprite's): %s." % (
                             ifs_tables.CALIBRATION_FACTOR, "; ".join(ifs_tables.calibration(agg))))
        cost = [r for r in rows if r.get("untraded") and int(r["untraded"]) > 0 and shift and shift != "auto"]
        avg = least = None
        if cost:
            unit = 2 ** int(shift)          # under -icount the counter's ns are 2^shift an instruction
            n = sum(int(r["untraded"]) for r in cost)
            avg = sum(int(r["untraded"]) * float(r["untraded_tsc_avg"]) for r in cost) / n / unit
            least = min(int(r["untraded_tsc_min"]) for r in cost) / unit
            notes.append("A negotiation in which nothing was traded (the asker recycled its own page) took %s guest "
                         "instructions on average, %s at least, over %s of them (neg.untraded_tsc_avg and _min, "
                         "the guest's time-stamp counter over 2^shift)." % (num(round(avg)), num(round(least)), num(n)))
        notes += ifs_reading(agg, avg, least, paper=preset == "paper", miss=fastest_miss(bench))
        import targets
        under = "".join("\n\n%s\n\n%s" % (title, text) for title, text in
                        bench_ifs.disk_and_ablation(rows, preset, linux_rows))
        return head + "\n\n" + table + ("\n\n" + para(" ".join(notes)) if notes else "") + \
            targets_part(targets.judge_ifs(agg)) + under
    return part


def linux_setups(bench, preset, lin, prot):
    """What Linux's rows of a preset stand for: its machine and how it was matched to ours
    (linux-mem.csv), and its two setups."""
    mem = [r for r in load_optional(bench, "linux-mem.csv") if r.get("preset") == preset]
    m = mem[-1] if mem else {}
    if m.get("matched_by") == "memfit":
        match = ("Linux ran in %s MB, the least machine on which memfit (a program that writes a growing heap "
                 "until the machine's first page-out) kept what it keeps on ours at %s MB: %s KB there, %s KB here "
                 "(Linux's MemAvailable said %s KB, ours free frames and cache less the reserve %s KB)." % (
                     m["linux_mem_mb"], m["ours_mem_mb"], num(int(m["linux_memfit_kb"])), num(int(m["ours_memfit_kb"])),
                     num(int(m["linux_available_kb"])), num(int(m["ours_free_kb"]))))
    elif m:
        match = "Linux ran in %s MB, matched by MemAvailable (%s KB) to what ours leaves to programs." % (
            m.get("linux_mem_mb"), m.get("linux_available_kb"))
    else:
        match = "How Linux's machine was matched is not recorded (no linux-mem.csv row of this preset)."
    setups = []
    if lin:
        setups.append("'page cache' is Debian's setup, to be read against our penalty 0")
    if prot:
        setups.append("'page cache, protected' the control rows (swappiness 0, the dirty bounds in bytes at ours, "
                      "noatime, the toucher in a cgroup whose memory.low covers it: bench_linux.py's SETUPS), to be "
                      "read against our penalty")
    return match + " " + "; ".join(setups) + "."


# --- ecd ---------------------------------------------------------------------------------------
def ecd_rows(bench):
    """The full grid's rows of ecd.csv, else the short preset's (then --partial says so)."""
    rows = load(bench, "ecd.csv")
    for preset in ("full", "short"):
        got = [r for r in rows if r["preset"] == preset]
        if got:
            return got
    raise ValueError("ecd.csv has no rows of the full or the short preset")


def ecd_short(bench):
    """The points of the full grid (bench_ecd.py's full preset, one run each) that the rows lack."""
    from bench_ecd import PRESETS, grid
    from ecd_paper import config_key
    have = {(int(r["mem_paper_mb"]), config_key(r)) for r in ecd_rows(bench)}
    full = PRESETS["full"]
    want = [(m, config_key({"cache": c, "cache_kb": kb, "penalty_s": p}))
            for m, c, kb, p in grid(full["mems"], full["fixed"], full["nocache"], full["penalties"])]
    lack = [w for w in want if w not in have]
    return ["%d of the full grid's %d points (none of %s)" % (len(want) - len(lack), len(want),
            ", ".join("%d MB %s" % w for w in lack[:6]) + (" ..." if len(lack) > 6 else ""))] if lack else []


def ecd_setup(rows):
    first = rows[0]
    wall = [float(r["wall_s"]) / (float(r["elapsed_ms"]) / 1000) for r in rows if r.get("wall_s")]
    runs = sorted({int(r["run"]) for r in rows})
    return para("Preset %s: %s loop%s of the phases at %s %% of Table 1 (user/phase.c), Sprite's P MB standing for a "
                "guest of P + 2 MB whose environment takes 5 MB and the surplus over Sprite's P - 1.3 MB; the disk "
                "throttled to %s KB/s and %s requests/s; CPU %.1f MIPS (-icount shift=%s, the guest's clock held to "
                "the host's); %d run%s a point%s. FS and VM MB are what each moved to and from the disk (reads + "
                "writes; Sprite's VM MB is its network total less its file bytes, headers included); busy is "
                "disk.busy_ms over the elapsed time, where Sprite gives its file server's CPU." % (
                    first["preset"], first["loops"], "" if first["loops"] == "1" else "s", first["scale"],
                    num(float(first["throttle_bps"]) / 1024), first["throttle_iops"], 1e3 / 2 ** int(first["icount_shift"]),
                    first["icount_shift"], max(runs), "" if max(runs) == 1 else "s (elapsed, FS and VM MB: median [min–max]; the rest "
                    "averaged)",
                    "; the host ran the guest at %.2f-%.2f of real time (guest time over wall clock, boot "
                    "included: QEMU says the guest is late), so a wait for the disk looks shorter in guest time "
                    "than the throttle makes it" % (1 / max(wall), 1 / min(wall)) if wall else ""))


def ecd_spreads(rows):
    """{(paper MB, config): {"elapsed_s", "fs_mb", "vm_mb": each run's figure}} of ECD rows."""
    from ecd_paper import config_key
    out = {}
    for r in rows:
        got = out.setdefault((int(r["mem_paper_mb"]), config_key(r)), {"elapsed_s": [], "fs_mb": [], "vm_mb": []})
        got["elapsed_s"].append(float(r["elapsed_ms"]) / 1000)
        got["fs_mb"].append((float(r["fs_read_kb"] or 0) + float(r["fs_write_kb"] or 0)) / 1024)
        got["vm_mb"].append((float(r["vm_read_kb"] or 0) + float(r["vm_write_kb"] or 0)) / 1024)
    return out


def ecd_points(bench):
    from ecd_paper import aggregate, paper, paper_mb, label
    from bench_ecd import _order
    from ifs_tables import spread
    rows = ecd_rows(bench)
    agg = aggregate(rows)
    linux = ecd_linux_rows(bench)
    agg.update(aggregate(linux))
    runs = ecd_spreads(rows + linux)
    out = ["| Sprite's MB | cache | elapsed (s) | busy | FS MB (read / write: means) | VM MB (read / write: means) | "
           "faults | Sprite (Appendix C): elapsed, server CPU, FS MB, VM MB, faults |", "|---|---|---|---|---|---|---|---|"]
    for (m, c), a in sorted(agg.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]))):
        of = runs[(m, c)]
        pmb = paper_mb(m, c)
        sprite = "%d s, %.1f %%, %.1f, %.1f, %s" % (paper(m, c, "elapsed_s"), paper(m, c, "util"), pmb[0], pmb[1],
                                                   num(paper(m, c, "faults"))) if pmb else \
            "– (Linux on the same work)" if c == "linux" else "– (not run: it thrashed)"
        out.append("| %d | %s | %s | %s | %s (%.1f / %.1f) | %s (%.1f / %.1f) | %s | %s |" % (
            m, label(c), spread(of["elapsed_s"], lambda x: "%.0f" % x), "–" if c == "linux" else "%.0f %%" % a["util"],
            spread(of["fs_mb"], lambda x: "%.1f" % x), a["fs_read_kb"] / 1024, a["fs_write_kb"] / 1024,
            spread(of["vm_mb"], lambda x: "%.1f" % x), a["vm_read_kb"] / 1024, a["vm_write_kb"] / 1024,
            num(a["faults"]), sprite))
    notes = []
    for m in sorted({m for m, _ in agg}):
        here = {c: a["elapsed_ms"] / 1000 for (mm, c), a in agg.items() if mm == m and c != "linux"}
        if not here:
            continue
        best = min(here, key=here.get)
        sprite = {c: paper(m, c, "elapsed_s") for c in here if paper(m, c, "elapsed_s") is not None}
        sbest = min(sprite, key=sprite.get) if sprite else None
        notes.append("%d MB: fastest here %s (%.0f s)%s" % (m, label(best), here[best], ", Sprite %s (%d s)" % (
            label(sbest), sprite[sbest]) if sbest else ""))
    text = "The fastest of the points run, by memory (Sprite's of the same points): " + "; ".join(notes) + "."
    both = [m for m in sorted({m for m, _ in agg}) if (m, "p0") in agg and (m, "0.5M") in agg]
    if both:
        v, f = lambda m, k: agg[(m, "p0")][k], lambda m, k: agg[(m, "0.5M")][k]
        fewer = [m for m in both if v(m, "fs_mb") < f(m, "fs_mb")]
        more = [m for m in both if v(m, "vm_mb") > f(m, "vm_mb")]
        text += (" Figure 4's comparison, the variable cache (no penalty) against the fixed 0.5 MB, FS MB and VM MB: "
                 "%s; fewer file bytes at %d of %d memories and more VM bytes at %d (Sprite: fewer file bytes and "
                 "more VM bytes at all five)." % ("; ".join("%d MB %.1f against %.1f and %.1f against %.1f" % (
                     m, v(m, "fs_mb"), f(m, "fs_mb"), v(m, "vm_mb"), f(m, "vm_mb")) for m in both),
                     len(fewer), len(both), len(more)))
    pens = [(m, c) for m, c in sorted(agg) if c.startswith("p") and c != "p0" and (m, "p0") in agg]
    if pens:
        text += (" Figures 5 and 6's question, a penalty against none (elapsed, VM MB): %s (Sprite, the same "
                 "points: %s)." % ("; ".join("%d MB %s s %.0f s against %.0f s, %.1f against %.1f MB" % (
                     m, c[1:], agg[(m, c)]["elapsed_ms"] / 1000, agg[(m, "p0")]["elapsed_ms"] / 1000,
                     agg[(m, c)]["vm_mb"], agg[(m, "p0")]["vm_mb"]) for m, c in pens),
                     "; ".join("%d MB %.0f s against %.0f s, %.1f against %.1f MB" % (
                         m, paper(m, c, "elapsed_s"), paper(m, "p0", "elapsed_s"), paper_mb(m, c)[1],
                         paper_mb(m, "p0")[1]) for m, c in pens)))
    if linux:
        text += " " + ecd_linux_note(linux, agg)
    import targets
    return ecd_setup(rows) + "\n\n" + "\n".join(out) + "\n\n" + para(text) + targets_part(targets.judge_ecd(rows))


def ecd_linux_rows(bench):
    """Linux's rows of linux-ecd.csv (bench_linux_ecd.py), its matched preset's where there are
    any, else its short preset's; none where it was not run."""
    from ecd_paper import linux_rows
    return linux_rows(os.path.join(bench, "linux-ecd.csv"))


def ecd_linux_note(linux, agg):
    """What the Linux rows stand for, and Linux's time beside the fastest of ours at each memory."""
    from ecd_paper import label
    from bench_linux_ecd import LINUX_LEAST_MB
    first = linux[0]
    mems = sorted({int(r["mem_paper_mb"]) for r in linux})
    beside = []
    for m in mems:
        ours = {c: a["elapsed_ms"] for (mm, c), a in agg.items() if mm == m and c != "linux"}
        if ours and first["icount_shift"]:          # at full speed the times do not compare
            best = min(ours, key=ours.get)
            beside.append("%d MB %.0f s against our %.0f s (%s)" % (m, agg[(m, "linux")]["elapsed_ms"] / 1000,
                                                                  ours[best] / 1000, label(best)))
    return ("The Linux rows are Linux 6.1 (%s, Debian's i386 kernel, busybox) running the same phases (preset %s, "
            "%s loop%s at %s %%, the CPU %s) in the same QEMU, on a machine of %s MB %s; its FS MB are /proc/vmstat's pgpgin and pgpgout "
            "less the swap's pages (code it reads counts as file traffic there, as VM traffic here), its VM MB "
            "pswpin and pswpout, its faults pgfault; it has no busy figure (/proc/diskstats' io_ticks stays 0 "
            "on this virtio disk) and no cache negotiation to count.%s" % (first["kernel"] or "6.1", first["preset"], first["loops"], "" if first["loops"] == "1" else "s",
                          first["scale"], "at -icount shift=%s as ours" % first["icount_shift"]
                          if first["icount_shift"] else "at full speed, so that its times do not compare with ours",
                          "/".join(sorted({r["mem_mb"] for r in linux}, key=int)),
                          "whose MemAvailable after boot is at least what ours leaves to programs at the same "
                          "Sprite MB (%d MB at least, bench_linux_ecd.py's floor: the least it booted on when "
                          "tried), its environment taking the surplus" % LINUX_LEAST_MB
                          if first["preset"] != "short" else "(the short preset: no matching)",
                          (" Linux against the fastest of ours: " + "; ".join(beside) + ".") if beside else ""))


def ecd_table2(bench):
    from ecd_paper import aggregate, config_key, TABLE_2
    from ifs_tables import spread
    rows = ecd_rows(bench)
    agg = aggregate(rows)
    of = lambda m, k: [float(r[k]) for r in rows if int(r["mem_paper_mb"]) == m and config_key(r) == "p0" and r.get(k)]
    mb = lambda m, k: spread([x / 1024 for x in of(m, k)], lambda x: "%.2f" % x)
    n = lambda m, k: spread(of(m, k), num)
    mems = sorted(m for m, c in agg if c == "p0")
    if not mems:
        raise ValueError("ecd.csv has no run of the variable cache without penalty")
    out = ["| Sprite's MB | cache min–max (MB) | FS asks VM: given / asked | VM asks FS: given / asked | "
           "Sprite (Table 2): cache, FS asks VM, VM asks FS |", "|---|---|---|---|---|"]
    for m in mems:
        a, t = agg[(m, "p0")], TABLE_2[m]
        out.append("| %d | %s–%s | %s / %s | %s / %s | %.2f–%.1f, %s / %s, %s / %s |" % (
            m, mb(m, "cache_min_kb"), mb(m, "cache_max_kb"), n(m, "fs_asks_vm_satisfied"), n(m, "fs_asks_vm"),
            n(m, "vm_asks_fs_satisfied"), n(m, "vm_asks_fs"), t[0], t[1], num(t[3]), num(t[2]), num(t[5]), num(t[4])))
    least = min(agg[(m, "p0")]["cache_min_kb"] for m in mems)
    return "\n".join(out) + "\n\n" + para(
        "The cache's least size is counted from the reset before the first phase, when it holds what the boot "
        "left (%s KB at the least in these runs): fs.cache_min_kb=256 is the floor it gives nothing below, not a "
        "size it starts at." % num(least))


# --- Linux on the same work (bench_linux.py) ------------------------------------------------
LINUX_FULL = {"preset": "matched", "intervals": [5, 30]}


def linux_short(bench):
    """What the matched preset's rows of linux-ifs.csv lack against a full run."""
    rows = [r for r in load(bench, "linux-ifs.csv") if r["preset"] == LINUX_FULL["preset"]]
    lack = []
    if not any(r["kind"] == "standalone" for r in rows):
        lack.append("no run of sort alone")
    for s in LINUX_FULL["intervals"]:
        if not any(r["kind"] == "ifs" and float(r["interval_s"]) == s for r in rows):
            lack.append("no run at S = %d" % s)
    return lack


def linux_ifs(bench):
    """The IFS mix under Linux, matched preset: one row a run (sort alone, then by S), after the
    memory each kernel left to programs."""
    rows = need([r for r in load(bench, "linux-ifs.csv") if r["preset"] == LINUX_FULL["preset"]],
                "run of the matched preset", "linux-ifs.csv")
    mem = [r for r in load(bench, "linux-mem.csv") if r["preset"] == LINUX_FULL["preset"]] \
        if os.path.exists(os.path.join(bench, "linux-mem.csv")) else []
    r0 = rows[0]
    head = ("Linux %s (Debian 12, i386) in a %s MB machine; a %s KB toucher, sort of %s with `-m %s`, the disk at "
            "%s B/s and %s requests/s, `-icount shift=%s,align=on`; times are the guest's." % (
                r0["kernel"], r0["mem_mb"], num(max(float(r["toucher_kb"] or 0) for r in rows)),
                r0["sort_input"], r0["sort_kb"], num(r0["throttle_bps"]), r0["throttle_iops"], r0["icount_shift"]))
    if mem:
        m = mem[0]
        head += (" After boot Linux had %s KB available (MemAvailable; MemFree %s KB) where this kernel at %s MB "
                 "leaves %s KB to programs (free frames and cache blocks less its reserve)." % (
                     num(m["linux_available_kb"]), num(m["linux_free_kb"]), m["ours_mem_mb"] or "?",
                     num(m["ours_free_kb"]) if m["ours_free_kb"] else "?"))
    alone = [float(r["sort_ms"]) for r in rows if r["kind"] == "standalone"]
    base = statistics.median(alone) if alone else None
    out = ["| S | sort (s) | degradation | touches min/max/avg (s) | toucher's major faults | swap-ins | swap-outs "
           "| major faults | page cache (KB) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["kind"] != "standalone", float(r["interval_s"] or 0), int(r["run"]))):
        ifs = r["kind"] == "ifs"
        out.append("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s-%s |" % (
            "%g" % float(r["interval_s"]) if ifs else "sort alone", float(r["sort_ms"]) / 1000,
            "+%.0f %%" % ((float(r["sort_ms"]) / base - 1) * 100) if ifs and base else "",
            "%.2f / %.2f / %.2f" % tuple(float(r[k]) / 1000 for k in ("resp_min_ms", "resp_max_ms", "resp_avg_ms"))
            if ifs else "", num(r["toucher_pageins"]) if ifs else "", num(r["pageins"]), num(r["pageouts"]),
            num(r["pageins_all"]), num(r["cache_min_kb"]), num(r["cache_max_kb"])))
    return para(head) + "\n\n" + "\n".join(out)


# --- Hagmann's comparison (tools/lab/tracesim.py on the shipped traces) -----------------------
HAGMANN_CSV = "tracesim/sim.csv"     # make paper runs tracesim.py --out build/bench/tracesim


def hagmann_sums(bench):
    """{trace: ({policy: faults summed over the sizes below the trace's pages}, pages, references)}."""
    rows = need([r for r in load(bench, HAGMANN_CSV) if r["faults"] != "error"], "simulated trace", HAGMANN_CSV)
    out = {}
    for r in rows:
        if int(r["frames"]) >= int(r["pages"]):
            continue                         # everything fits: every policy faults once a page
        sums, _, _ = out.setdefault(r["trace"], ({}, int(r["pages"]), int(r["references"])))
        sums[r["policy"]] = sums.get(r["policy"], 0) + int(r["faults"])
    return out


def hagmann(bench):
    """Percent over MIN per trace and policy (his Figures 2, 5, 8, summed over memory sizes), and
    each of his four findings held against ours."""
    sums = hagmann_sums(bench)
    # The shipped policies in the literature's order, then any other the simulator ran (a lab's
    # solution, which this file does not name: the students' tree has none) in name order.
    known = ("clock", "fifo", "random", "clusterlru", "lru", "spt")
    ran = set.intersection(*(set(s) for s, _, _ in sums.values())) - {"MIN", "atlas"} if sums else set()
    policies = [p for p in known if p in ran] + sorted(ran - set(known)) + \
               [p for p in ("atlas",) if all(p in s for s, _, _ in sums.values())]
    out = ["| trace (pages, references) | " + " | ".join(policies) + " |", "|---|" + "---|" * len(policies)]
    over = lambda s, p: 100 * (s[p] / s["MIN"] - 1)
    for t, (s, pages, refs) in sorted(sums.items()):
        out.append("| %s (%d, %d) | %s |" % (t.replace(".trace", ""), pages, refs,
                                              " | ".join("%+.0f %%" % over(s, p) for p in policies)))
    names = sorted(sums)
    short = lambda t: t.replace(".trace", "")
    findings = []
    if all("clock" in sums[t][0] and "lru" in sums[t][0] for t in names):
        gap = {t: 100 * (sums[t][0]["clock"] / sums[t][0]["lru"] - 1) for t in names}
        inside = [t for t in names if 10 <= gap[t] <= 40]
        findings.append("clock over LRU by 10-40 %%: %s (%d of %d traces inside his range)" % (
            ", ".join("%s %+.0f %%" % (short(t), gap[t]) for t in names), len(inside), len(names)))
    if all("random" in sums[t][0] for t in names):
        better = [t for t in names if sums[t][0]["clock"] < sums[t][0]["random"]]
        findings.append("clock much better than random: clock had fewer faults on %d of %d traces%s" % (
            len(better), len(names), " (%s)" % ", ".join(map(short, better)) if better else ""))
    if all("clusterlru" in sums[t][0] for t in names):
        near = [t for t in names if abs(sums[t][0]["clusterlru"] - sums[t][0]["lru"]) <
                abs(sums[t][0]["clock"] - sums[t][0]["lru"]) / 3]
        findings.append("cluster LRU (16) far nearer LRU than clock is: on %d of %d traces within a third of the "
                        "clock-LRU difference" % (len(near), len(names)))
    if all("spt" in sums[t][0] for t in names):
        # a trace on which clock is within 5 % of MIN has no gap to close
        closed = {t: 100 * (sums[t][0]["clock"] - sums[t][0]["spt"]) / (sums[t][0]["clock"] - sums[t][0]["MIN"])
                  for t in names if sums[t][0]["clock"] > 1.05 * sums[t][0]["MIN"]}
        findings.append("SPT closes 20-50 %% of the gap from clock to MIN: %s (%d of %d inside his range%s)" % (
            ", ".join("%s %.0f %%" % (short(t), c) for t, c in sorted(closed.items())),
            sum(1 for c in closed.values() if 20 <= c <= 50), len(closed),
            "; %s: clock within 5 %% of MIN, no gap" % ", ".join(short(t) for t in names if t not in closed)
            if len(closed) < len(names) else ""))
    return "\n".join(out) + "\n\n" + para(
        "Faults summed over the memory sizes below each trace's page count (a tenth to nine tenths of the "
        "most pages it has live at once), as percent over MIN. Hagmann's findings (1991, section 5; his traces were hours of "
        "workstations sampled every 5 s; ours keep the order of first uses within each epoch: a workstation "
        "session of five minutes, and single programs of seconds, loops and first touches, where LRU-like "
        "policies do worst) held against ours: " + "; ".join(findings) + ".")


def headline_part(bench):
    """The results chapter's headline (tools/bench/headline.py): one bullet a comparison."""
    import headline
    try:
        items, head = headline.headline(bench, load)
    except headline.Lacking as e:
        raise Missing(str(e))
    wrap = lambda t: textwrap.fill(t, width=96, initial_indent="- ", subsequent_indent="  ",
                                   break_long_words=False, break_on_hyphens=False)
    return para(head) + "\n\n" + "\n".join(wrap(t) for t in items)


def headline_short(bench):
    """A headline from shorter runs than the tables' full ones says so, once."""
    lacks = []
    for fn in (ifs_short("paper"), ifs_short("matched"), ecd_short, linux_short):
        try:
            lacks += fn(bench)
        except (Missing, ValueError):
            lacks.append("?")
    return ["figures of make paper's short preset (each table of this chapter says what its run lacked)"] \
        if lacks else []


full = lambda bench: []
# (name, CSV, the part's text, what a run lacks against a full one)
PARTS = [("boot", "boot.csv", boot, boot_short), ("vm-faults", "vm.csv", vm_faults, full),
         ("vm-irlam", "vm-irlam.csv", vm_irlam, full), ("fs-cached", "fs.csv", fs_cached, full),
         ("fs-summary", "fs.csv", fs_summary, full), ("fs-disk", "fs.csv", fs_disk, full),
         ("fs-policy", "fs.csv", fs_policy, full), ("fork-7-1", "fork.csv", fork71, full),
         ("fork-7-3", "fork-workload.csv", fork73, full),
         ("ifs-paper", "ifs.csv", ifs_part("paper"), ifs_short("paper")),
         ("ifs-matched", "ifs.csv", ifs_part("matched"), ifs_short("matched")),
         ("ecd-points", "ecd.csv", ecd_points, ecd_short), ("ecd-table2", "ecd.csv", ecd_table2, ecd_short),
         ("linux-ifs", "linux-ifs.csv", linux_ifs, linux_short), ("hagmann", HAGMANN_CSV, hagmann, full),
         ("headline", "ifs.csv", headline_part, headline_short)]


class Short(Exception):
    pass


def marker(name):
    return re.compile(r"(<!-- bench:%s\b[^>]*-->\n)(.*?)(<!-- /bench:%s -->)" % (re.escape(name), re.escape(name)), re.S)


def regenerate(texts, bench, partial=False, only=None):
    """texts: {path: text}. The texts with every part whose CSV exists regenerated (only those
    named in only, if given), and the parts done. Raises Short for a run shorter than its
    table's full one unless partial, ValueError for a name in only that is no part."""
    texts = dict(texts)
    done = []
    unknown = sorted(set(only or ()) - set(p[0] for p in PARTS))
    if unknown:
        raise ValueError("no part named %s (the parts: %s)" % (", ".join(unknown), ", ".join(p[0] for p in PARTS)))
    for name, csvname, fn, short in PARTS:
        pat = marker(name)
        where = [p for p, t in texts.items() if pat.search(t)]
        if len(where) != 1:
            raise ValueError("%s <!-- bench:%s --> ... <!-- /bench:%s --> markers in %s" % (
                "no" if not where else "two pairs of", name, name, ", ".join(sorted(os.path.relpath(p) for p in texts))
                if not where else ", ".join(os.path.relpath(p) for p in where)))
        if only and name not in only:
            continue
        try:
            body = fn(bench)
            lack = short(bench)
        except Missing:
            continue
        if lack and not partial:
            raise Short("%s: a shorter run than the table's full one (%s); run it in full, or take it with "
                        "RESULTS_ARGS=--partial and the table says so" % (name, "; ".join(lack)))
        if lack:
            body = para("Partial run (not the full one this table is made from): %s." % "; ".join(lack)) + \
                "\n\n" + body
        p = where[0]
        texts[p] = pat.sub(lambda m: m.group(1) + body + "\n" + m.group(3), texts[p], count=1)
        done.append(name)
    return texts, done


def doc_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".md"))
        else:
            files.append(p)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", nargs="+", default=[os.path.join(ROOT, "docs", "results.md")])
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--partial", action="store_true", help="take a run shorter than a table's full one, and say so")
    ap.add_argument("--only", help="the parts to regenerate, by name, comma-separated (all by default)")
    a = ap.parse_args()
    old = {}
    for p in doc_files(a.docs):
        with open(p) as f:
            old[p] = f.read()
    try:
        new, done = regenerate(old, a.bench, a.partial, a.only.split(",") if a.only else None)
    except (ValueError, KeyError, Short) as e:
        sys.exit("results: %s" % (e if not isinstance(e, KeyError) else "a CSV lacks the column %s" % e))
    changed = [p for p in new if new[p] != old[p]]
    if a.check:
        if changed:
            sys.exit("results: %s differ%s from the figures in %s" % (
                ", ".join(os.path.relpath(p) for p in changed), "s" if len(changed) == 1 else "", a.bench))
        return
    for p in changed:
        with open(p, "w") as f:
            f.write(new[p])
    print("results: %s regenerated from %s (%s)" % (", ".join(os.path.relpath(p) for p in changed) or "nothing",
                                                    os.path.relpath(a.bench), ", ".join(done) or "no CSVs yet"))


if __name__ == "__main__":
    main()
