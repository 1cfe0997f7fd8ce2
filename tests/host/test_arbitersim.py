"""The arbiter lab's simulator (build/arbitersim, tools/lab/arbitersim/): hand-made traces whose
proxy is worked out by hand, the reference learning from refaults, an arbiter's bad answer
stopped with one line, bad traces one line each; and on the shipped traces, the reference
replaying the kernel's own adaptive decisions (the trace recorded under vm.penalty_mode=adaptive)
and the anchors' order."""
import csv, gzip, os, re, subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIM = os.path.join(ROOT, "build", "arbitersim")
TRACES = os.path.join(ROOT, "traces", "negotiation")
HAS_REFERENCE = os.path.exists(os.path.join(ROOT, "kernel", "arbiter_reference.c"))
needs_reference = pytest.mark.skipif(not HAS_REFERENCE, reason="the students' tree has no reference arbiter")

HEAD = "# negtrace version=1 workload=test penalty_s=0 mode=fixed\n"


def run(trace_text, tmp_path, arbiters="lru,p120,recorded", sim=SIM):
    path = tmp_path / "t.negtrace"
    path.write_text(trace_text)
    out = tmp_path / "sim.csv"
    p = subprocess.run([sim, "-a", arbiters, "-c", str(out), str(path)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    rows = {r["arbiter"]: r for r in csv.DictReader(open(out))} if out.exists() else {}
    return p, rows


def history():
    """Give-ups that make the cost model: VM pages given up at an idle age of 5 s always come
    back, cache blocks given up at 100 ms never do."""
    lines = []
    for k in range(20):
        t = 10000 + 10 * k
        lines.append("G %d 1 %d %d" % (t, 100 + k, t - 5000))
        lines.append("G %d 0 %d %d" % (t, 500 + k, t - 100))
    for k in range(20):
        lines.append("R %d 1 %d 30 9000 400 1" % (20000 + k, 100 + k))
    return lines


def negotiations(n, start=30000):
    """The cache asks, its oldest block 100 ms old, the VM's oldest page 5 s: global LRU gives
    the VM's page, a 120 s penalty the cache's block. The kernel (recorded) gave the VM's."""
    return ["N %d 0 0 1 %d %d 300 400 10 0" % (start + k, start + k - 100, start + k - 5000) for k in range(n)]


def test_the_proxy_is_the_chance_the_page_given_up_comes_back(tmp_path):
    p, rows = run(HEAD + "\n".join(history() + negotiations(10)) + "\n", tmp_path)
    assert p.returncode == 0, p.stdout
    lru, p120, rec = rows["lru"], rows["p120"], rows["recorded"]
    # Global LRU gives 10 VM pages of 5 s, each sure to come back: 10 reads; 120 s gives 10 blocks
    # of 100 ms that never come back: none. Scored between them: 0 and 100.
    assert (int(lru["vm_given"]), float(lru["vm_reads"]), float(lru["fs_reads"])) == (10, 10.0, 0.0), lru
    assert (int(p120["fs_given"]), float(p120["reads"])) == (10, 0.0), p120
    assert float(lru["score"]) == 0 and float(p120["score"]) == 100, rows
    assert int(rec["changed"]) == 0 and int(p120["changed"]) == 10, rows


def test_mechanical_negotiations_are_not_asked(tmp_path):
    """A refusal or a free block decides itself in the kernel: no arbiter is asked, none counted."""
    lines = history() + ["N 3000 0 %d 0 3000 100 300 400 10 0" % f for f in (1, 2, 4, 8)]
    p, rows = run(HEAD + "\n".join(lines) + "\n", tmp_path)
    assert p.returncode == 0, p.stdout
    assert all(int(r["decisions"]) == 0 for r in rows.values()), rows


@needs_reference
def test_the_reference_learns_from_early_refaults_and_keeps_the_pages(tmp_path):
    """Three early VM refaults at a reuse of 9 s raise its bias past the VM page's 5 s: from then on
    the cache gives its own block. Before them, with no bias, it gives the VM's page."""
    before = negotiations(5, start=15000)
    lines = [l for l in history() if not l.startswith("R")]
    refaults = ["R %d 1 %d 30 9000 400 1" % (20000 + k, 100 + k) for k in range(3)]
    p, rows = run(HEAD + "\n".join(before + lines + refaults + negotiations(10)) + "\n", tmp_path,
                  arbiters="reference,lru")
    assert p.returncode == 0, p.stdout
    ref = rows["reference"]
    assert (int(ref["vm_given"]), int(ref["fs_given"])) == (5, 10), ref
    # Late refaults (not early: the cache held fewer frames than the distance) teach it nothing.
    late = ["R %d 1 %d 3000 9000 400 0" % (20000 + k, 100 + k) for k in range(3)]
    p, rows = run(HEAD + "\n".join(before + lines + late + negotiations(10)) + "\n", tmp_path,
                  arbiters="reference")
    assert int(rows["reference"]["vm_given"]) == 15, rows


def test_an_answer_out_of_range_stops_the_replay_with_one_line(tmp_path):
    src = tmp_path / "arbiter_bad.c"
    src.write_text('#include "kernel/arbiter.h"\n'
                   'static enum neg_pool d(const struct arb_view *v) { return (enum neg_pool)7; }\n'
                   'const struct arbiter arbiter_bad = { .name = "bad", .decide = d };\n')
    sim = tmp_path / "sim"
    c = subprocess.run(["cc", "-O2", "-I", ROOT, "-DARBITER_EXTRA=arbiter_bad", "-o", str(sim), str(src)] +
                       [os.path.join(ROOT, "tools/lab/arbitersim", f) for f in ("main.c", "negtrace.c")] +
                       [os.path.join(ROOT, "tools/lab", f) for f in ("tracefile.c", "callwatch.c")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert c.returncode == 0, c.stdout
    p, _ = run(HEAD + "\n".join(history() + negotiations(3)) + "\n", tmp_path, arbiters="bad", sim=str(sim))
    assert p.returncode == 1, p.stdout
    assert re.search(r"^error: arbiter bad answered 7 at .*event \d+ \(time 30000 ms\)", p.stdout, re.M), p.stdout


@pytest.mark.parametrize("text, why", [
    ("", "is empty"),
    ("# trace epoch_ms=100\n", "not a negotiation trace"),
    (HEAD + "N 1 0 0\n", "a number is missing"),
    (HEAD + "Q 1 2\n", "an event is N, G, R, U or X"),
    (HEAD + "G 1 7 3 4\n", "a pool is 0"),
    (HEAD + "N 1 5 0 0 1 2 3 4 5 6\n", "an asker is 0 or 1"),
])
def test_a_bad_trace_is_one_clear_line(tmp_path, text, why):
    p, _ = run(text, tmp_path)
    assert p.returncode == 2 and why in p.stdout and len(p.stdout.strip().splitlines()) == 1, p.stdout


# --- the shipped traces ------------------------------------------------------------------------
def shipped(name):
    path = os.path.join(TRACES, name + ".negtrace.gz")
    if not os.path.exists(path):
        pytest.skip("no %s (tools/lab/record_negtraces.py)" % name)
    return path


def replay(path, tmp_path, arbiters):
    out = tmp_path / "sim.csv"
    p = subprocess.run([SIM, "-a", arbiters, "-c", str(out), path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    assert p.returncode == 0, p.stdout
    return {r["arbiter"]: r for r in csv.DictReader(open(out))}


def test_the_shipped_traces_are_small_and_hold_every_kind_of_event():
    for name in ("ifs-p0", "ecd-p0", "ifs-adaptive"):
        path = shipped(name)
        assert os.path.getsize(path) < 600 * 1024, (name, os.path.getsize(path))
        text = gzip.open(path, "rt").read()
        kinds = {l[0] for l in text.splitlines() if l and l[0] != "#"}
        assert {"N", "G", "R", "X"} <= kinds, (name, kinds)


@needs_reference
def test_the_reference_replays_the_kernels_own_adaptive_decisions(tmp_path):
    """Recorded under vm.penalty_mode=adaptive, the kernel's decisions are its learned bias's; the
    reference, fed the same refaults and pages used again, makes the same ones, but for a few
    where the used pages folded to 100 ms windows renew its evidence a little apart."""
    rows = replay(shipped("ifs-adaptive"), tmp_path, "reference,lru")
    ref, lru = rows["reference"], rows["lru"]
    assert int(ref["decisions"]) > 500, ref
    assert int(ref["changed"]) <= 0.01 * int(ref["decisions"]), ref
    assert int(lru["changed"]) > 10 * max(1, int(ref["changed"])), (lru, ref)


@needs_reference
def test_on_the_ifs_trace_the_reference_costs_fewer_reads_than_global_lru(tmp_path):
    rows = replay(shipped("ifs-p0"), tmp_path, "reference,lru,p120,recorded")
    assert float(rows["reference"]["reads"]) < float(rows["lru"]["reads"]), rows
    # The recorded run was global LRU's: replaying lru changes nothing.
    assert int(rows["lru"]["changed"]) <= 0.01 * int(rows["lru"]["decisions"]), rows["lru"]


def test_a_hook_that_loops_is_stopped_per_call_with_the_hook_and_the_event(tmp_path):
    """decide never returns at its second question: the replay stops within the limit (CPU time
    per call) with one line naming the hook and the trace's event, and exit status 3."""
    src = tmp_path / "arbiter_loop.c"
    src.write_text('#include "kernel/arbiter.h"\nstatic volatile unsigned n, spin;\n'
                   'static enum neg_pool d(const struct arb_view *v) { if (++n == 2) for (;;) spin++; return v->asker; }\n'
                   'const struct arbiter arbiter_loop = { .name = "loop", .decide = d };\n')
    sim = tmp_path / "sim"
    c = subprocess.run(["cc", "-O2", "-I", ROOT, "-DARBITER_EXTRA=arbiter_loop", "-o", str(sim), str(src)] +
                       [os.path.join(ROOT, "tools/lab/arbitersim", f) for f in ("main.c", "negtrace.c")] +
                       [os.path.join(ROOT, "tools/lab", f) for f in ("tracefile.c", "callwatch.c")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert c.returncode == 0, c.stdout
    lines = history() + negotiations(3)
    path = tmp_path / "t.negtrace"
    path.write_text(HEAD + "\n".join(lines) + "\n")
    p = subprocess.run([str(sim), "-a", "loop", "-t", "50", str(path)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    second = len(lines) - 1         # the events are numbered from 1, in the trace's order
    assert p.returncode == 3, p.stdout
    assert re.search(r"^arbitersim: arbiter loop on t\.negtrace: its decide hook did not return within 50 ms of CPU "
                     r"time, at event %d of %d: a hook that loops" % (second, len(lines)), p.stdout, re.M), p.stdout
