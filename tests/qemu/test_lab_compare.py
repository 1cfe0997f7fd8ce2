"""The replacement lab's kernel pass beside its simulator (tools/lab/grade.py --compare): the
session trace's own workload, untraced, in a 16 MB kernel under clock, LRU and FIFO, its counters
read between two samples while the environment and the toucher run behind it and the VM's frames
sampled every second; the same workload in 24 MB for its first touches; and the simulator on
the session trace at the most frames the kernel's VM held, side by side, then at each of its own
sizes. The phases are scaled to a tenth (phase -x 10); the full session is make grade's. The seven
kernel passes are replayed from traces/compare/ (recorded by make compare-record; LAB_COMPARE_LIVE=1
boots them instead), the report saying which recording and kernel, and a recording whose passes
typed other commands than today's is refused; one pass is booted live to show today's kernel
prints what the replay reads. What is checked is the pass, not which policy wins: the kernel
counts moved, the VM's frames were sampled, the kernel's columns are the medians and ranges of
its runs, the simulator was run at that very size (its faults equal build/tracesim's there, its
refaults those less the trace's pages), the verdict follows from the runs and the simulator's
counts, and the simulator is ranked at each size of its own table."""
import gzip, json, os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SESSION = os.path.join(ROOT, "traces", "session.trace.gz")
SIM = os.path.join(ROOT, "build", "tracesim")
GRADE = os.path.join(ROOT, "tools", "lab", "grade.py")
RECORDED = os.path.join(ROOT, "traces", "compare")
LIVE = os.environ.get("LAB_COMPARE_LIVE") == "1"


def test_kernel_ranking_beside_the_simulators():
    p = subprocess.run([sys.executable, GRADE, "clock", "--compare", "--compare-scale", "10", "--compare-runs", "2",
                        "--traces", SESSION] + ([] if LIVE else ["--compare-replay", RECORDED]),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    out = p.stdout
    assert p.returncode == 0, out[-3000:]
    if not LIVE:
        m = json.load(open(os.path.join(RECORDED, "passes.json")))
        assert re.search(r"^grade: compare: the kernel passes replayed from traces/compare, recorded %s at commit %s "
                         r"with kernel %s \(today's build(?: is [0-9a-f]+)?\); make compare-record records them again$"
                         % tuple(re.escape(m[k]) for k in ("recorded", "commit", "kernel")), out, re.M), out[:2000]
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


def test_a_recording_of_other_commands_is_refused(tmp_path):
    """A recording whose pass typed other commands than the session types today (the workload
    changed since) is stale: one line says so and how to record it again."""
    d = tmp_path / "compare"
    shutil.copytree(RECORDED, d)
    m = json.load(open(d / "passes.json"))
    first = sorted(m["passes"])[0]
    m["passes"][first]["typed"][0] += " -x 3"
    (d / "passes.json").write_text(json.dumps(m))
    p = subprocess.run([sys.executable, GRADE, "clock", "--compare", "--compare-scale", "10", "--compare-runs", "2",
                        "--traces", SESSION, "--compare-replay", str(d)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    assert p.returncode == 2, p.stdout[-2000:]
    assert re.search(r"^grade: %s is stale: its pass %s typed other commands than the session types today .*: make "
                     r"compare-record records it again$" % (re.escape(str(d)), first), p.stdout, re.M), p.stdout[-2000:]


def test_todays_kernel_prints_what_the_replay_reads():
    """One pass booted now (clock, 16 MB, a tenth of the session) is read by the very code that
    reads the recording, and gives the same kind of figures: a kernel whose console changed
    (vmstat's format, the sampler's lines) fails here, not only at the next recording."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "lab"))
    import grade as g
    live, console = g.session_run("clock", 16, 10)
    assert live is not None, console[-3000:]
    with gzip.open(os.path.join(RECORDED, "clock-16mb-x10-1.console.gz"), "rt") as f:
        recorded = f.read()
    assert set(live) == set(g.STAMP) | {"frames", "ms"}, live
    assert live["vm.faults"] > live["vm.faults.zero"] > 0 and live["vm.pageins"] > 0 and len(live["frames"]) > 10, live
    assert live["ms"] > 10000, live
    # the recording, read the same way, has the same lines the live console has
    for rx in (r"^@\d+ \d+$", re.escape("vmstat -n " + " ".join(g.STAMP)), r"^session-done$"):
        assert re.search(rx, console, re.M) and re.search(rx, recorded, re.M), rx
