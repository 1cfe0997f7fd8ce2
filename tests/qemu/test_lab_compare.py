"""The replacement lab's kernel pass beside its simulator (tools/lab/grade.py --compare): the
session trace's own workload, untraced, in a 16 MB kernel under clock, LRU and FIFO, its counters
read between two samples while the environment and the toucher run behind it and the VM's frames
sampled every second; the same workload in 24 MB for its first touches; and the simulator on
the session trace at the most frames the kernel's VM held, side by side, then at each of its own
sizes. The phases are scaled to a tenth (phase -x 10) to keep the seven boots within a minute and a half;
the full session is make grade's. What is checked is the pass, not which policy wins: the kernel
counts moved, the VM's frames were sampled, the kernel's columns are the medians and ranges of
its runs, the simulator was run at that very size (its faults equal build/tracesim's there, its
refaults those less the trace's pages), the verdict follows from the runs and the simulator's
counts, and the simulator is ranked at each size of its own table."""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SESSION = os.path.join(ROOT, "traces", "session.trace.gz")
SIM = os.path.join(ROOT, "build", "tracesim")


def test_kernel_ranking_beside_the_simulators():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab", "grade.py"), "clock", "--compare",
                        "--compare-scale", "10", "--compare-runs", "2", "--traces", SESSION],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    out = p.stdout
    assert p.returncode == 0, out[-3000:]
    runs = re.findall(r"^grade: compare: the session in a 16 MB kernel under (\w+) \(run (\d) of 2\): (\d+) page-ins, "
                      r"(\d+) faults \((\d+) zero fills\), (\d+) page-outs; the VM held (\d+)-(\d+) frames \(mean (\d+), "
                      r"sampled every 1000 ms\), the cache took (\d+) of its pages, it gave the VM (\d+); (\d+) s of guest "
                      r"time$", out, re.M)
    assert [(r[0], r[1]) for r in runs] == [(p, n) for p in ("clock", "lru", "fifo") for n in "12"], out[-3000:]
    for r in runs:
        pageins, faults, zero, lo, hi, mean, secs = (int(r[i]) for i in (2, 3, 4, 6, 7, 8, 11))
        assert pageins > 0 and faults > zero > 0 and 0 < lo <= mean <= hi and hi > 256 and secs > 10, r
    first = re.search(r"^grade: compare: the session's first touches: (\d+) faults in a 24 MB kernel, 0 pages "
                      r"evicted$", out, re.M)
    assert first and int(first.group(1)) > 0, out[-3000:]
    ft = int(first.group(1))
    vm = max(int(r[7]) for r in runs)
    side = re.search(r"^grade: compare: side by side at the kernel VM's memory, (\d+) frames", out, re.M)
    assert side and int(side.group(1)) == vm, out[-3000:]
    # the simulator's column is build/tracesim's own count at that size
    table = subprocess.run([SIM, "-p", "clock,lru,fifo", "-m", str(vm), SESSION], stdout=subprocess.PIPE,
                           text=True).stdout
    m = re.search(r"^\s*%d\s+\d+\s+(\d+) \(.*?\)\s+(\d+) \(.*?\)\s+(\d+) \(" % vm, table, re.M)
    pages = int(re.search(r"references to (\d+) pages", table).group(1))
    sim = dict(zip(["clock", "lru", "fifo"], map(int, m.groups())))
    faults = {pol: sorted(int(r[3]) for r in runs if r[0] == pol) for pol in sim}
    kern = {}
    for pol in ("clock", "lru", "fifo"):
        row = re.search(r"^grade: compare:   %s\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(-?\d+)-(-?\d+)\s+(\d+)\s+(-?\d+)$" % pol,
                        out, re.M)
        assert row, out[-3000:]
        kern[pol] = int(row.group(2))
        assert kern[pol] == sum(faults[pol]) // 2 and int(row.group(3)) == kern[pol] - ft, (row.group(0), faults)
        assert (int(row.group(4)), int(row.group(5))) == (faults[pol][0] - ft, faults[pol][1] - ft), row.group(0)
        assert int(row.group(6)) == sim[pol] and int(row.group(7)) == sim[pol] - pages, (row.group(0), sim)
    verdict = re.search(r"^grade: compare: kernel \(median faults; level where its runs overlap\): (.+); simulator at "
                        r"(\d+) frames: (.+); they (agree|disagree)", out, re.M)
    assert verdict and int(verdict.group(2)) == vm, out[-3000:]
    for order, counts in ((verdict.group(1), kern), (verdict.group(3), sim)):
        names = re.split(r" [<=] ", order)
        assert sorted(names) == ["clock", "fifo", "lru"], order
        assert all(counts[a] <= counts[b] for a, b in zip(names, names[1:])), (order, counts)
    # they agree when every pair the kernel tells apart (b's best run worse than a's worst) is in
    # the simulator's order
    apart = [(a, b) for a in kern for b in kern if faults[b][0] > faults[a][-1]]
    assert (verdict.group(4) == "agree") == all(sim[a] < sim[b] for a, b in apart), (verdict.group(0), faults, sim)
    # and the line after it says which one is the grade
    after = out[verdict.end():].split("\n", 2)[1]
    if verdict.group(4) == "agree":
        assert after.startswith("grade: compare: the grade is the simulator's score; the kernel's ranking agrees"), after
    else:
        assert after.startswith("grade: compare: the rankings disagree; the grade is the simulator's score, not the "
                                "kernel's ranking"), after
    # the simulator size by size, the same sizes as its own table, each ranked
    table = subprocess.run([SIM, "-p", "clock,lru,fifo", SESSION], stdout=subprocess.PIPE, text=True).stdout
    sizes = [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+\d+\s+\d+ \(", table, re.M)][:-1]
    by = re.search(r"^grade: compare: simulator, session trace, size by size: (.*)$", out, re.M)
    assert by, out[-2000:]
    got = re.findall(r"(\d+) frames (\w+) [<=] (\w+) [<=] (\w+)", by.group(1))
    assert [int(g[0]) for g in got] == sizes, (got, sizes)
    n = re.search(r"^grade: compare: the kernel's order \((\w+) < (\w+) < (\w+)\) is the simulator's at (\d+) of (\d+) "
                  r"sizes", out, re.M)
    assert n and int(n.group(5)) == len(sizes), out[-1500:]
    assert int(n.group(4)) == sum(1 for g in got if list(g[1:]) == list(n.groups()[:3])), (n.group(0), got)
