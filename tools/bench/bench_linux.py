#!/usr/bin/env python3
"""make bench-linux: the IFS mix of WRL 90/4 (tools/bench/bench_ifs.py) run under Linux 6.1 in
the same QEMU, so that a table can put Linux's row beside our kernel's.

WHAT STANDS FOR WHAT. The programs are ours, built from the same sources for Linux (user/lib/
linux/: make linux-programs): the same sort with the same -m budget and the same input (mklines
makes it, deterministic), the same toucher, filling its memory first (toucher -f, as the matched
preset of bench_ifs.py runs it: Linux maps a page that is only ever read, never written, to its
one shared zero page, so without -f the 15 MB toucher held 8 MB here and 15 MB in our kernel,
which gives every page a frame of its own, and sort had 7 MB more cache under Linux). The machine is the same QEMU (tools/runqemu.py):
the same virtio disk with the same throttle, the CPU slowed by the same -icount shift with its
clock held to the host's (align=on). Linux is Debian 12's i386 kernel (linux-image-*-686) with
busybox as its user land (tools/linux/), on one disk holding an ext2 file system (4 KB blocks)
and a swap partition, as our kernel keeps its files and its backing store on one disk.

MATCHED MEMORY. What counts is not the machine's size but what each kernel leaves to programs
after boot: our kernel at --ours-mem MB (its free frames and cache blocks after boot, less the
kernel's reserve, KERNEL_RESERVE of kernel/negotiate.c, read with vmstat), and Linux's
MemAvailable of /proc/meminfo after boot (its free pages, plus the page cache and reclaimable
slab it would give up, less its watermarks). Linux's kernel is larger, so its machine is larger:
it is booted at two sizes, MemAvailable is interpolated (it grows one for one with the machine)
and the size that leaves at least what ours leaves is chosen and booted to check. Both figures
are printed and written to build/bench/linux-mem.csv; --linux-mem skips the search.

ONE RUN is one boot on a private copy of a prepared disk (sort's input /in made and synced
beforehand, so it is on disk, not in the cache, when the run begins), at the benchmark's CPU
speed and disk throttle; a script (tools/linux/linuxboot.py hands it over) starts a sampler of
/proc/meminfo and /proc/vmstat every second and the toucher (both writing to a tmpfs, read back
at the end), waits for the toucher's first round, reads the counters, runs sort between two
time stamps of /proc/uptime, waits for the toucher's round in progress to end (up to 10
minutes: under Linux a round that began while sort ran can outlast it by minutes), sleeps
S + 2 s, reads the counters again. Sort alone is the same
boot without the toucher.

WHAT A ROW REPORTS, in ifs.csv's columns where they apply (bench_ifs.COLUMNS): the toucher's
responses (the rounds that began while sort ran and the first after), sort's time (the two
stamps) and its own (-v), page-ins and page-outs of the whole machine (pswpin, pswpout of
/proc/vmstat), the toucher's page-ins (its major faults, which the library's getprocinfo reads
from /proc/PID/stat), all major faults (pgmajfault, for pageins_all), the disk's reads and
writes (/proc/diskstats), the file cache's least and greatest size from sort's start (Cached of
/proc/meminfo, sampled). What has no Linux counterpart stays empty: the penalty, the
negotiation's counters, the toucher's own page-outs (Linux does not count them by process).
Added at the end: free_after_boot_kb, available_after_boot_kb, kernel.

PRESETS.
  matched   memory matched to ours at 20 MB (about 17 MB to programs), a 15 MB toucher, sort
            of 8 MB with -m 320, the disk at 512 KB/s and 100 requests a second, -icount
            shift=4 (62.5 MIPS), align=on; S = 5 and 30, and sort alone.
  short     for the test: full speed, no throttle, a 1 MB toucher, sort of 256 KB with -m 32,
            S = 1, a 64 MB machine (no search).

    bench_linux.py [--preset matched|short] [--intervals 5,30] [--runs 1] [-j 1] [--ours-mem MB]
                   [--linux-mem MB] [--toucher-mb MB] [--sort-input SIZE] [--sort-kb KB]
                   [--throttle-bps N] [--throttle-iops N] [--icount SHIFT|none] [--no-standalone]

Writes build/bench/linux-ifs.csv (one line a run; a preset's lines replace its earlier ones),
linux-ifs-series.csv (cache, swap traffic and responses over time), linux-mem.csv, the console
of each run under build/bench/linux-logs and the figure linux-ifs-PRESET.png. The parsing below
is pure (console text in, numbers out); tests/host/test_bench_linux.py holds it."""
import argparse, csv, os, re, statistics, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "linux"))
from benchlib import ROOT, RUN_COLUMNS, boot_steps, bench_path, run_all, run_identity   # noqa: E402
import linuxboot  # noqa: E402

NAME = "bench-linux"
PRESETS = {
    "matched": dict(ours_mem=20, linux_mem=None, toucher_mb=15.0, sort_input="8M", sort_kb=320,
                    throttle_bps=512 << 10, throttle_iops=100, icount=4, intervals="5,30"),
    "short": dict(ours_mem=None, linux_mem=64, toucher_mb=1.0, sort_input="256K", sort_kb=32,
                  throttle_bps=None, throttle_iops=None, icount=None, intervals="1"),
}
SAMPLE_S = 1
VMSTAT = ["pswpin", "pswpout", "pgmajfault"]
MEMINFO = ["Cached", "MemFree", "SwapFree"]

# The columns of build/bench/ifs.csv (tools/bench/bench_ifs.py) that this benchmark fills or
# leaves empty, in their order there, then Linux's own. tests/host/test_bench_linux.py checks
# that every one of the first list is still one of ifs.csv's.
IFS_COLUMNS = ["preset", "kind", "interval_s", "penalty_s", "mode", "run", "policy", "mem_mb", "toucher_kb",
               "sort_input", "throttle_bps", "throttle_iops", "icount_shift", "rounds", "resp_min_ms", "resp_max_ms",
               "resp_avg_ms", "sort_ms", "sort_internal_ms", "pageins", "pageouts", "toucher_pageins",
               "toucher_pageouts", "cache_min_kb", "cache_max_kb", "fs_asks_vm", "fs_asks_vm_satisfied",
               "vm_asks_fs", "vm_asks_fs_satisfied", "age_lag_ms", "pageins_all", "disk_reads", "disk_writes",
               "sort_host_ms", "host_load"]
COLUMNS = IFS_COLUMNS + ["sort_kb", "free_after_boot_kb", "available_after_boot_kb", "kernel"] + RUN_COLUMNS
SERIES = ["preset", "interval_s", "penalty_s", "mode", "run", "what", "t_s", "value", "pageins"]


class ParseError(Exception):
    pass


# --- the guest's script -------------------------------------------------------------------------
ROUND_WAIT_S = 600      # how long a run waits after sort for the toucher's round in progress


def script(toucher_mb, interval, sort_input_path, sort_kb):
    """The commands of one run (busybox sh). Lines it prints for the host begin with '@'."""
    lines = [
        "mount -t tmpfs -o size=4m tmpfs /mnt",
        # One sample: uptime in ms, then MEMINFO's and VMSTAT's values. Builtins only, so that
        # sampling costs no fork but sleep's.
        "sample() {",
        "  read up rest < /proc/uptime",
        "  while read k v u; do case $k in %s) eval m_${k%%:}=$v;; esac; done < /proc/meminfo"
        % "|".join(k + ":" for k in MEMINFO),
        "  while read k v; do case $k in %s) eval v_$k=$v;; esac; done < /proc/vmstat" % "|".join(VMSTAT),
        "  echo \"@${up%%.*}${up#*.}0 %s %s\"" % (" ".join("$m_" + k for k in MEMINFO),
                                                  " ".join("$v_" + k for k in VMSTAT)),
        "}",
        "disk() { while read a b dev r1 r2 r3 r4 w1 rest; do [ $dev = vda ] && echo \"@disk $1 $r1 $w1\"; "
        "done < /proc/diskstats; }",
        "echo \"@head %s %s\"" % (" ".join(MEMINFO), " ".join(VMSTAT)),
        "(while :; do sample; sleep %d; done) > /mnt/samples &" % SAMPLE_S,
        "sampler=$!",
    ]
    if interval is not None:
        lines += [
            "toucher -t -m %g -f -s %g -n 100000 > /mnt/toucher &" % (toucher_mb, interval),
            "toucher=$!",
            "until grep -q '^touch 1 ' /mnt/toucher 2>/dev/null; do sleep 0.2; done",
        ]
    lines += [
        "echo \"@before $(sample)\"",
        "disk 0",
        "read up rest < /proc/uptime; echo \"@stamp 0 ${up%%.*}${up#*.}0\"",
        "sort -v -m %d -o /tmp/out %s" % (sort_kb, sort_input_path),
        "st=$?",
        "read up rest < /proc/uptime; echo \"@stamp 1 ${up%%.*}${up#*.}0\"",
    ]
    if interval is not None:
        # A round the toucher began while sort ran may outlast sort by minutes when Linux has
        # swapped the toucher out: wait for it to end (up to ROUND_WAIT_S), or it is not seen.
        lines += [
            "n=$(grep -c '^touch ' /mnt/toucher)",
            "i=0; while [ $(grep -c '^touch ' /mnt/toucher) -le $n ] && [ $i -lt %d ]; do sleep 1; i=$((i+1)); done"
            % ROUND_WAIT_S,
            "sleep %g" % (interval + 2),
        ]
    lines += [
        "echo \"@after $(sample)\"",
        "disk 1",
        "kill $sampler %s" % ("$toucher" if interval is not None else ""),
        "echo '@samples'; cat /mnt/samples",
        "echo '@toucher'; cat /mnt/toucher 2>/dev/null",
        "echo '@end'",
        "exit $st",
    ]
    return "\n".join(lines) + "\n"


# --- parsing: console text in, numbers out ------------------------------------------------------
TOUCH = re.compile(r"^touch (\d+) (\d+) ms, (\d+) page-ins, at (\d+) ms$", re.M)
SORT_V = re.compile(r"sort: (\d+) lines, (\d+) runs in (\d+) ms, (\d+) merge passes and the last merge in (\d+) ms")


def sample_values(text, names):
    """{name: value} of one sample line's values after its time stamp."""
    vals = text.split()
    if len(vals) != len(names) + 1 or not all(v.isdigit() for v in vals):
        raise ParseError("a sample %r has not the %d values of %s" % (text, len(names), " ".join(names)))
    return int(vals[0]), dict(zip(names, map(int, vals[1:])))


def parse_run(out, toucher):
    """The numbers of one run from its console text (see the module's docstring)."""
    meminfo = linuxboot.boot_meminfo(out)
    if meminfo is None:
        raise ParseError("no /proc/meminfo after boot")
    head = re.search(r"^@head (.+)$", out, re.M)
    if not head:
        raise ParseError("the script did not start")
    names = head.group(1).split()
    r = {"free_after_boot_kb": meminfo.get("MemFree"), "available_after_boot_kb": meminfo.get("MemAvailable")}
    k = re.search(r"^linux-init: Linux (\S+) up", out, re.M)
    r["kernel"] = k.group(1) if k else ""
    stamps = dict((int(a), int(b)) for a, b in re.findall(r"^@stamp (\d) (\d+)$", out, re.M))
    if 0 not in stamps or 1 not in stamps:
        raise ParseError("sort's time stamps are missing (sort did not run to its end?)")
    t0, t1 = stamps[0], stamps[1]
    m = SORT_V.search(out)
    if not m:
        raise ParseError("sort did not finish (no line of sort -v)")
    r.update(sort_ms=t1 - t0, sort_internal_ms=int(m.group(3)) + int(m.group(5)), sort_runs=int(m.group(2)),
             sort_passes=int(m.group(4)), t0=t0, t1=t1)
    ba = {}
    for what in ("before", "after"):
        line = re.search(r"^@%s @(.+)$" % what, out, re.M)
        if not line:
            raise ParseError("no counters %s sort" % what)
        ba[what] = sample_values(line.group(1), names)[1]
    r["before_after"] = ba
    r["pageins"] = ba["after"]["pswpin"] - ba["before"]["pswpin"]
    r["pageouts"] = ba["after"]["pswpout"] - ba["before"]["pswpout"]
    r["pageins_all"] = ba["after"]["pgmajfault"] - ba["before"]["pgmajfault"]
    disk = dict((int(a), (int(b), int(c))) for a, b, c in re.findall(r"^@disk (\d) (\d+) (\d+)$", out, re.M))
    if 0 in disk and 1 in disk:
        r["disk_reads"] = disk[1][0] - disk[0][0]
        r["disk_writes"] = disk[1][1] - disk[0][1]
    body = out.split("\n@samples\n", 1)
    if len(body) < 2:
        raise ParseError("no samples (the script did not reach its end)")
    samples_text, _, rest = body[1].partition("\n@toucher\n")
    samples = [sample_values(l[1:], names) for l in samples_text.splitlines() if l.startswith("@")]
    r["samples"] = samples
    # The sampler's, and the two taken just before sort and after the last sleep.
    since = [s["Cached"] for t, s in samples if t >= t0] + [ba["before"]["Cached"], ba["after"]["Cached"]]
    if since:
        r["cache_min_kb"], r["cache_max_kb"] = min(since), max(since)
    rounds = [tuple(map(int, m.groups())) for m in TOUCH.finditer(rest.partition("\n@end")[0])]
    r["rounds_all"] = rounds
    if not toucher:
        return r
    during = [x for x in rounds if x[0] >= 2 and x[3] < t1 and x[3] + x[1] >= t0]
    after = [x for x in rounds if x[3] >= t1][:1]
    counted = during + after
    if not counted:
        raise ParseError("no round of the toucher during or after sort")
    ms = [x[1] for x in counted]
    r.update(rounds=len(counted), resp_min_ms=min(ms), resp_max_ms=max(ms),
             resp_avg_ms=round(statistics.mean(ms), 1), toucher_pageins=sum(x[2] for x in counted))
    return r


def ours_free_kb(out, reserve):
    """What our kernel leaves to programs after boot: its free frames and cache blocks (the
    cache gives them up) less the kernel's reserve, in KB, from vmstat's two lines."""
    vals = [int(v) for v in re.findall(r"^\s*(?:mem\.frames\.free|fs\.cache\.blocks)\s+(\d+)\s*$", out, re.M)]
    if len(vals) != 2:
        raise ParseError("vmstat printed no free frames and cache blocks")
    return (vals[0] + vals[1] - reserve) * 4


def kernel_reserve():
    """KERNEL_RESERVE of kernel/negotiate.c: the free frames only the kernel takes."""
    with open(os.path.join(ROOT, "kernel", "negotiate.c")) as f:
        return int(re.search(r"#define\s+KERNEL_RESERVE\s+(\d+)", f.read()).group(1))


def matched_mem(points, target_kb):
    """The least machine size (MB) whose MemAvailable is at least target_kb, by the line through
    two (MB, MemAvailable KB) points."""
    (m1, a1), (m2, a2) = points[:2]
    if m1 == m2 or a2 == a1:
        raise ParseError("two boots of different sizes are needed for the line")
    slope = (a2 - a1) / (m2 - m1)
    need = m1 + (target_kb - a1) / slope
    return max(int(need) + (0 if need == int(need) else 1), 1)


# --- the runs ------------------------------------------------------------------------------------
def ours_after_boot(mem, log):
    """Our kernel's figure at mem MB (KB to programs)."""
    line = "vmstat mem.frames.free fs.cache.blocks"
    rc, out, _, _ = boot_steps([(None, line + "\n")], mem=mem, log=log, timeout=300)
    if rc != 0:
        sys.exit("%s: our kernel failed to boot at %d MB: see %s" % (NAME, mem, os.path.relpath(log)))
    return ours_free_kb(out.split("$ " + line, 1)[-1], kernel_reserve())


def linux_after_boot(mem, img, log):
    rc, out = linuxboot.run("true\n", img, mem, log=log, timeout=300)
    info = linuxboot.boot_meminfo(out)
    if rc != 0 or info is None:
        sys.exit("%s: Linux failed to boot at %d MB: see %s" % (NAME, mem, os.path.relpath(log)))
    return info


def match_memory(ours_mem, linux_mem, probe_disk, logs, progress, mem_row, probes=(20, 28), least=1):
    """(Linux's MB, its /proc/meminfo after boot): linux_mem if given, else the least size, and
    at least least MB, whose MemAvailable is at least what our kernel leaves to programs at
    ours_mem MB (the module's docstring), found by booting ours_mem + each of probes. mem_row
    gets both figures, for linux-mem.csv."""
    if linux_mem is None:
        ours = ours_after_boot(ours_mem, os.path.join(logs, "ours-%d.log" % ours_mem))
        progress("our kernel at %d MB leaves %d KB to programs" % (ours_mem, ours))
        points = []
        for m in (max(ours_mem + probes[0], least), max(ours_mem + probes[1], least + 8)):
            info = linux_after_boot(m, probe_disk, os.path.join(logs, "linux-%d.log" % m))
            points.append((m, info["MemAvailable"]))
            progress("Linux at %d MB: MemAvailable %d KB, MemFree %d KB" % (m, info["MemAvailable"], info["MemFree"]))
        linux_mem = max(matched_mem(points, ours), least)
        mem_row.update(ours_mem_mb=ours_mem, ours_free_kb=ours)
    info = linux_after_boot(linux_mem, probe_disk, os.path.join(logs, "linux-%d.log" % linux_mem))
    # MemAvailable grows a little slower than the machine (Linux's watermarks and tables grow
    # with it): a size the line chose may fall short, and the next one up is tried.
    while "ours_free_kb" in mem_row and info["MemAvailable"] < mem_row["ours_free_kb"]:
        progress("Linux at %d MB: MemAvailable %d KB, short of %d KB" % (linux_mem, info["MemAvailable"],
                                                                        mem_row["ours_free_kb"]))
        linux_mem += 1
        info = linux_after_boot(linux_mem, probe_disk, os.path.join(logs, "linux-%d.log" % linux_mem))
    progress("Linux at %d MB: MemAvailable %d KB, MemFree %d KB%s" % (
        linux_mem, info["MemAvailable"], info["MemFree"],
        "" if "ours_free_kb" not in mem_row else " (ours: %d KB)" % mem_row["ours_free_kb"]))
    mem_row.update(linux_mem_mb=linux_mem, linux_available_kb=info["MemAvailable"],
                   linux_free_kb=info["MemFree"], linux_total_kb=info["MemTotal"])
    return linux_mem, info


def prepare(cfg, preset, logs):
    """build/bench/linux-ifs-PRESET.img: a fresh Linux disk with /in made and synced at full speed."""
    base = linuxboot.disk(bench_path("linux-disk.img"))
    img = bench_path("linux-ifs-%s.img" % preset)
    log = os.path.join(logs, "%s-prepare.log" % preset)
    rc, out = linuxboot.run("mklines /in %s && sync && ls -l /in\n" % cfg["sort_input"], base, 128, log=log,
                            keep=img, timeout=900)
    if rc != 0:
        sys.exit("%s: could not make sort's input: see %s" % (NAME, os.path.relpath(log)))
    return img


def one_run(cfg, img, interval, log):
    text = script(cfg["toucher_mb"], interval, "/in", cfg["sort_kb"])
    rc, out = linuxboot.run(text, img, cfg["linux_mem"], log=log, timeout=3600, icount=cfg["icount"],
                            align=cfg["icount"] is not None, throttle_bps=cfg["throttle_bps"],
                            throttle_iops=cfg["throttle_iops"])
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, os.path.relpath(log)))
    try:
        return parse_run(out, interval is not None)
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, os.path.relpath(log)))


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path, columns, rows, preset):
    keep = [r for r in read_rows(path) if r.get("preset") != preset]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(keep)
        for r in rows:
            w.writerow({k: r.get(k, "") for k in columns})


def series_rows(results, preset):
    out = []
    for r in results:
        base = dict(preset=preset, interval_s=r["interval_s"], penalty_s="", mode="", run=r["run"])
        first = next((s for t, s in r["samples"] if t >= r["t0"]), None)
        for t, s in r["samples"]:
            ts = "%.2f" % ((t - r["t0"]) / 1000)
            out.append(dict(base, what="cache_kb", t_s=ts, value=s["Cached"], pageins=""))
            out.append(dict(base, what="free_kb", t_s=ts, value=s["MemFree"], pageins=""))
            if first:
                out.append(dict(base, what="pswpin", t_s=ts, value=s["pswpin"] - first["pswpin"], pageins=""))
                out.append(dict(base, what="pswpout", t_s=ts, value=s["pswpout"] - first["pswpout"], pageins=""))
        out.append(dict(base, what="sort_end", t_s="%.2f" % ((r["t1"] - r["t0"]) / 1000), value="", pageins=""))
        for n, ms, ins, start in r["rounds_all"]:
            if n >= 2:
                out.append(dict(base, what="touch_ms", t_s="%.2f" % ((start - r["t0"]) / 1000), value=ms, pageins=ins))
    return out


def table_text(rows, preset):
    mine = [r for r in rows if r["preset"] == preset]
    alone = [int(r["sort_ms"]) for r in mine if r["kind"] == "standalone"]
    base = statistics.median(alone) if alone else None
    lines = ["Linux, preset %s (sort alone %s)" % (preset, "%.1f s" % (base / 1000) if base else "not run"),
             "%4s %4s %21s %16s %7s %7s %8s %11s" % ("S", "run", "response min/max/avg", "sort s (deg)", "swapin",
                                                      "swapout", "majflt", "cache KB")]
    for r in sorted(mine, key=lambda r: (r["kind"] != "standalone", float(r["interval_s"] or 0), int(r["run"]))):
        s = float(r["sort_ms"]) / 1000
        deg = "%.0f%%" % ((float(r["sort_ms"]) / base - 1) * 100) if base and r["kind"] == "ifs" else "-"
        resp = ("%6.2f %6.2f %6.2f" % tuple(float(r[k]) / 1000 for k in ("resp_min_ms", "resp_max_ms", "resp_avg_ms"))
                if r["kind"] == "ifs" else "%20s" % "sort alone")
        lines.append("%4s %4s %21s %8.1f (%5s) %7s %7s %8s %5s-%-5s" % (
            r["interval_s"] or "-", r["run"], resp, s, deg, r["pageins"], r["pageouts"], r["pageins_all"],
            r["cache_min_kb"], r["cache_max_kb"]))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="matched")
    ap.add_argument("--intervals", help="the toucher's sleep intervals, seconds")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("-j", type=int, default=1, dest="jobs", help="QEMUs at once (1)")
    ap.add_argument("--ours-mem", type=int, help="MB of our kernel's machine whose free memory Linux gets")
    ap.add_argument("--linux-mem", type=int, help="MB of Linux's machine (no search)")
    ap.add_argument("--toucher-mb", type=float)
    ap.add_argument("--sort-input", help="the size of sort's input (mklines: 8M, 256K)")
    ap.add_argument("--sort-kb", type=int, help="sort's -m budget")
    ap.add_argument("--throttle-bps", type=int)
    ap.add_argument("--throttle-iops", type=int)
    ap.add_argument("--icount", help="-icount shift, or none (full speed)")
    ap.add_argument("--no-standalone", action="store_true")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args(argv)
    cfg = dict(PRESETS[a.preset])
    for k in ("ours_mem", "linux_mem", "toucher_mb", "sort_input", "sort_kb", "throttle_bps", "throttle_iops",
              "intervals"):
        if getattr(a, k) is not None:
            cfg[k] = getattr(a, k)
    if a.icount is not None:
        cfg["icount"] = None if a.icount == "none" else a.icount
    try:
        intervals = [float(x) if "." in x else int(x) for x in str(cfg["intervals"]).split(",") if x]
    except ValueError:
        sys.exit("%s: --intervals takes seconds separated by commas" % NAME)
    logs = bench_path("linux-logs")
    os.makedirs(logs, exist_ok=True)
    t_start = time.monotonic()

    def progress(text):
        print("%s: %s (%.0f s so far)" % (NAME, text, time.monotonic() - t_start), flush=True)

    try:
        linuxboot.ready()
        probe_disk = linuxboot.disk(bench_path("linux-disk.img"))
    except Exception as e:
        sys.exit("%s: %s" % (NAME, e))
    mem_row = dict(preset=a.preset)
    cfg["linux_mem"], info = match_memory(cfg["ours_mem"], cfg["linux_mem"], probe_disk, logs, progress, mem_row)
    write_rows(bench_path("linux-mem.csv"), ["preset", "ours_mem_mb", "ours_free_kb", "linux_mem_mb",
                                             "linux_available_kb", "linux_free_kb", "linux_total_kb"], [mem_row], a.preset)

    img = prepare(cfg, a.preset, logs)
    progress("sort's input (%s) made on the disk" % cfg["sort_input"])
    jobs = ([(None, k) for k in range(1, a.runs + 1)] if not a.no_standalone else [])
    jobs += [(s, k) for s in intervals for k in range(1, a.runs + 1)]
    print("%s: preset %s: Linux at %d MB, toucher %g MB, sort of %s with -m %d, disk %s B/s and %s requests/s, "
          "CPU %s; %d boots, %d at once" % (NAME, a.preset, cfg["linux_mem"], cfg["toucher_mb"], cfg["sort_input"],
          cfg["sort_kb"], cfg["throttle_bps"] or "any", cfg["throttle_iops"] or "any",
          "full speed" if cfg["icount"] is None else "-icount shift=%s,align=on" % cfg["icount"], len(jobs), a.jobs),
          flush=True)
    done = [0]

    def job(j):
        s, k = j
        tag = "%s-%s-run%d" % (a.preset, "alone" if s is None else "s%g" % s, k)
        load = "%.1f" % os.getloadavg()[0]
        r = one_run(cfg, img, s, os.path.join(logs, tag + ".log"))
        r.update(preset=a.preset, kind="standalone" if s is None else "ifs", interval_s="" if s is None else s,
                 penalty_s="", mode="", run=k, policy="linux", mem_mb=cfg["linux_mem"],
                 toucher_kb="" if s is None else int(cfg["toucher_mb"] * 1024), sort_input=cfg["sort_input"],
                 sort_kb=cfg["sort_kb"], throttle_bps=cfg["throttle_bps"] or "", throttle_iops=cfg["throttle_iops"] or "",
                 icount_shift="" if cfg["icount"] is None else cfg["icount"], host_load=load)
        r.update(run_identity(a.preset))
        done[0] += 1
        tail = "" if s is None else ", toucher %d page-ins, touches %d-%d ms" % (
            r["toucher_pageins"], r["resp_min_ms"], r["resp_max_ms"])
        progress("[%d/%d] %s run %d: sort %.1f s (%d runs, %d passes), %d swap-ins, %d swap-outs, cache %s-%s KB%s"
                 % (done[0], len(jobs), "sort alone" if s is None else "S=%g" % s, k, r["sort_ms"] / 1000,
                    r["sort_runs"], r["sort_passes"], r["pageins"], r["pageouts"], r.get("cache_min_kb", "?"),
                    r.get("cache_max_kb", "?"), tail))
        return r

    results, failures = run_all(NAME, job, jobs, a.jobs, ParseError)
    write_rows(bench_path("linux-ifs.csv"), COLUMNS, results, a.preset)
    write_rows(bench_path("linux-ifs-series.csv"), SERIES, series_rows(results, a.preset), a.preset)
    print()
    print(table_text(read_rows(bench_path("linux-ifs.csv")), a.preset))
    written = ["build/bench/linux-ifs.csv", "build/bench/linux-ifs-series.csv", "build/bench/linux-mem.csv"]
    if not a.no_figures:
        import bench_figures
        png = bench_path("linux-ifs-%s.png" % a.preset)
        bench_figures.linux_ifs(bench_path("linux-ifs.csv"), bench_path("linux-ifs-series.csv"), a.preset, png)
        written.append(os.path.relpath(png))
    print("written: " + ", ".join(written))
    if failures:
        sys.exit("%s: %d runs failed (above); the others are written" % (NAME, len(failures)))


if __name__ == "__main__":
    main()
