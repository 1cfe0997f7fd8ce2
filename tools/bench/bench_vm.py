#!/usr/bin/env python3
"""make bench-vm: the VM's fault costs and Irlam's vmtest table, measured by the guest under
QEMU -icount shift=0 (1 TSC tick = 1 guest instruction = 1 ns of guest time).

  1. vmbench (MEM=64): the reference 4 KB page copy and zeroing (user/lib/bench.c), a
     zero-fill fault, a resident touch, a page-in from backing store. The fault's own overhead
     is the zero-fill fault minus the zeroing, as a share of the page copy (target
     <= 25 %; Sprite measured 44 %, Mach under 10 %, thesis 7.6). Exact and repeatable, but
     for the page-in, which waits for the disk.
  2. Irlam's table (MEM=16): `vmtest MB SWEEPS` for each MB, MB/2 processes each sweeping its
     own 2 MB SWEEPS times, all started together once every one has touched its memory, and
     the time until the last is done: a fixed amount of work, as Irlam ran it. Relative speed is
     the work done per second (processes x SWEEPS / time) against the 2 MB row of the same run,
     RUNS runs, min/median/max. A row not done in LIMIT_MS of guest time (vmtest -l: thrashing,
     every touch a page-in, would take hours) is stopped and its speed is a bound, below the
     work over the limit. (The timed mode, `vmtest -t`, counts the touches of whoever is
     resident in a fixed time, so processes whose pages fit keep the rate up while the rest
     wait: it cannot show thrashing, and is not used here.) Under -icount the CPU's work is
     counted exactly, and while the guest idles waiting for the disk its clock runs in real
     time: a row without paging is the guest's own figure whatever the host runs beside it.

Writes build/bench/vm.csv, build/bench/vm-irlam.csv and build/bench/vm-irlam.png."""
import csv, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import IDENTITY, Progress, boot, bench_path, env_preset, identity_cells, run_identity, spread  # noqa: E402
import bench_figures                                       # noqa: E402

SIZES = [int(x) for x in os.environ.get("VMTEST_MB", "2 4 8 12 16 20 24 26 28 30 32").split()]
SWEEPS = int(os.environ.get("SWEEPS", "20000"))
# A row stops after LIMIT_MS of guest time (vmtest -l): a thrashing row would take hours (every touch
# a page-in), so it reports that it was not done, and its speed is a bound, below the work over the limit.
LIMIT_MS = int(os.environ.get("LIMIT_MS", "10000"))
RUNS = int(os.environ.get("RUNS", "3"))
NAME = "bench-vm"
VMTEST = re.compile(r"vmtest: (\d+) MB, (\d+) procs, (\d+) loops: (?:(\d+) ms|not done in (\d+) ms \((\d+) of \d+ "
                    r"processes done\)), (\d+) faults, (\d+) pageins, (\d+) pageouts$", re.M)
PAGES = 512             # pages in each process's 2 MB (user/vmtest.c)


PRESET_ENV = ["RUNS", "VMTEST_MB", "SWEEPS", "LIMIT_MS"]


def faults(progress):
    ident = run_identity(env_preset(PRESET_ENV))
    progress.step("vmbench: page copy, zeroing and fault costs (MEM=64, icount)")
    out = boot(NAME, "vmbench 256\naudit\n", 64, icount=True, check="audit: ok")
    v = {m.group(1): int(m.group(2))
         for m in re.finditer(r"(?:^|\$ )(copy|zero|zerofault|refault|pagein) (\d+)", out, re.M)}
    if len(v) != 5:
        sys.exit("%s: vmbench did not report:\n%s" % (NAME, out))
    overhead = v["zerofault"] - v["zero"]
    pct = 100.0 * overhead / v["copy"]
    print("4 KB page copy (guest, word loop)   %7d ns   the reference" % v["copy"])
    print("4 KB page zeroing (guest)           %7d" % v["zero"])
    print("zero-fill fault                     %7d   overhead %d = %.1f %% of a page copy (target <= 25 %%)"
          % (v["zerofault"], overhead, pct))
    print("touch of a resident page            %7d" % v["refault"])
    print("page-in from backing store          %7d   (waits for the disk: not exact under -icount)" % v["pagein"])
    with open(bench_path("vm.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["figure", "value", "unit", "mode"] + IDENTITY)
        for k in ("copy", "zero", "zerofault", "refault", "pagein"):
            w.writerow([k, v[k], "guest ns", "icount shift=0, MEM=64"] + identity_cells(ident))
        w.writerow(["zerofault_overhead", overhead, "guest ns", "icount shift=0, MEM=64"] + identity_cells(ident))
        w.writerow(["zerofault_overhead_pct", "%.1f" % pct, "% of copy", "icount shift=0, MEM=64"] +
                   identity_cells(ident))


def irlam(progress):
    ident = run_identity(env_preset(PRESET_ENV))
    rows, frames = [], None
    for run in range(1, RUNS + 1):
        base = None
        for mb in SIZES:
            progress.step("vmtest -l %d %d %d (run %d of %d, MEM=16, icount)" % (LIMIT_MS, mb, SWEEPS, run, RUNS))
            out = boot(NAME, "vmstat\nvmtest -l %d %d %d\naudit\n" % (LIMIT_MS, mb, SWEEPS), 16, icount=True,
                       check="audit: ok")
            m = VMTEST.search(out)
            if not m or "FAILED" in out:
                sys.exit("%s: vmtest %d did not report:\n%s" % (NAME, mb, out[-3000:]))
            fm = re.search(r"(?:^|\$ )mem\.frames\.total (\d+)", out, re.M)
            frames = int(fm.group(1)) if fm else frames
            _, procs, loops = map(int, m.groups()[:3])
            done_ms, cut_ms, done = m.group(4), m.group(5), m.group(6)
            nf, ins, outs = map(int, m.groups()[6:])
            ms = int(done_ms or cut_ms)
            rate = procs * loops * PAGES * 1000 // max(ms, 1)      # page touches a second, all together
            if base is None and cut_ms:
                sys.exit("%s: the %d MB row, the baseline, was not done in %d ms" % (NAME, mb, LIMIT_MS))
            base = base or rate                 # the first row of each run is the baseline
            rows.append([run, mb, procs, ms, procs * loops, rate, "%.6f" % (rate / base), nf, ins, outs,
                         procs if done_ms else int(done), "<" if cut_ms else ""])
            print("    %d MB: %d processes x %d sweeps %s = %s%.4g of the %d MB row's speed, %d page-ins"
                  % (mb, procs, loops, "in %d ms" % ms if done_ms else "not done in %d ms (%s of them done)" % (ms, done),
                     "below " if cut_ms else "", rate / base, SIZES[0], ins), flush=True)
    with open(bench_path("vm-irlam.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "active_mb", "procs", "ms", "sweeps", "touches_per_s", "relative_speed",
                    "faults", "pageins", "pageouts", "done_procs", "bound", "frames_mb", "mode"] + IDENTITY)
        for r in rows:
            w.writerow(r + ["%.1f" % (frames * 4096 / 2**20) if frames else "",
                            "icount shift=0, MEM=16, %d sweeps a process, at most %d ms a row" % (SWEEPS, LIMIT_MS)]
                   + identity_cells(ident))
    print("\nIrlam's vmtest (MEM=16, every process sweeps its 2 MB %d times, at most %d ms a row; %d runs;"
          " < : not done in the limit, the speed a bound)" % (SWEEPS, LIMIT_MS, RUNS))
    print("%8s %28s %10s" % ("MB", "relative speed min/med/max", "page-ins"))
    for mb in SIZES:
        rel = [float(r[6]) for r in rows if r[1] == mb]
        ins = [r[8] for r in rows if r[1] == mb]
        cut = "<" if any(r[11] for r in rows if r[1] == mb) else " "
        print("%8d %s%9.4g %8.4g %8.4g %10d" % ((mb, cut) + spread(rel) + (spread(ins)[1],)))


def main():
    progress = Progress(NAME, 1 + RUNS * len(SIZES) + 1)
    faults(progress)
    irlam(progress)
    progress.step("figure")
    png = bench_figures.vm(bench_path("vm-irlam.csv"), bench_path("vm-irlam.png"))
    print("written: build/bench/vm.csv, build/bench/vm-irlam.csv, %s" % os.path.relpath(png))


if __name__ == "__main__":
    main()
