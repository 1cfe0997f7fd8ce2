#!/usr/bin/env python3
"""make bench-fs: the file-system benchmarks of user/fsbench.c, on a private copy of the image.

CPU-bound figures (the guest's 4 KB page copy, cached reads and writes by transfer size, the
cost of a cached 4 KB read with the cache at 1 MB and 16 MB) come from one boot under
-icount shift=0, where the guest's TSC counts 1 ns per instruction: exact and repeatable.
Figures that depend on the disk (reads and overwrites of a file not in the cache) and the
write-policy comparison run in wall-clock mode (plain TCG), RUNS times: min, median, max.
Writes build/bench/fs.csv (with the reference page copy of the same run, user/lib/bench.c)
and build/bench/fs.png (cached throughput against transfer size, the page copy as the
ceiling), and prints the tables docs/results.md quotes.
"""
import csv, os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Progress, boot, bench_path   # noqa: E402
import bench_figures                               # noqa: E402

RUNS = int(os.environ.get("RUNS", "3"))
NAME = "bench-fs"
progress = Progress(NAME, 1 + 2 * RUNS + 1)


def run(cmd, icount):
    progress.step("fsbench %s (%s)" % (cmd, "icount" if icount else "wall clock"))
    out = boot(NAME, "fsbench %s\n" % cmd, 64, icount=icount, timeout=900, check="fsbench %s done" % cmd)
    return [l.split(",")[1:] for l in out.splitlines() if l.startswith("csv,")]


def main():
    rows = []
    cpu = run("cpu", True)
    copy_ns = int(next(r for r in cpu if r[0] == "copy")[2])
    copy_mbps = 1e3 * 4096 / copy_ns
    print("guest copy of a 4 KB page: %d ns, %.0f MB/s (guest time, -icount shift=0)" % (copy_ns, copy_mbps))
    rows.append(["icount", "copy", 4096, "", "", copy_mbps, copy_ns, ""])
    print("\ncache-resident, 2 MB file, MB/s of guest time:")
    print("%8s %12s %12s %12s %10s" % ("bytes", "write(new)", "overwrite", "read", "read/copy"))
    for r in cpu:
        if r[0] != "cached":
            continue
        size, w, o, rd = int(r[1]), int(r[2]), int(r[3]), int(r[4])
        print("%8d %12d %12d %12d %9.0f%%" % (size, w, o, rd, 100.0 * rd / copy_mbps))
        rows.append(["icount", "cached", size, w, o, rd, "", ""])
    lk = next(r for r in cpu if r[0] == "lookup")
    print("\ncached 4 KB read: %s ns with a 1 MB cache, %s ns with a 16 MB cache (%s blocks)"
          % (lk[2], lk[3], lk[4]))
    rows.append(["icount", "lookup_1MB", 4096, "", "", "", lk[2], ""])
    rows.append(["icount", "lookup_16MB", 4096, "", "", "", lk[3], "blocks=%s" % lk[4]])

    disk = [run("disk", False) for _ in range(RUNS)]
    print("\nnot in the cache (wall clock, TCG, %d runs: median [min-max]), MB/s:" % RUNS)
    print("%8s %22s %22s" % ("bytes", "overwrite+fsync", "read"))
    for i, r in enumerate(disk[0]):
        size = int(r[1])
        ws = [int(d[i][2]) for d in disk]
        rs = [int(d[i][3]) for d in disk]
        print("%8d %10d [%4d-%4d] %10d [%4d-%4d]" % (size, statistics.median(ws), min(ws), max(ws),
                                                      statistics.median(rs), min(rs), max(rs)))
        rows.append(["wall", "disk", size, statistics.median(ws), "", statistics.median(rs), "",
                     "min/max w %d/%d r %d/%d" % (min(ws), max(ws), min(rs), max(rs))])

    pol = [run("policy", False) for _ in range(RUNS)]
    print("\nwrite policies, build-like workload then sync (disk writes; median of %d runs):" % RUNS)
    print("%8s %8s %12s %10s" % ("policy", "data", "desc/ind/bm", "ms"))
    for i, r in enumerate(pol[0]):
        d = statistics.median(int(p[i][2]) for p in pol)
        m = statistics.median(int(p[i][3]) for p in pol)
        t = statistics.median(int(p[i][4]) for p in pol)
        print("%8s %8d %12d %10d" % (r[1], d, m, t))
        rows.append(["wall", "policy_" + r[1], "", d, m, "", t, ""])

    with open(bench_path("fs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "kind", "bytes", "write_MBps_or_data_writes", "overwrite_MBps_or_meta_writes",
                    "read_MBps", "ns_or_ms", "note"])
        w.writerows(rows)
    progress.step("figure")
    png = bench_figures.fs(bench_path("fs.csv"), bench_path("fs.png"))
    print("\nwritten: build/bench/fs.csv, %s" % os.path.relpath(png))


if __name__ == "__main__":
    main()
