#!/usr/bin/env python3
"""make bench-fs: the file-system benchmarks of user/fsbench.c, on a private copy of the image.

CPU-bound figures (the guest's 4 KB page copy, cached reads and writes by transfer size, the
cost of a cached 4 KB read with the cache at 1 MB and 16 MB) come from one boot under
-icount shift=0, where the guest's TSC counts 1 ns per instruction: exact and repeatable.
Figures that depend on the disk (reads and overwrites of a file not in the cache) and the
write-policy comparison run in wall-clock mode (plain TCG), RUNS times: min, median, max.

The ceiling rows (SEQ_MB, 32): on a disk throttled as the paper presets throttle it (1 MB/s
and 50 requests a second, tools/runqemu.py: a 1990-class disk), each run boots once on an image
SEQ_MB larger than its file system and measures in that one boot the disk's own sequential
ceiling (`fsbench ceiling`: the kernel moves SEQ_MB straight between the disk and memory in
64 KB requests, one at a time, no file system: sysctl disk.ceiling_kb), then a new SEQ_MB file
written in 64 KB calls and fsync'ed and, out of the cache, read back (`fsbench seq`), and the
same for a SINGLE_MB file with one block a request (fs.cluster_max=1, fs.readahead=0: the
kernel before clustering and read-ahead; a smaller file, since at 50 requests a second 4 KB
requests move 200 KB/s). Each figure is MB/s of wall clock, with the requests the disk saw.

Writes build/bench/fs.csv (with the reference page copy of the same run, user/lib/bench.c)
and build/bench/fs.png (cached throughput against transfer size, the page copy as the
ceiling; beside it the sequential throughput against the ceiling), and prints the tables
docs/results.md quotes.
"""
import csv, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (IDENTITY, Progress, boot, boot_steps, bench_path, env_preset, identity_cells,  # noqa: E402
                      run_identity, ROOT)
import bench_figures                               # noqa: E402

RUNS = int(os.environ.get("RUNS", "3"))
SEQ_MB = int(os.environ.get("SEQ_MB", "32"))
SINGLE_MB = int(os.environ.get("SINGLE_MB", "4"))
THROTTLE_BPS, THROTTLE_IOPS = 1 << 20, 50          # the paper presets' disk (bench_ifs.py)
NAME = "bench-fs"
progress = Progress(NAME, 1 + 3 * RUNS + 1)


def run(cmd, icount):
    progress.step("fsbench %s (%s)" % (cmd, "icount" if icount else "wall clock"))
    out = boot(NAME, "fsbench %s\n" % cmd, 64, icount=icount, timeout=900, check="fsbench %s done" % cmd)
    return [l.split(",")[1:] for l in out.splitlines() if l.startswith("csv,")]


def seq_run():
    """One boot: the ceiling, then the file system's sequential write and read, clustered and
    one block a request. Returns the csv lines' fields."""
    progress.step("fsbench ceiling %d, seq %d, seq %d one block a request (wall clock, throttled disk)"
                  % (SEQ_MB, SEQ_MB, SINGLE_MB))
    with tempfile.TemporaryDirectory() as d:
        img = os.path.join(d, "fs.img")
        subprocess.run(["cp", "--sparse=always", os.path.join(ROOT, "build/fs-pristine.img"), img], check=True)
        os.truncate(img, os.path.getsize(img) + (SEQ_MB + 1) * 1024 * 1024)     # the ceiling's tail
        cmds = "fsbench ceiling %d\nfsbench seq %d\nfsbench seq %d 1\n" % (SEQ_MB, SEQ_MB, SINGLE_MB)
        rc, out, _, _ = boot_steps([(None, cmds)], mem=64, throttle_bps=THROTTLE_BPS, throttle_iops=THROTTLE_IOPS,
                                   image=img, timeout=3600)
    if rc != 0 or out.count("fsbench seq done") != 2 or "fsbench ceiling done" not in out:
        sys.exit("%s: the guest failed (exit %d); its console:\n%s" % (NAME, rc, out[-4000:]))
    return [l.split(",")[1:] for l in out.splitlines() if l.startswith("csv,")]


def mbs(mb, ms):
    return mb * 1048576 / 1e6 / (ms / 1000.0) if ms else 0.0


def seq_rows(rows):
    runs = [seq_run() for _ in range(RUNS)]
    print("\nsequential, not in the cache, disk throttled to %d KB/s and %d requests/s (wall clock, "
          "%d runs: median [min-max]), MB/s:" % (THROTTLE_BPS // 1024, THROTTLE_IOPS, RUNS))
    print("%-34s %8s %22s %22s %16s" % ("", "MB", "write (fsync'ed)", "read", "requests w/r"))
    ceil_r, ceil_w = [], []
    for run in runs:
        c = next(r for r in run if r[0] == "ceiling")
        ceil_r.append(mbs(int(c[1]), int(c[2])))
        ceil_w.append(mbs(int(c[1]), int(c[3])))

    def line(label, mb, ws, rs, req):
        print("%-34s %8d %10.2f [%4.2f-%4.2f] %10.2f [%4.2f-%4.2f] %16s" % (label, mb, statistics.median(ws), min(ws),
              max(ws), statistics.median(rs), min(rs), max(rs), req))
    line("ceiling: 64 KB requests, no fs", SEQ_MB, ceil_w, ceil_r, "%d/%d" % (SEQ_MB * 16, SEQ_MB * 16))
    rows.append(["wall", "seq_ceiling", SEQ_MB << 20, statistics.median(ceil_w), "", statistics.median(ceil_r), "",
                 "min/max w %.2f/%.2f r %.2f/%.2f; 64 KB requests" % (min(ceil_w), max(ceil_w), min(ceil_r), max(ceil_r))])
    for mode, label in (("clustered", "file, clustered + read-ahead"), ("single", "file, one block a request")):
        ws, rs, wreq, rreq = [], [], [], []
        for run in runs:
            r = next(x for x in run if x[0] == "seq" and x[8] == mode)
            mb = int(r[1])
            ws.append(mbs(mb, int(r[2])))
            rs.append(mbs(mb, int(r[3])))
            wreq.append(int(r[4]))
            rreq.append(int(r[6]))
        line(label, mb, ws, rs, "%d/%d" % (statistics.median(wreq), statistics.median(rreq)))
        rows.append(["wall", "seq_" + mode, mb << 20, statistics.median(ws), "", statistics.median(rs), "",
                     "min/max w %.2f/%.2f r %.2f/%.2f; requests w %d r %d" % (min(ws), max(ws), min(rs), max(rs),
                                                                         statistics.median(wreq), statistics.median(rreq))])
        if mode == "clustered":
            pw = [100.0 * w / c for w, c in zip(ws, ceil_w)]
            pr = [100.0 * r / c for r, c in zip(rs, ceil_r)]
            print("%-34s %8s %9.0f%% [%3.0f-%3.0f] %9.0f%% [%3.0f-%3.0f]   (target: 80 %%, each run against "
                  "its own ceiling)" % ("  of the ceiling", "", statistics.median(pw), min(pw), max(pw),
                                        statistics.median(pr), min(pr), max(pr)))
            rows.append(["wall", "seq_of_ceiling_pct", mb << 20, statistics.median(pw), "", statistics.median(pr), "",
                         "min/max w %.0f/%.0f r %.0f/%.0f" % (min(pw), max(pw), min(pr), max(pr))])


def main():
    ident = run_identity(env_preset(["RUNS", "SEQ_MB", "SINGLE_MB"]))
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
        ds, ms = [int(p[i][2]) for p in pol], [int(p[i][3]) for p in pol]
        d, m = statistics.median(ds), statistics.median(ms)
        t = statistics.median(int(p[i][4]) for p in pol)
        print("%8s %8d %12d %10d" % (r[1], d, m, t))
        # the runs' least and greatest beside the medians, for the table's spreads (results.py)
        rows.append(["wall", "policy_" + r[1], "", d, m, "", t, "min/max data %d/%d meta %d/%d runs %d" % (
            min(ds), max(ds), min(ms), max(ms), len(pol))])

    seq_rows(rows)

    with open(bench_path("fs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "kind", "bytes", "write_MBps_or_data_writes", "overwrite_MBps_or_meta_writes",
                    "read_MBps", "ns_or_ms", "note"] + IDENTITY)
        w.writerows(r + identity_cells(ident) for r in rows)
    progress.step("figure")
    png = bench_figures.fs(bench_path("fs.csv"), bench_path("fs.png"))
    png2 = bench_figures.fs_seq(bench_path("fs.csv"), bench_path("fs-seq.png"))
    print("\nwritten: build/bench/fs.csv, %s, %s" % (os.path.relpath(png), os.path.relpath(png2)))


if __name__ == "__main__":
    main()
