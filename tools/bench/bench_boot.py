#!/usr/bin/env python3
"""Measures wall time from QEMU's start to the shell's first prompt, through the GRUB ISO and
through QEMU -kernel, several runs each; prints min/median/max and writes build/bench/boot.csv
and build/bench/boot.png."""
import csv, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (ROOT, IDENTITY, Progress, bench_path, env_preset, identity_cells, private_boot,  # noqa: E402
                      run_identity, runqemu, spread)
import bench_figures                                       # noqa: E402

RUNS = int(os.environ.get("RUNS", "5"))
progress = Progress("bench-boot", 2 * RUNS + 1)


def once(mode):
    with tempfile.TemporaryDirectory() as d:        # the pristine image is only ever copied
        return boot_on(mode, private_boot(d, 64, 60)[0])


def boot_on(mode, disk):
    args = runqemu.command(disk=disk, timeout=60, iso=os.path.join(ROOT, "build/os.iso") if mode == "grub" else None,
                           kernel=os.path.join(ROOT, "build/kernel.elf"))
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seen, first_byte, prompt = b"", None, None
    while True:
        b = p.stdout.read1(4096)
        if not b:
            break
        if first_byte is None:
            first_byte = time.monotonic() - t0
        seen += b
        if b"$ " in seen.split(b"console: ready", 1)[-1] and b"console: ready" in seen:
            prompt = time.monotonic() - t0
            p.stdin.close()           # end of input: the shell exits and the machine powers off
            break
    p.wait()
    return first_byte, prompt


def timed(mode, i):
    progress.step("boot %d of %d through %s" % (i + 1, RUNS, "the GRUB ISO" if mode == "grub" else "QEMU -kernel"))
    t = once(mode)[1]
    if t is None:
        sys.exit("bench-boot: no prompt through %s" % mode)
    return t


def main():
    ident = run_identity(env_preset(["RUNS"]))
    rows, loads = [], [os.getloadavg()[0]]
    for mode in ("grub", "kernel"):
        times = []
        for i in range(RUNS):
            times.append(timed(mode, i))
            loads.append(os.getloadavg()[0])
        rows.append((mode,) + spread(times))
        print("%-7s prompt after %.2f s (min %.2f, max %.2f, %d runs, wall clock, TCG)" %
              (mode, rows[-1][2], rows[-1][1], rows[-1][3], RUNS))
    # Wall-clock figures depend on what else the host runs: the CSV says how loaded it was.
    load = "%.1f-%.1f on %d cores" % (min(loads), max(loads), os.cpu_count() or 1)
    with open(bench_path("boot.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "min_s", "median_s", "max_s", "runs", "clock", "host_load"] + IDENTITY)
        for r in rows:
            w.writerow([r[0], "%.3f" % r[1], "%.3f" % r[2], "%.3f" % r[3], RUNS, "wall, TCG", load] +
                       identity_cells(ident))
    progress.step("figure")
    png = bench_figures.boot(bench_path("boot.csv"), bench_path("boot.png"))
    print("written: %s, %s" % (os.path.relpath(bench_path("boot.csv")), os.path.relpath(png)))


if __name__ == "__main__":
    main()
