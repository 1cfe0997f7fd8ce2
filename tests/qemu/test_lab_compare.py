"""The replacement lab's kernel pass beside its simulator (tools/lab/grade.py --compare): the
session trace's own workload, untraced, in a 16 MB kernel under clock, LRU and FIFO, its page-ins
read between two samples of the counters while the environment and the toucher run behind it,
and the simulator's faults on the session trace at the frames the kernel's VM held, both ranked.
The phases are scaled to a tenth (phase -x 10) to keep the three boots within half a minute; the
full session is make grade's. What is checked is the pass, not which policy wins: three kernel
counts that moved, the VM's frames read, the simulator run at that size, the two rankings and
whether they agree printed."""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_kernel_ranking_beside_the_simulators():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab", "grade.py"), "clock", "--compare",
                        "--compare-scale", "10", "--traces", os.path.join(ROOT, "traces", "session.trace.gz")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    out = p.stdout
    assert p.returncode == 0, out[-3000:]
    runs = re.findall(r"^grade: compare: the session in a 16 MB kernel under (\w+): (\d+) page-ins, (\d+) page-outs, "
                      r"the VM held (\d+) frames$", out, re.M)
    assert [r[0] for r in runs] == ["clock", "lru", "fifo"], out[-3000:]
    assert all(int(r[1]) > 0 and int(r[3]) > 256 for r in runs), runs
    kern = re.search(r"^grade: compare: kernel, the session's workload in 16 MB \(page-ins\): clock (\d+), lru (\d+), "
                     r"fifo (\d+); (\w+) [<=] (\w+) [<=] (\w+)$", out, re.M)
    assert kern and [int(x) for x in kern.groups()[:3]] == [int(r[1]) for r in runs], out[-2000:]
    sim = re.search(r"^grade: compare: simulator, session trace at (\d+) frames \(the VM's share in the kernel\): "
                    r"clock (\d+), lru (\d+), fifo (\d+); ", out, re.M)
    assert sim, out[-2000:]
    frames = int(sim.group(1))
    assert frames == sum(int(r[3]) for r in runs) // 3, (frames, runs)
    # MIN at that size bounds every policy's count, as the simulator's own table would say
    mins = subprocess.run([os.path.join(ROOT, "build", "tracesim"), "-p", "clock", "-m", str(frames),
                           os.path.join(ROOT, "traces", "session.trace.gz")], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"^\s*%d\s+(\d+)\s+(\d+)" % frames, mins, re.M)
    assert m and int(m.group(2)) == int(sim.group(2)) and all(int(x) >= int(m.group(1)) for x in sim.groups()[1:]), mins
    assert re.search(r"^grade: compare: at the same memory the rankings (agree|differ)", out, re.M), out[-1000:]
