"""The replacement lab's kernel pass beside its simulator (tools/lab/grade.py --compare): the
session trace's own workload, untraced, in a 16 MB kernel under clock, LRU and FIFO, its page-ins
read between two samples of the counters while the environment and the toucher run behind it,
and the simulator's faults on the session trace at each of its sizes, both ranked.
The phases are scaled to a tenth (phase -x 10) to keep the three boots within half a minute; the
full session is make grade's. What is checked is the pass, not which policy wins: three kernel
counts that moved, the simulator ranked at each size of its table, and how many sizes rank as
the kernel does counted right."""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_kernel_ranking_beside_the_simulators():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab", "grade.py"), "clock", "--compare",
                        "--compare-scale", "10", "--traces", os.path.join(ROOT, "traces", "session.trace.gz")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    out = p.stdout
    assert p.returncode == 0, out[-3000:]
    runs = re.findall(r"^grade: compare: the session in a 16 MB kernel under (\w+): (\d+) page-ins, (\d+) page-outs, "
                      r"(\d+) VM frames while only the background ran$", out, re.M)
    assert [r[0] for r in runs] == ["clock", "lru", "fifo"], out[-3000:]
    assert all(int(r[1]) > 0 and int(r[3]) > 256 for r in runs), runs
    kern = re.search(r"^grade: compare: kernel, the session's workload in 16 MB \(page-ins\): clock (\d+), lru (\d+), "
                     r"fifo (\d+); (\w+) [<=] (\w+) [<=] (\w+)$", out, re.M)
    assert kern and [int(x) for x in kern.groups()[:3]] == [int(r[1]) for r in runs], out[-2000:]
    # the simulator size by size, the same sizes as its own table, each ranked
    table = subprocess.run([os.path.join(ROOT, "build", "tracesim"), "-p", "clock,lru,fifo",
                            os.path.join(ROOT, "traces", "session.trace.gz")], stdout=subprocess.PIPE, text=True).stdout
    sizes = [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+\d+\s+\d+ \(", table, re.M)][:-1]
    by = re.search(r"^grade: compare: simulator, session trace, size by size: (.*)$", out, re.M)
    assert by, out[-2000:]
    got = re.findall(r"(\d+) frames (\w+) [<=] (\w+) [<=] (\w+)", by.group(1))
    assert [int(g[0]) for g in got] == sizes, (got, sizes)
    n = re.search(r"^grade: compare: the kernel's order \((\w+) < (\w+) < (\w+)\) is the simulator's at (\d+) of (\d+) "
                  r"sizes", out, re.M)
    assert n and int(n.group(5)) == len(sizes), out[-1500:]
    assert int(n.group(4)) == sum(1 for g in got if list(g[1:]) == list(n.groups()[:3])), (n.group(0), got)
