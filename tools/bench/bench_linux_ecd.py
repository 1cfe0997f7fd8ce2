#!/usr/bin/env python3
"""make bench-linux-ecd: the edit-compile-debug benchmark (tools/bench/bench_ecd.py) run under
Linux 6.1 in the same QEMU (tools/linux/), so that the ECD figures and table get a Linux line.

WHAT STANDS FOR WHAT. The work is bench_ecd's: the same phase program built for Linux
(build/linux/bin/phase), the same commands (the environment `phase env` in the background,
then edit, compile, link, debug, LOOPS times, at the same -x scale), on inputs made by `phase
init` and synced beforehand, at bench_ecd's CPU speed and disk throttle (-icount shift=8 with
align, 1 MB/s and 50 requests a second). Linux keeps its files on ext2 and its swap on one
disk (tools/linux/linuxdisk.py), as ours keeps both on one disk.

MATCHED MEMORY. Sprite's P MB is a guest of P + 2 MB of ours; Linux gets the least machine whose
MemAvailable after boot is at least what our kernel leaves to programs at P + 2 MB
(bench_linux.match_memory, the same matching as the IFS mix's), and no less than the least
machine this Linux boots on (LINUX_LEAST_MB, more than matches Sprite's 10 MB). The environment then takes
Table 1's 5 MB and MemAvailable's surplus over Sprite's P - 1.3 MB (bench_ecd.env_for), as
ours takes its own surplus: the phases and Linux's page cache share what Sprite's shared.

ONE RUN is one boot on a private copy of the prepared disk: the sampler (user/sampler.c built
for Linux: one read() of /proc/meminfo and one write() a second) of Cached into a tmpfs, the
environment (once it says it is ready), a time-stamped sample of /proc/vmstat, /proc/diskstats
and Cached (one run of the same sampler), the phases, another sample. Elapsed time is the
guest's between the two samples; each phase's is its own line. No shell loop samples while the
phases run (there was one, of busybox `read`s and a fork a second, on Linux's side alone: see
bench_linux.py --sampler-cost for what such sampling costs).

WHAT A ROW REPORTS, in ecd.csv's columns (bench_ecd.COLUMNS) where they apply, config "linux":
file KB read and written are pgpgin and pgpgout (every block read and written, in KB) less the
swap's share (pswpin, pswpout, pages of 4 KB); VM KB are the swap's. Ours counts code page-ins
as VM; Linux reads code through its page cache, so there it is file traffic. faults are
pgfault (all faults, as vm.faults); pageins and pageouts the swap's pages; disk busy, reads and
writes from /proc/diskstats (io_ticks: the time the disk had a request in flight, as
disk.busy_ms; it stays 0 on this virtio disk, so the table and figures show no busy for Linux). The cache's extremes are Cached's from the first sample on (the sampler's and
the two samples'). The negotiation's counters have no counterpart and stay empty. Added at
the end: majfaults, pgpgin_kb, pgpgout_kb, disk_read_kb, disk_write_kb, ours_free_kb,
free_after_boot_kb, kernel, hz, cmdline, lru_gen (as bench_linux.py's) and sampler_cpu_ms (the
sampler's own CPU time over the whole run, from /proc/PID/stat).

PRESETS.
  matched   Sprite's 10 and 16 MB, bench_ecd's CPU and disk, two loops at 100 %. Linux's boot
            is about 5 billion instructions (79 s of guest time at bench_linux's 62.5 MIPS), so
            at 3.9 MIPS each boot spends some 21 minutes of wall clock before the work begins:
            25 minutes at -j 2 for both sizes on an idle host; on a loaded one QEMU falls
            behind the clock (align=on) and Linux's boot, with timeouts of its own, takes an hour.
  matched-fast  the same memory, disk and work at full speed: the file and swap traffic
            compare, the times do not (ours are at 3.9 MIPS).
  short     for the test: full speed, no throttle, a 64 MB machine (no search), 10 MB, one loop
            at 5 %.

    bench_linux_ecd.py [--preset matched|matched-fast|short] [--mems 10,16] [--runs 1] [-j 1] [--loops N]
                       [--scale PERCENT] [--linux-mem MB] [--no-figures]

Writes build/bench/linux-ecd.csv (a preset's lines replace its earlier ones), each run's
console under build/bench/linux-logs, and, where build/bench/ecd.csv has rows, the ECD figures
with the Linux line (ecd_figures.py). The parsing is pure; tests/host/test_bench_linux_ecd.py
holds it against a recorded console."""
import argparse, os, re, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "linux"))
from benchlib import Journal, bench_path, run_all, run_identity   # noqa: E402
import bench_ecd, bench_linux, ecd_paper, linuxboot   # noqa: E402
from bench_linux import ParseError, read_rows, write_rows   # noqa: E402

NAME = "bench-linux-ecd"
PRESETS = {
    "matched": dict(mems=[10, 16], linux_mem=None, loops=bench_ecd.COMMON["loops"], scale=100,
                    throttle_bps=bench_ecd.COMMON["throttle_bps"], throttle_iops=bench_ecd.COMMON["throttle_iops"],
                    icount=bench_ecd.COMMON["icount"]),
    "matched-fast": dict(mems=[10, 16], linux_mem=None, loops=bench_ecd.COMMON["loops"], scale=100,
                         throttle_bps=bench_ecd.COMMON["throttle_bps"],
                         throttle_iops=bench_ecd.COMMON["throttle_iops"], icount=None),
    "short": dict(mems=[10], linux_mem=64, loops=1, scale=5, throttle_bps=None, throttle_iops=None, icount=None),
}
VMSTAT = ["pgpgin", "pgpgout", "pswpin", "pswpout", "pgmajfault", "pgfault"]
DISK = ["reads", "writes", "read_sectors", "write_sectors", "io_ms"]
STAMPED = VMSTAT + DISK + ["Cached"]
# The least machine this Linux boots on (bench_linux.py's). At Sprite's 10 MB ours leaves 9.3
# MB, Linux at 36 MB 12.2 MB: the environment takes the surplus.
LINUX_LEAST_MB = bench_linux.LINUX_LEAST_MB
COLUMNS = bench_ecd.COLUMNS + ["majfaults", "pgpgin_kb", "pgpgout_kb", "disk_read_kb", "disk_write_kb",
                               "ours_free_kb", "free_after_boot_kb", "kernel"] + bench_linux.GUEST + ["sampler_cpu_ms"]


# --- the guest's script -------------------------------------------------------------------------
# What the compiled sampler (user/sampler.c) reads at each stamp: VMSTAT, then vda's reads,
# writes, sectors read and written and io_ticks (the 1st, 5th, 3rd, 7th and 10th word after
# vda's name in /proc/diskstats), then Cached; and every second, Cached alone.
DISK_WORDS = ["vda@1", "vda@5", "vda@3", "vda@7", "vda@10"]
STAMP_SPEC = "/proc/vmstat %s /proc/diskstats %s /proc/meminfo Cached" % (" ".join(VMSTAT), " ".join(DISK_WORDS))


def script(scale, env_kb, env_s, loops):
    """The commands of one run (busybox sh). Lines it prints for the host begin with '@'.
    Nothing of the shell's runs while the phases are timed: the sampler of Cached in the
    background is the compiled one, and each stamp is one run of it (its header and one
    time-stamped sample)."""
    x = "-x %d " % scale if scale != 100 else ""
    lines = [
        "mount -t tmpfs -o size=2m tmpfs /mnt",
        "echo \"@head %s\"" % " ".join(STAMPED),
        "/usr/bin/sampler -i 1000 -n 0 /proc/meminfo Cached > /mnt/cached &",     # $!: the sampler (bench_linux)
        "sampler=$!",
        "phase %s-k %d -s %d env > /mnt/env &" % (x, env_kb, env_s),
        "env=$!",
        "until grep -q ' KB ready' /mnt/env; do kill -0 $env 2>/dev/null || { cat /mnt/env; echo '@noenv'; "
        "exit 1; }; sleep 0.2; done",
        "cat /mnt/env",
        "st=0",
        "echo '@stamp 0'; sampler %s" % STAMP_SPEC,
    ]
    lines += ["phase %s-d /ecd %s || st=1" % (x, p) for p in bench_ecd.PHASES * loops]
    lines += [
        "echo '@stamp 1'; sampler %s" % STAMP_SPEC,
        "echo \"@cpu $(cat /proc/$sampler/stat)\"",         # the sampler's CPU time (bench_linux)
        "kill $env $sampler",
        "echo '@cached-samples'; cat /mnt/cached",
        "echo '@end'",
        "exit $st",
    ]
    return "\n".join(lines) + "\n"


def stamps(out, names):
    """{n: (uptime ms, {name: value})} of the stamps: user/sampler.c's after "@stamp N" (its
    names, in STAMPED's order, as VMSTAT, DISK and Cached), or in a run recorded before it, the
    shell's "@stamp N UPTIME VALUE..." in the names of "@head"."""
    st = {}
    for n, spec, text in re.findall(r"^@stamp (\d)\n@sampler (.+)\n@(.*)$", out, re.M):
        if spec.split() != VMSTAT + DISK_WORDS + ["Cached"]:
            raise ParseError("the stamp's sampler read %s, not %s" % (spec, STAMP_SPEC))
        st[int(n)] = bench_linux.sample_values(text, names)
    for n, text in re.findall(r"^@stamp (\d) (.*)$", out, re.M):
        st[int(n)] = bench_linux.sample_values(text, names)
    return st


# --- parsing: console text in, numbers out ------------------------------------------------------
def parse_run(out, loops):
    """The numbers of one run from its console text (see the module's docstring)."""
    meminfo = linuxboot.boot_meminfo(out)
    if meminfo is None:
        raise ParseError("no /proc/meminfo after boot")
    head = re.search(r"^@head (.+)$", out, re.M)
    if not head:
        raise ParseError("the script did not start")
    if re.search(r"^@noenv$", out, re.M):
        raise ParseError("the environment (phase env) ended before it was ready")
    names = head.group(1).split()
    if names != STAMPED:
        raise ParseError("the samples' header names %s, not %s" % (names, STAMPED))
    st = stamps(out, names)
    if 0 not in st or 1 not in st:
        raise ParseError("a sample before or after the phases is missing (did they run to their end?)")
    (t0, c0), (t1, c1) = st[0], st[1]
    d = {k: c1[k] - c0[k] for k in names}
    r = {"elapsed_ms": t1 - t0, "vm_read_kb": 4 * d["pswpin"], "vm_write_kb": 4 * d["pswpout"],
         "fs_read_kb": d["pgpgin"] - 4 * d["pswpin"], "fs_write_kb": d["pgpgout"] - 4 * d["pswpout"],
         "faults": d["pgfault"], "pageins": d["pswpin"], "pageins_backing": d["pswpin"], "pageouts": d["pswpout"],
         "majfaults": d["pgmajfault"], "pgpgin_kb": d["pgpgin"], "pgpgout_kb": d["pgpgout"],
         "disk_reads": d["reads"], "disk_writes": d["writes"], "disk_read_kb": d["read_sectors"] // 2,
         "disk_write_kb": d["write_sectors"] // 2, "disk_busy_ms": d["io_ms"],
         "free_after_boot_kb": meminfo.get("MemFree"), "usable_kb": meminfo.get("MemAvailable")}
    k = re.search(r"^linux-init: Linux (\S+) up", out, re.M)
    r["kernel"] = k.group(1) if k else ""
    r.update(linuxboot.boot_facts(out))
    r["sampler_cpu_ms"] = bench_linux.sampler_cpu_ms(out)
    lines = [m for m in bench_ecd.PHASE_LINE.finditer(out)]
    want = bench_ecd.PHASES * loops
    got = [m.group(1) for m in lines]
    if got != want:
        raise ParseError("the phases that finished were %s, not %s" % (" ".join(got) or "none", " ".join(want)))
    phases = [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in lines]
    for p in bench_ecd.PHASES:
        r["ms_" + p] = sum(x[1] for x in phases if x[0] == p)
    r["phase_read_kb"] = sum(x[2] for x in phases)
    r["phase_write_kb"] = sum(x[3] for x in phases)
    r["phases"] = phases
    tail = out.split("\n@cached-samples\n", 1)
    if len(tail) < 2 or "\n@end" not in tail[1]:
        raise ParseError("no samples of Cached (the script did not reach its end)")
    block = tail[1].split("\n@end")[0]
    if "@sampler " in block:
        cached = [(t, v["Cached"]) for t, v in bench_linux.sampler_output(block)[1]]
    else:                                        # the shell's "@cached UPTIME KB", before user/sampler.c
        cached = [(int(t), int(v)) for t, v in re.findall(r"^@cached (\d+) (\d+)$", block, re.M)]
    since = [v for t, v in cached if t0 <= t <= t1] + [c0["Cached"], c1["Cached"]]
    r["cache_min_kb"], r["cache_max_kb"] = min(since), max(since)
    return r


# --- the runs ------------------------------------------------------------------------------------
def prepare(cfg, preset, logs):
    """build/bench/linux-ecd-PRESET.img: a fresh Linux disk with the phases' inputs made and synced."""
    base = linuxboot.disk(bench_path("linux-disk.img"))
    img = bench_path("linux-ecd-%s.img" % preset)
    log = os.path.join(logs, "ecd-%s-prepare.log" % preset)
    rc, out = linuxboot.run("mkdir /ecd && phase -x %d -d /ecd init && sync && ls -l /ecd\n" % cfg["scale"], base,
                            128, log=log, keep=img, timeout=900)
    if rc != 0 or len(re.findall(r"^phase init: ", out, re.M)) != 3:
        sys.exit("%s: could not make the phases' inputs: see %s" % (NAME, os.path.relpath(log)))
    return img


def one_run(cfg, img, linux_mem, env_kb, log):
    text = script(cfg["scale"], env_kb, bench_ecd.COMMON["env_s"], cfg["loops"])
    rc, out = linuxboot.run(text, img, linux_mem, log=log, timeout=3600, icount=cfg["icount"],
                            align=cfg["icount"] is not None, throttle_bps=cfg["throttle_bps"],
                            throttle_iops=cfg["throttle_iops"])
    try:
        r = parse_run(out, cfg["loops"])
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, os.path.relpath(log)))
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, os.path.relpath(log)))
    return r


def table_text(rows, ours_rows):
    """Linux's runs beside ours of the same memory (ecd.csv, averaged by config)."""
    agg = ecd_paper.aggregate(ours_rows) if ours_rows else {}
    lines = ["ECD benchmark under Linux (and ours at the same Sprite MB, from ecd.csv)",
             "%-4s %-22s %8s %6s %7s %7s %8s %11s" % ("MB", "config", "time s", "busy", "FS MB", "VM MB", "faults",
                                                      "cache KB")]
    for m in sorted({int(r["mem_paper_mb"]) for r in rows}):
        for r in sorted((r for r in rows if int(r["mem_paper_mb"]) == m), key=lambda r: int(r["run"])):
            e = float(r["elapsed_ms"])
            lines.append("%-4s %-22s %8.1f %5.0f%% %7.1f %7.1f %8s %5s-%-5s" % (
                m, "linux (%s MB) run %s" % (r["mem_mb"], r["run"]), e / 1000,
                100 * float(r["disk_busy_ms"]) / max(1, e), (float(r["fs_read_kb"]) + float(r["fs_write_kb"])) / 1024,
                (float(r["vm_read_kb"]) + float(r["vm_write_kb"])) / 1024, r["faults"], r["cache_min_kb"],
                r["cache_max_kb"]))
        for (mm, c), x in sorted(agg.items(), key=lambda kv: bench_ecd._order(kv[0][1])):
            if mm == m and c != "linux":
                lines.append("%-4s %-22s %8.1f %5.0f%% %7.1f %7.1f %8.0f %5.0f-%-5.0f" % (
                    m, "ours, " + ecd_paper.label(c), x["elapsed_ms"] / 1000, x["util"], x["fs_mb"], x["vm_mb"],
                    x["faults"], x["cache_min_kb"], x["cache_max_kb"]))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="matched")
    ap.add_argument("--mems", help="Sprite's memory sizes to stand for (MB, of 10, 11, 12, 14, 16)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("-j", type=int, default=1, dest="jobs", help="QEMUs at once (1)")
    ap.add_argument("--loops", type=int)
    ap.add_argument("--scale", type=int, help="phase -x: percent of every size and count")
    ap.add_argument("--linux-mem", type=int, help="MB of Linux's machine for every size (no search)")
    ap.add_argument("--resume", action="store_true", help="keep the runs the journal has of this preset and code "
                    "(build/bench/journal-linux-ecd.jsonl: benchlib.Journal) and run only the others")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args(argv)
    cfg = dict(PRESETS[a.preset])
    for k in ("loops", "scale", "linux_mem"):
        if getattr(a, k) is not None:
            cfg[k] = getattr(a, k)
    try:
        if a.mems:
            cfg["mems"] = bench_ecd.numbers_list(a.mems, int)
    except ValueError as e:
        sys.exit("%s: %s" % (NAME, e))
    bad = [m for m in cfg["mems"] if m not in ecd_paper.MEMS]
    if bad or a.runs < 1 or cfg["loops"] < 1 or not 1 <= cfg["scale"] <= 1000:
        sys.exit("%s: memory sizes are Sprite's (%s), not %s; --runs and --loops at least 1; --scale 1-1000"
                 % (NAME, ", ".join(map(str, ecd_paper.MEMS)), bad or "-"))
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
    journal = Journal("linux-ecd", dict(cfg, preset=a.preset), a.resume)
    machines = {}
    for m in cfg["mems"]:
        # A machine matched before (the journal, --resume) is not searched for again: each probe
        # is a boot of Linux.
        machines[m] = journal.result(("machine", m))
        if machines[m] is None:
            mem_row = {}
            mb, info = bench_linux.match_memory(m + 2, cfg["linux_mem"], probe_disk, logs, progress, mem_row,
                                                least=LINUX_LEAST_MB, by="available")
            try:
                env = bench_ecd.env_for(info["MemAvailable"], m)
            except ParseError as e:
                sys.exit("%s: %s" % (NAME, e))
            machines[m] = (mb, env, mem_row.get("ours_free_kb", ""))
            journal.record(("machine", m), machines[m])
        mb, env, _ = machines[m]
        progress("Sprite's %d MB: Linux at %d MB, the environment %d KB" % (m, mb, env))
    img = prepare(cfg, a.preset, logs)
    progress("the phases' inputs made on the disk at %d %%" % cfg["scale"])
    jobs = [(m, k) for m in cfg["mems"] for k in range(1, a.runs + 1)]
    print("%s: preset %s: %d loops at %d %%, disk %s B/s and %s requests/s, CPU %s; %d boots, %d at once" % (
        NAME, a.preset, cfg["loops"], cfg["scale"], cfg["throttle_bps"] or "any", cfg["throttle_iops"] or "any",
        "full speed" if cfg["icount"] is None else "-icount shift=%s,align=on" % cfg["icount"], len(jobs), a.jobs),
        flush=True)
    done = [0]

    def job(j):
        m, k = j
        mb, env, ours = machines[m]
        load, t = bench_ecd.host_load(), time.monotonic()
        r = one_run(cfg, img, mb, env, os.path.join(logs, "ecd-%s-%dM-run%d.log" % (a.preset, m, k)))
        r.update(preset=a.preset, mem_paper_mb=m, mem_mb=mb, cache="linux", run=k, loops=cfg["loops"],
                 scale=cfg["scale"], env_kb=env, throttle_bps=cfg["throttle_bps"] or "",
                 throttle_iops=cfg["throttle_iops"] or "", icount_shift="" if cfg["icount"] is None else cfg["icount"],
                 ours_free_kb=ours, host_load=load, wall_s=round(time.monotonic() - t, 1),
                 hz=linuxboot.kernel_hz() or "")
        r.update(run_identity(a.preset))
        done[0] += 1
        progress("[%d/%d] Sprite's %d MB (Linux %d MB) run %d: %.1f s (%s), FS %.1f MB, VM %.1f MB, disk busy "
                 "%.0f %%, cache %d-%d KB" % (done[0], len(jobs), m, mb, k, r["elapsed_ms"] / 1000, ", ".join(
                     "%s %.1f" % (p, r["ms_" + p] / 1000) for p in bench_ecd.PHASES),
                     (r["fs_read_kb"] + r["fs_write_kb"]) / 1024, (r["vm_read_kb"] + r["vm_write_kb"]) / 1024,
                     100 * r["disk_busy_ms"] / max(1, r["elapsed_ms"]), r["cache_min_kb"], r["cache_max_kb"]))
        return r

    results, failures = run_all(NAME, job, jobs, a.jobs, ParseError, journal)
    path = bench_path("linux-ecd.csv")
    write_rows(path, COLUMNS, results, a.preset)
    ours = read_rows(bench_path("ecd.csv"))
    ours_preset = next((p for p in ("full", "short") if any(r["preset"] == p for r in ours)), None)
    print()
    print(table_text([r for r in read_rows(path) if r["preset"] == a.preset],
                     [r for r in ours if r["preset"] == ours_preset]))
    written = [os.path.relpath(path)]
    if not a.no_figures and ours_preset:
        import ecd_figures
        written += [os.path.relpath(x) for x in ecd_figures.draw(bench_path("ecd.csv"), ours_preset,
                                                                 bench_path("ecd"), linux_csv=path)]
    print("written: " + ", ".join(written))
    if failures:
        sys.exit("%s: %d runs failed (above); the others are written" % (NAME, len(failures)))


if __name__ == "__main__":
    main()
