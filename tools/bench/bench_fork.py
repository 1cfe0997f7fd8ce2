#!/usr/bin/env python3
"""make bench-fork: the thesis's Table 7-1 in QEMU. fork+exit+wait in the parent against its
resident size, for each fork mode the kernel has (vm.fork=cowcor, vm.fork=copy) and with the
pages memory-resident or on backing store (when the kernel can push them out). Guest time under
-icount shift=0: exact and repeatable. Then Table 7-3: the COW-COR counters over a fork+exec
shell workload (every command a fork and an exec; pipelines; sort's runs), beside the pages
copy-on-fork copies for the same workload. Prints the tables; writes build/bench/fork.csv
(Table 7-1 rows, with the reference page copy of the same runs, user/lib/bench.c),
build/bench/fork.png (fork time against resident size) and build/bench/fork-workload.csv
(Table 7-3)."""
import csv, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import IDENTITY, Progress, boot, bench_path, env_preset, identity_cells, run_identity   # noqa: E402
import bench_figures                               # noqa: E402

SIZES = [0, 64, 128, 256, 512, 1024, 2048, 4096]
ITER = int(os.environ.get("ITER", "20"))


# Table 7-3's workload: a shell session in which every command is a fork and an exec.
WORKLOAD = """mklines /tmp/in 256K 7
sort -m 64 -o /tmp/out /tmp/in
wc /tmp/out
cksum /tmp/in /tmp/out
ls -l /bin | wc -l
cat /tmp/in | wc -c
echo one two three | cat | wc -w
cp /tmp/in /tmp/in2
rm /tmp/in2 /tmp/out
mkdir /tmp/d
echo x > /tmp/d/f
cat /tmp/d/f
rm /tmp/d/f
rmdir /tmp/d
ps
vmstat vm.faults
"""
COUNTERS = ["vm.cow.marked", "vm.cor.marked", "vm.cow.faults", "vm.cor.faults", "vm.faults",
            "vm.fork.copies", "vm.fork.copies_saved", "vm.cow.list_max"]


NAME = "bench-fork"
progress = Progress(NAME, 7)


def run(cmdline, args, commands=None, mem=64):
    if commands is None:
        commands = "forkbench -n %d %s\n" % (ITER, args)
    return boot(NAME, commands, mem, icount=True, append=cmdline, timeout=600)


def counters(out):
    """The vmstat snapshots (whole ones) in out, as dicts."""
    snaps, cur = [], None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0].startswith(("vm.", "mem.", "disk.", "fs.")):
            if parts[0] == "vm.faults" and (cur is None or "vm.faults" in cur):
                cur = {}
                snaps.append(cur)
            if cur is not None:
                cur[parts[0]] = int(parts[1])
    return [c for c in snaps if "vm.cow.marked" in c]


def workload(ident):
    """Table 7-3: counter deltas over the workload in each mode."""
    res = {}
    for mode in ("cowcor", "copy"):
        progress.step("Table 7-3: the shell workload, vm.fork=%s" % mode)
        out = run("vm.fork=%s" % mode, None, "vmstat\n" + WORKLOAD * 3 + "vmstat\n")
        snaps = counters(out)
        if len(snaps) < 2:
            sys.exit("bench-fork: the workload did not report:\n" + out)
        a, b = snaps[0], snaps[-1]
        res[mode] = {k: b[k] - a[k] for k in COUNTERS if k != "vm.cow.list_max"}
        res[mode]["vm.cow.list_max"] = b["vm.cow.list_max"]
        res[mode]["forks"] = out.count("\n$ ") - 2
    c, k = res["cowcor"], res["copy"]
    pct = lambda a, b: 100.0 * a / b if b else 0.0
    row = {
        "cow_marked": c["vm.cow.marked"], "cor_marked": c["vm.cor.marked"],
        "cow_faulted_pct": pct(c["vm.cow.faults"], c["vm.cow.marked"]),
        "cor_faulted_pct": pct(c["vm.cor.faults"], c["vm.cor.marked"]),
        "cowcor_pct_of_faults": pct(c["vm.cow.faults"] + c["vm.cor.faults"], c["vm.faults"]),
        "copies_cowcor": c["vm.fork.copies"], "copies_copy_on_fork": k["vm.fork.copies"],
        "saved_pct": pct(k["vm.fork.copies"] - c["vm.fork.copies"], k["vm.fork.copies"]),
        "list_max": c["vm.cow.list_max"], "faults_cowcor": c["vm.faults"], "faults_copy": k["vm.faults"],
    }
    print()
    print("Table 7-3: fork+exec shell workload (%d commands, 3 rounds)" % (WORKLOAD.count("\n") * 3))
    print("  COW pages marked %d, COR pages marked %d" % (row["cow_marked"], row["cor_marked"]))
    print("  faulted: COW %.0f %%, COR %.0f %%; COW+COR faults %.0f %% of all %d faults" %
          (row["cow_faulted_pct"], row["cor_faulted_pct"], row["cowcor_pct_of_faults"], row["faults_cowcor"]))
    print("  page copies: COW-COR %d, copy-on-fork %d: %.0f %% saved; longest list %d" %
          (row["copies_cowcor"], row["copies_copy_on_fork"], row["saved_pct"], row["list_max"]))
    print("  (Sprite: COW ~= COR marked; COW 1-8 %, COR 63-72 % faulted; 15-30 % of faults; 22-28 % saved)")
    with open(bench_path("fork-workload.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(row.keys()) + IDENTITY)
        w.writerow(["%.1f" % v if isinstance(v, float) else v for v in row.values()] + identity_cells(ident))


def main():
    ident = run_identity(env_preset(["ITER"]))
    rows, copy4k, raw = [], None, ""
    for mode in ("cowcor", "copy"):
        progress.step("Table 7-1: forkbench, vm.fork=%s, pages resident" % mode)
        out = raw = run("vm.fork=%s" % mode, " ".join(map(str, SIZES)))
        if "unknown setting 'vm.fork'" in out:
            print("bench-fork: this kernel has no vm.fork setting: it always copies")
        else:
            # Pages on backing store need vm.pageout (the demand-paged VM).
            progress.step("Table 7-1: forkbench, vm.fork=%s, pages on backing store" % mode)
            back = run("vm.fork=%s" % mode, "-b " + " ".join(map(str, SIZES)))
            if "vm.pageout:" in back:
                print("bench-fork: this kernel cannot push pages to backing store; resident rows only")
            else:
                out += back
        m = re.search(r"(?:^|\$ )copy4k (\d+)", out, re.M)
        if m:
            copy4k = int(m.group(1))
        for kb, label, ns in re.findall(r"(?:^|\$ )fork (\d+) (\S+) (\d+)", out, re.M):
            fmode, where = label.split("/")
            rows.append((int(kb), fmode, where, int(ns)))
        if "unknown setting 'vm.fork'" in out:
            break
    if not rows:
        sys.exit("bench-fork: no figures; console output:\n" + raw)
    print("fork+exit+wait, guest time under -icount shift=0 (1 ns = 1 instruction), %d forks each" % ITER)
    print("guest copy of one 4 KB page in the same runs: %s ns" % copy4k)
    print("%8s  %-8s  %-9s  %12s" % ("KB", "mode", "pages", "ms per fork"))
    for kb, mode, where, ns in rows:
        print("%8d  %-8s  %-9s  %12.3f" % (kb, mode, where, ns / 1e6))
    with open(bench_path("fork.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["resident_kb", "fork_mode", "pages", "ns_per_fork", "copy4k_ns", "clock"] + IDENTITY)
        for kb, mode, where, ns in rows:
            w.writerow([kb, mode, where, ns, copy4k, "icount shift=0 (guest ns)"] + identity_cells(ident))
    by = {(kb, m, wh): ns for kb, m, wh, ns in rows}
    for where, target in (("resident", 10), ("backing", 50)):
        c, k = by.get((2048, "cowcor", where)), by.get((2048, "copy", where))
        if c and k:
            print("2048 KB %s: copy-on-fork / COW-COR = %.1f (target >= %d)" % (where, k / c, target))
    if rows and any(r[1] == "cowcor" for r in rows):
        workload(ident)
    progress.step("figure")
    png = bench_figures.fork(bench_path("fork.csv"), bench_path("fork.png"))
    print("written: build/bench/fork.csv, build/bench/fork-workload.csv, %s" % os.path.relpath(png))


if __name__ == "__main__":
    main()
