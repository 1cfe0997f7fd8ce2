#!/usr/bin/env python3
"""Measures wall time from QEMU's start to the shell's first prompt, through the GRUB ISO and
through QEMU -kernel, several runs each; prints min/median/max and writes build/bench/boot.csv."""
import csv, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "5"))


def once(mode):
    args = [sys.executable, os.path.join(ROOT, "tools/runqemu.py"), "--disk", os.path.join(ROOT, "build/fs.img"),
            "--timeout", "60"]
    args += ["--iso", os.path.join(ROOT, "build/os.iso")] if mode == "grub" else ["--kernel", os.path.join(ROOT, "build/kernel.elf")]
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


def main():
    os.makedirs(os.path.join(ROOT, "build/bench"), exist_ok=True)
    rows = []
    for mode in ("grub", "kernel"):
        times = [once(mode)[1] for _ in range(RUNS)]
        rows.append((mode, min(times), statistics.median(times), max(times)))
        print("%-7s prompt after %.2f s (min %.2f, max %.2f, %d runs, wall clock, TCG)" %
              (mode, rows[-1][2], rows[-1][1], rows[-1][3], RUNS))
    with open(os.path.join(ROOT, "build/bench/boot.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "min_s", "median_s", "max_s", "runs", "clock"])
        for r in rows:
            w.writerow([r[0], "%.3f" % r[1], "%.3f" % r[2], "%.3f" % r[3], RUNS, "wall, TCG"])


if __name__ == "__main__":
    main()
