#!/usr/bin/env python3
"""make bench-ecd: the edit-compile-debug benchmark of WRL 90/4 (section 3, Table 1, Figures 1-6,
Table 2; the thesis' chapter 6 and Appendix C).

Sprite ran an editor, the compiler, the linker and the kernel debugger one after another, twice,
under X11, on client memories of 10 to 16 MB, with fixed file caches of 0.5 MB and up and with
its variable cache (penalties 0 and 60-960 s). The phases shift between VM-intensive (edit,
debug) and file-intensive (compile, link) work, so memory moves between the pools at every
phase: the paper's finding is that the smallest fixed cache is best, and that the variable
cache matches it (fewer file bytes, more VM bytes), whatever the penalty.

WHAT STANDS FOR WHAT. user/phase.c stands for each phase (Table 1's VM image, every page of it
written, gone over twice by a working set with locality, calibrated so that two loops at 10 MB
with no cache page Appendix C's 59.9 MB; its file I/O in 4 KB calls, calibrated so that two
loops read 33.9 MB and write 9.8 MB as Appendix C's no-cache rows: see the essay there) and for
the environment (`phase env`: the X server and its windows, 5 MB, a quarter touched every 5 s).
Sprite's diskless client, its file server and its network are this guest, its disk and QEMU's
throttle: file bytes are the file system's disk blocks (fs.disk.reads/writes: data and
metadata), VM bytes its page-ins and page-outs (vm.pageins/pageouts: swap and code; Sprite's
are its page faults and page-outs at 8 KB, ecd_paper.paper_vm_kb), and the
server's CPU utilisation (Figures 1, 3, 5) is the disk's busy time over the elapsed time
(disk.busy_ms). The CPU is -icount shift=8 with align (3.9 MIPS of guest time, held to the
host's clock and kept by the TSC, kernel.clock=tsc), the disk 1 MB/s and 50 requests a second:
the IFS `paper` preset's machine before that preset was calibrated on sort's degradation (a
faster CPU and a slower disk there). ECD's calibration (its VM bytes against Appendix C) was
made on this machine and has not been run on that one.

MEMORY SIZES. Sprite's kernel took 1.3 MB, so a client of P MB left P - 1.3 MB to processes and
the cache. Here the kernel (image, tables, the cache's headers) and its reserve of 64 frames
take 2.7-2.9 MB, and QEMU takes whole MB: a run standing for P MB boots P + 2 MB (the least whole
size that leaves P - 1.3 MB or more) and, measuring in the guest what the pools may use
(mem.frames.free + fs.cache.blocks + mem.frames.vm less the reserve), gives the 0.4-0.6 MB
surplus to the environment, which then holds 5 MB and the surplus: what the phases and the
cache share is Sprite's to the 4 KB.

CACHES. Fixed: fs.cache_fixed_kb of 0.5, 1, 2, 3 ... 7 MB where Sprite ran them (up to P - 9
MB: beyond, Sprite thrashed, and so would this), and "no cache", the least fixed cache (64 KB),
standing for Appendix C's nocc rows (the calibration's check). Variable: fs.cache_min_kb=256
(Sprite's floor, Table 2's 0.25 MB) and vm.penalty of 0 and 60, 120, 240, 480, 960 s.

ONE RUN is one fresh boot on a private copy of build/bench/ecd.img (made once, by `phase init`
in a full-speed guest: the inputs on disk, not in the cache): the settings, the environment in
the background (once it says it is ready), the negotiation's counters reset, a time-stamped
sample of every counter, the phases (edit, compile, link, debug, LOOPS times), another sample,
the environment killed. Elapsed time is the guest's between the two samples; each phase's is
its own ("phase NAME: N ms"). The parsing is pure and tests/host/test_bench_ecd.py holds it
against a recorded console.

PRESETS. full (make bench-ecd's default): the five memory sizes, every fixed cache that fits,
no cache, the variable cache with the six penalties: 58 boots of 4-7 minutes of wall clock (one
standing for 10 MB about 6 since the VM's calibration: its debug phases page some 60 MB), about
3 hours at -j 2 (estimated from the 10 MB runs, not measured since). short: 10 and 16 MB, no cache (the
variable cache's control: targets.py), a fixed 0.5 MB (and 2 MB at 16), penalties 0 and 120: 9
points, each --runs boots.

    bench_ecd.py [--preset full|short] [--mems 10,16] [--fixed 0.5,2] [--penalties 0,120]
                 [--adaptive] [--no-nocache] [--runs 3] [-j 2] [--loops 2] [--scale PERCENT] [--no-figures]

Writes build/bench/ecd.csv (one line a run; a preset's lines replace that preset's earlier
ones), each run's console under build/bench/ecd-logs, the figures ecd-fig1.png ... ecd-fig56.png
and ecd-table2.png, and prints Table 2 and the runs beside Sprite's."""
import argparse, csv, os, re, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import RUN_COLUMNS, Journal, boot_steps, bench_path, run_all, run_identity   # noqa: E402
from bench_ifs import split_commands, read_log, ParseError, QEMU_LATE, TYPED, host_load   # noqa: E402
import ecd_paper   # noqa: E402
import targets   # noqa: E402

NAME = "bench-ecd"
PHASES = ["edit", "compile", "link", "debug"]
COMMON = dict(throttle_bps=1 << 20, throttle_iops=50, icount=8, align=True, loops=2, scale=100, env_s=5, clock="tsc")
PRESETS = {
    "full": dict(mems=[10, 11, 12, 14, 16], fixed=[0.5, 1, 2, 3, 4, 5, 6, 7], nocache=True,
                 penalties=[0, 60, 120, 240, 480, 960]),
    "short": dict(mems=[10, 16], fixed=[0.5, 2], nocache=True, penalties=[0, 120]),
}
RESERVE_FRAMES = 64          # the kernel's reserve (neg.kernel_reserve), which no pool may use
ENV_KB = 5120                # Table 1's environment
NOCACHE_KB = 64              # the least cache there is (fs.cache_min_kb's floor)
FREE = "vmstat -n mem.frames.free fs.cache.blocks mem.frames.vm neg.kernel_reserve"
COUNTERS = ["fs.disk.reads", "fs.disk.writes", "vm.pageins", "vm.pageins.backing", "vm.pageouts", "vm.faults",
            "disk.reads", "disk.writes", "disk.busy_ms", "neg.fs_asks_vm", "neg.fs_asks_vm_satisfied",
            "neg.vm_asks_fs", "neg.vm_asks_fs_satisfied", "fs.cache.held_min_kb", "fs.cache.held_max_kb"]
STAMP = "vmstat -i 1 1 " + " ".join(COUNTERS)
COLUMNS = ["preset", "mem_paper_mb", "mem_mb", "cache", "cache_kb", "penalty_s", "run", "loops", "scale", "env_kb",
           "usable_kb", "throttle_bps", "throttle_iops", "icount_shift", "elapsed_ms"] + \
          ["ms_" + p for p in PHASES] + \
          ["fs_read_kb", "fs_write_kb", "vm_read_kb", "vm_write_kb", "faults", "pageins", "pageouts",
           "fs_asks_vm", "fs_asks_vm_satisfied", "vm_asks_fs", "vm_asks_fs_satisfied", "cache_min_kb",
           "cache_max_kb", "disk_busy_ms", "disk_reads", "disk_writes", "pageins_backing", "wall_s", "host_load"] + RUN_COLUMNS


# --- parsing: console text in, numbers out (tests/host/test_bench_ecd.py) ----------------------
ENV_READY = re.compile(r"phase env: (\d+) KB ready\n")
PHASE_LINE = re.compile(r"^phase (\w+): (\d+) ms, read (\d+) KB, wrote (\d+) KB, image (\d+) KB, (\d+) touches$", re.M)


def env_kb(free_text, paper_mb, env=ENV_KB):
    """The environment's KB: Table 1's 5 MB and what this machine has beyond Sprite's P - 1.3 MB,
    from `FREE`'s four values (free frames, cache blocks, VM frames, the reserve)."""
    vals = [int(x) for x in re.findall(r"^\s*(\d+)\s*$", free_text, re.M)]
    if len(vals) != 4:
        raise ParseError("%s printed %r, not 4 values" % (FREE, free_text))
    free, cache, vm, reserve = vals
    usable = (free + cache + vm - reserve) * 4
    return env_for(usable, paper_mb, env), usable


def env_for(usable, paper_mb, env=ENV_KB):
    """The environment's KB when the pools may use usable KB: env and the surplus over Sprite's
    P - 1.3 MB (a clear error where there is less)."""
    surplus = usable - (paper_mb * 1024 - ecd_paper.SPRITE_KERNEL_KB)
    if surplus < 0:
        raise ParseError("%d KB for the pools is less than Sprite's %d MB left (%d KB): boot more memory"
                         % (usable, paper_mb, paper_mb * 1024 - ecd_paper.SPRITE_KERNEL_KB))
    return env + surplus // 4 * 4


def sample(text):
    """{counter: value} and the uptime of one `STAMP` (a header "@ms NAME..." and "@UPTIME VALUE...")."""
    head = re.search(r"^@ms((?: [\w.]+)+)$", text, re.M)
    row = re.search(r"^@(\d+)((?: \d+)+)$", text, re.M)
    if not head or not row:
        raise ParseError("no time-stamped sample in %r" % text[:200])
    names, vals = head.group(1).split(), [int(x) for x in row.group(2).split()]
    if names != COUNTERS or len(vals) != len(names):
        raise ParseError("the sample has %d values of %s, not one of each of %s" % (len(vals), names, COUNTERS))
    return int(row.group(1)), dict(zip(names, vals))


def parse_run(out, typed, loops):
    """The numbers of one run from its console text and the lines typed (the module's docstring)."""
    out = QEMU_LATE.sub("", ENV_READY.sub("", out, count=1))
    cmds = split_commands(out, typed)
    got = cmds.get(STAMP, [])
    if len(got) != 2:
        raise ParseError("%d time-stamped samples, not 2 (before and after)" % len(got))
    (t0, c0), (t1, c1) = sample(got[0]), sample(got[1])
    d = {k: c1[k] - c0[k] for k in COUNTERS}
    r = {"elapsed_ms": t1 - t0, "fs_read_kb": 4 * d["fs.disk.reads"], "fs_write_kb": 4 * d["fs.disk.writes"],
         "vm_read_kb": 4 * d["vm.pageins"], "vm_write_kb": 4 * d["vm.pageouts"], "faults": d["vm.faults"],
         "pageins": d["vm.pageins"], "pageins_backing": d["vm.pageins.backing"], "pageouts": d["vm.pageouts"],
         "disk_busy_ms": d["disk.busy_ms"], "disk_reads": d["disk.reads"], "disk_writes": d["disk.writes"],
         "cache_min_kb": c1["fs.cache.held_min_kb"], "cache_max_kb": c1["fs.cache.held_max_kb"]}
    for k in ("fs_asks_vm", "fs_asks_vm_satisfied", "vm_asks_fs", "vm_asks_fs_satisfied"):
        r[k] = d["neg." + k]
    phases = []
    for p in PHASES * loops:
        line = "phase -d /ecd %s" % p
        text = cmds.get(line, [])
        n = sum(1 for x in phases if x[0] == p)
        if len(text) <= n:
            raise ParseError("%s never ran (%d times of %d)" % (line, n, loops))
        m = PHASE_LINE.search(text[n])
        if not m or m.group(1) != p:
            raise ParseError("%s did not finish: %r" % (line, text[n][:300]))
        phases.append((p, int(m.group(2)), int(m.group(3)), int(m.group(4))))
    for p in PHASES:
        r["ms_" + p] = sum(x[1] for x in phases if x[0] == p)
    r["phase_read_kb"] = sum(x[2] for x in phases)
    r["phase_write_kb"] = sum(x[3] for x in phases)
    r["phases"] = phases
    return r


# --- one run in the guest ---------------------------------------------------------------------
def config_label(cache, kb, penalty):
    if cache == "adaptive":
        return "variable, adaptive"
    if cache == "variable":
        return "variable, penalty %d s" % penalty
    if cache == "nocache":
        return "no cache (%d KB)" % kb
    return "fixed %g MB" % (kb / 1024)


def one_run(cfg, paper_mb, cache, kb, penalty, log):
    """Boots once and returns the parsed run, or raises ParseError naming the log."""
    if cache == "adaptive":
        setup = "sysctl fs.cache_min_kb=%d\nsysctl vm.penalty_mode=adaptive\n" % ecd_paper.SPRITE_MIN_CACHE_KB
    elif cache == "variable":
        setup = "sysctl fs.cache_min_kb=%d\nsysctl vm.penalty=%d\n" % (ecd_paper.SPRITE_MIN_CACHE_KB, penalty)
    else:
        setup = "sysctl fs.cache_fixed_kb=%d\nsysctl vm.penalty=0\n" % kb
    setup += FREE + "\n"
    chosen = {}

    def start_env(out):
        text = split_commands(QEMU_LATE.sub("", out), [FREE]).get(FREE, [""])[0]
        try:
            chosen["env_kb"], chosen["usable_kb"] = env_kb(text, paper_mb)
        except ParseError:
            return "poweroff\n"              # the parse below says why
        return "phase -x %d -k %d -s %d env &\n" % (cfg["scale"], chosen["env_kb"], cfg["env_s"])

    work = "".join("phase -d /ecd %s\n" % p for p in PHASES * cfg["loops"])
    if cfg["scale"] != 100:
        work = work.replace("phase -d", "phase -x %d -d" % cfg["scale"])
    measure = "sysctl neg.reset=1\n%s\n%s%s\n" % (STAMP, work, STAMP)

    def finish(out):
        jobs = re.findall(r"^\[(\d+)\]$", out, re.M)
        return "kill %s\n" % " ".join("-" + j for j in jobs) if jobs else "\n"

    steps = [(None, setup), (re.escape(FREE) + r"\n(\d+\n){4}", start_env), (ENV_READY.pattern, measure),
             (r"(?s)(@\d+(?: \d+)+\n.*){2}\$ ", finish)]
    rc, out, typed, _ = boot_steps(steps, image=cfg["image"], mem=paper_mb + 2, icount=cfg["icount"],
                                   throttle_bps=cfg["throttle_bps"], throttle_iops=cfg["throttle_iops"], timeout=3600,
                                   log=log, align=cfg["align"], pace=cfg["align"], clock=cfg.get("clock"))
    with open(log, "a") as f:
        f.write(TYPED + "\n".join(typed) + "\n")
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, os.path.relpath(log)))
    if "env_kb" not in chosen:
        text = split_commands(out, [FREE]).get(FREE, [""])[0]
        try:
            env_kb(text, paper_mb)
        except ParseError as e:
            raise ParseError("%s: see %s" % (e, os.path.relpath(log)))
    try:
        r = parse_run(out, typed, cfg["loops"])
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, os.path.relpath(log)))
    r.update(chosen)
    return r


def prepare_image(scale, logs):
    """build/bench/ecd.img: the default image with the phases' inputs (/ecd: src, hdr, lib),
    made by `phase init` at full speed and synced, so every run finds them on disk."""
    img = bench_path("ecd.img" if scale == 100 else "ecd-x%d.img" % scale)
    log = os.path.join(logs, "prepare.log")
    rc, out, _, _ = boot_steps([(None, "mkdir /ecd\nphase -x %d -d /ecd init\nsync\nls -l /ecd\n" % scale)], mem=64,
                               log=log, keep=img, timeout=600)
    if rc != 0 or len(re.findall(r"^phase init: ", out, re.M)) != 3:
        sys.exit("%s: could not make the phases' inputs: see %s" % (NAME, os.path.relpath(log)))
    return img


# --- the grid -------------------------------------------------------------------------------------
def grid(mems, fixed, nocache, penalties, adaptive=False):
    """[(paper MB, cache, KB, penalty)]: each memory's fixed caches where Sprite ran them (up to
    P - 9 MB), no cache, the variable cache with each penalty, and (adaptive) the variable cache
    with the bias learned from refaults instead of a penalty (vm.penalty_mode=adaptive)."""
    jobs = []
    for m in mems:
        if nocache:
            jobs.append((m, "nocache", NOCACHE_KB, 0))
        jobs += [(m, "fixed", int(s * 1024), 0) for s in fixed if s <= m - 9]
        jobs += [(m, "variable", 0, p) for p in penalties]
        if adaptive:
            jobs.append((m, "adaptive", 0, 0))
    return jobs


def numbers_list(text, kind=float):
    try:
        return [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError("%r: give numbers separated by commas" % text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="full")
    ap.add_argument("--mems", help="Sprite's memory sizes to stand for (MB, of 10, 11, 12, 14, 16)")
    ap.add_argument("--fixed", help="fixed cache sizes (MB), each run where it is at most MEM - 9")
    ap.add_argument("--penalties", help="vm.penalty values (s) of the variable cache")
    ap.add_argument("--adaptive", action="store_true", help="add the variable cache under vm.penalty_mode=adaptive "
                    "(cache adaptive in the CSV)")
    ap.add_argument("--no-nocache", action="store_true", help="leave out the no-cache (64 KB) runs")
    ap.add_argument("--runs", type=int, default=3, help="boots a point (3, as Sprite averaged)")
    ap.add_argument("-j", type=int, default=2, dest="jobs", help="QEMUs at once (2)")
    ap.add_argument("--loops", type=int, default=COMMON["loops"], help="edit-compile-link-debug loops (2, as Sprite)")
    ap.add_argument("--scale", type=int, default=COMMON["scale"], help="phase -x: percent of every size and count "
                    "(100; tests use 5)")
    ap.add_argument("--resume", action="store_true", help="keep the runs the journal has of this preset and code "
                    "(build/bench/journal-ecd.jsonl: benchlib.Journal) and run only the others")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args(argv)
    p = dict(PRESETS[a.preset])
    try:
        if a.mems:
            p["mems"] = numbers_list(a.mems, int)
        if a.fixed is not None:
            p["fixed"] = numbers_list(a.fixed)
        if a.penalties is not None:
            p["penalties"] = numbers_list(a.penalties, int)
    except ValueError as e:
        sys.exit("%s: %s" % (NAME, e))
    bad = [m for m in p["mems"] if m not in ecd_paper.MEMS]
    if bad or a.runs < 1 or a.loops < 1 or not 1 <= a.scale <= 1000:
        sys.exit("%s: memory sizes are Sprite's (%s), not %s; --runs and --loops at least 1; --scale 1-1000"
                 % (NAME, ", ".join(map(str, ecd_paper.MEMS)), bad or "-"))
    nocache = p["nocache"] and not a.no_nocache
    cfg = dict(COMMON, loops=a.loops, scale=a.scale)
    jobs = [j + (k,) for j in grid(p["mems"], p["fixed"], nocache, p["penalties"], a.adaptive) for k in range(1, a.runs + 1)]
    if not jobs:
        sys.exit("%s: no run in that grid" % NAME)
    logs = bench_path("ecd-logs")
    os.makedirs(logs, exist_ok=True)
    print("%s: preset %s: Sprite's %s MB as %s MB; %d loops at %d %%; disk %d B/s and %d requests/s, CPU -icount "
          "shift=%d,align=on; %d boots, %d at once" % (NAME, a.preset, ",".join(map(str, p["mems"])),
          ",".join(str(m + 2) for m in p["mems"]), cfg["loops"], cfg["scale"], cfg["throttle_bps"],
          cfg["throttle_iops"], cfg["icount"], len(jobs), a.jobs), flush=True)
    journal = Journal("ecd", dict(cfg, preset=a.preset), a.resume)
    cfg["image"] = prepare_image(cfg["scale"], logs)
    t_start, done = time.monotonic(), [0]

    def job(j):
        m, cache, kb, pen, k = j
        tag = "%s-%dM-%s-run%d" % (a.preset, m, {"variable": "p%d" % pen, "nocache": "nocache", "adaptive": "adaptive"}.get(
            cache, "fixed%dk" % kb), k)
        load = host_load()
        t = time.monotonic()
        print("%s: %d MB, %s, run %d: booting (%.0f s so far)" % (NAME, m, config_label(cache, kb, pen), k,
                                                                 t - t_start), flush=True)
        r = one_run(cfg, m, cache, kb, pen, os.path.join(logs, tag + ".log"))
        r.update(preset=a.preset, mem_paper_mb=m, mem_mb=m + 2, cache=cache, cache_kb=kb,
                 penalty_s=pen if cache == "variable" else "", run=k, loops=cfg["loops"], scale=cfg["scale"],
                 throttle_bps=cfg["throttle_bps"], throttle_iops=cfg["throttle_iops"], icount_shift=cfg["icount"],
                 host_load=load, wall_s=time.monotonic() - t)
        r.update(run_identity(a.preset))
        done[0] += 1
        spent = time.monotonic() - t_start
        left = spent / done[0] * (len(jobs) - done[0])
        print("%s [%d/%d] %d MB, %s, run %d: %.0f s, FS %.1f MB, VM %.1f MB, disk busy %.0f %%, cache %d-%d KB, "
              "fs>vm %d/%d vm>fs %d/%d (%.0f s so far, about %.0f min left)"
              % (NAME, done[0], len(jobs), m, config_label(cache, kb, pen), k, r["elapsed_ms"] / 1000,
                 (r["fs_read_kb"] + r["fs_write_kb"]) / 1024, (r["vm_read_kb"] + r["vm_write_kb"]) / 1024,
                 100 * r["disk_busy_ms"] / max(1, r["elapsed_ms"]), r["cache_min_kb"], r["cache_max_kb"],
                 r["fs_asks_vm_satisfied"], r["fs_asks_vm"], r["vm_asks_fs_satisfied"], r["vm_asks_fs"],
                 spent, left / 60), flush=True)
        return r

    results, failures = run_all(NAME, job, jobs, a.jobs, ParseError, journal)
    csv_path = bench_path("ecd.csv")
    write_csv(csv_path, results, a.preset)
    rows = [r for r in read_rows(csv_path) if r["preset"] == a.preset]
    print()
    print(table_text(rows))
    print()
    print(table2_text(rows))
    print()
    print(targets.printed(targets.judge_ecd(rows)))
    if not a.no_figures:
        import ecd_figures
        pngs = ecd_figures.draw(csv_path, a.preset, bench_path("ecd"), linux_csv=bench_path("linux-ecd.csv"))
        print("written: %s, %s" % (os.path.relpath(csv_path), ", ".join(os.path.relpath(x) for x in pngs)))
    if failures:
        sys.exit("%s: %d runs failed (above); the others are written" % (NAME, len(failures)))


# --- the CSV and the printed tables ---------------------------------------------------------------
def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, results, preset):
    """This preset's runs replace its earlier ones; other presets' stay."""
    keep = [r for r in read_rows(path) if r["preset"] != preset]
    order = lambda r: (int(r["mem_paper_mb"]), ["nocache", "fixed", "variable", "adaptive"].index(r["cache"]),
                       int(r["cache_kb"]), int(r["penalty_s"] or 0), int(r["run"]))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(keep)
        for r in sorted(results, key=order):
            w.writerow({k: r.get(k, "") for k in COLUMNS})


def table_text(rows):
    """Every point (runs averaged) beside Appendix C's row of the same memory and cache (Sprite's
    VM MB: its faults and page-outs at 8 KB, as ours are page-ins and page-outs at 4 KB)."""
    agg = ecd_paper.aggregate(rows)
    lines = ["ECD benchmark: here (runs averaged) | Sprite, Appendix C",
             "%-4s %-8s %4s %7s %5s %7s %7s %7s | %6s %5s %7s %7s %7s" % (
                 "MB", "cache", "runs", "time s", "busy", "FS MB", "VM MB", "faults", "time s", "util",
                 "FS MB", "VM MB", "faults")]
    for (m, c), x in sorted(agg.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]))):
        pmb = ecd_paper.paper_mb(m, c)
        sprite = "%6.0f %4.1f%% %7.1f %7.1f %7d" % (ecd_paper.paper(m, c, "elapsed_s"), ecd_paper.paper(m, c, "util"),
                                                   pmb[0], ecd_paper.paper_vm_kb(m, c) / 1024,
                                                   ecd_paper.paper(m, c, "faults")) if pmb else "(none)"
        lines.append("%-4d %-8s %4d %7.1f %4.0f%% %7.1f %7.1f %7.0f | %s" % (
            m, c, x["runs"], x["elapsed_ms"] / 1000, x["util"], x["fs_mb"], x["vm_mb"], x["faults"], sprite))
    return "\n".join(lines)


def _order(config):
    if config == "linux":
        return (4, 0)
    if config == "adaptive":
        return (3, 0)
    if config == "nocache":
        return (0, 0)
    if config.startswith("p"):
        return (2, int(config[1:]))
    return (1, float(config[:-1]))


def table2_text(rows):
    """Table 2: the variable cache without penalty across memory sizes, beside Sprite's."""
    agg = ecd_paper.aggregate(rows)
    lines = ["Table 2 (variable cache, no penalty): here | Sprite",
             "%-4s %13s %17s %17s | %11s %13s %13s" % ("MB", "cache min-max", "FS asks VM (got)", "VM asks FS (got)",
                                                      "cache MB", "FS asks VM", "VM asks FS")]
    for m in sorted({k[0] for k in agg if k[1] == "p0"}):
        x, s = agg[(m, "p0")], ecd_paper.TABLE_2.get(m)
        lines.append("%-4d %5.2f-%5.2f MB %9.0f (%5.0f) %9.0f (%5.0f) | %4.2f-%4.1f %6d (%4d) %6d (%4d)" % (
            m, x["cache_min_kb"] / 1024, x["cache_max_kb"] / 1024, x["fs_asks_vm"], x["fs_asks_vm_satisfied"],
            x["vm_asks_fs"], x["vm_asks_fs_satisfied"], *s))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
