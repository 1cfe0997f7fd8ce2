"""The trace simulator (build/tracesim, tools/lab/tracesim/): the kernel's policy files and MIN on
reference traces. MIN is a lower bound, so any policy beating it means the simulator (or MIN)
is wrong; two runs must print the same counts; a bad trace is one line and status 2."""
import csv, glob, os, random, re, subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIM = os.path.join(ROOT, "build", "tracesim")
SHIPPED = sorted(glob.glob(os.path.join(ROOT, "traces", "*.trace")))


def synthetic(path, seed, epochs=120):
    """A hot set, a cyclic sweep larger than most memories, and a periodic burst: LRU's good
    case, its worst and Hagmann's periodic program, in one trace."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("# trace epoch_ms=500 workload=synthetic seed=%d\n" % seed)
        for e in range(epochs):
            pages = {(1, p) for p in rng.sample(range(40), 15)}
            pages |= {(2, (e * 30 + p) % 300) for p in range(30)}
            if e % 20 == 0:
                pages |= {(3, p) for p in range(50)}
            for s, p in sorted(pages):
                f.write("%d %d %d 1 %d\n" % (e, s, p, rng.random() < 0.3))
    return str(path)


def run(*args):
    assert os.path.exists(SIM), "build/tracesim is missing: run make first"
    return subprocess.run([SIM] + [str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)


def rows(csv_path):
    with open(csv_path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("traces")
    return [synthetic(d / ("syn%d.trace" % s), s) for s in (1, 2)] + SHIPPED


@pytest.fixture(scope="module")
def results(traces, tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "sim.csv"
    p = run("-c", out, *traces)
    assert p.returncode == 0, p.stdout[-3000:]
    return p.stdout, rows(out)


def test_min_is_fewest_on_every_trace_and_size(results):
    _, data = results
    mins = {(r["trace"], r["frames"]): int(r["faults"]) for r in data if r["policy"] == "MIN"}
    assert mins
    checked = 0
    for r in data:
        if r["policy"] == "MIN":
            continue
        assert int(r["faults"]) >= mins[(r["trace"], r["frames"])], r
        checked += 1
    pols = {r["policy"] for r in data}
    assert {"clock", "lru", "clusterlru"} <= pols, pols
    assert checked >= 5 * len(mins)


def test_lru_and_clusterlru_never_beat_min(results):
    _, data = results
    mins = {(r["trace"], r["frames"]): int(r["faults"]) for r in data if r["policy"] == "MIN"}
    for r in data:
        if r["policy"] in ("lru", "clusterlru"):
            assert float(r["over_min_pct"]) >= 0 and int(r["faults"]) >= mins[(r["trace"], r["frames"])], r


def test_all_pages_fit_means_only_first_touches(results):
    """With as many frames as the trace has pages, every policy faults once per page."""
    _, data = results
    for r in data:
        if int(r["frames"]) >= int(r["pages"]):
            assert int(r["faults"]) == int(r["pages"]), r


def test_two_runs_print_the_same_counts(traces, results):
    again = run(*traces)
    assert again.returncode == 0
    assert again.stdout == results[0]


def test_min_by_hand(tmp_path):
    """A reference string small enough to work MIN out on paper: 1 2 3 4 1 2 5 1 2 3 4 5 in 3
    frames (Belady's example) faults 7 times under MIN, 9 under FIFO."""
    t = tmp_path / "belady.trace"
    t.write_text("# trace epoch_ms=100\n" + "".join("%d 1 %d 1 0\n" % (e, p) for e, p in
                                                     enumerate([1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5])))
    out = tmp_path / "b.csv"
    p = run("-p", "fifo", "-m", "3,4", "-c", out, t)
    assert p.returncode == 0, p.stdout
    got = {(r["policy"], r["frames"]): int(r["faults"]) for r in rows(out)}
    assert got[("MIN", "3")] == 7 and got[("MIN", "4")] == 6, got
    assert got[("fifo", "3")] == 9 and got[("fifo", "4")] == 10, got   # Belady's anomaly


@pytest.mark.parametrize("text,why", [
    ("1 1 1 1 0\n", "header"),
    ("# trace epoch_ms=500\n1 2 3\n", "expected EPOCH"),
    ("# trace epoch_ms=500\n5 1 1 1 0\n4 1 1 1 0\n", "backwards"),
    ("# trace epoch_ms=500\n0 1 4294967295 1 0\n", "above 4294967294"),
])
def test_bad_trace_is_one_line(tmp_path, text, why):
    t = tmp_path / "bad.trace"
    t.write_text(text)
    p = run(t)
    assert p.returncode == 2
    assert why in p.stdout and len(p.stdout.strip().splitlines()) == 1, p.stdout


def test_spt_nearer_min_than_lru_on_a_periodic_trace(tmp_path):
    """Hagmann's claim for SPT: on periodic references (here a 300-page sweep every 5 s and a
    burst every 10 s, with spt's epoch short enough that those periods end its reference runs)
    it is much closer to MIN than LRU, which keeps exactly the pages not needed soonest. (Without
    the history of evicted pages, 234 frames give 0.77 of LRU's faults.)"""
    t = synthetic(tmp_path / "periodic.trace", 1, epochs=200)
    out = tmp_path / "p.csv"
    p = run("-p", "lru,spt", "-e", "250", "-m", "234,273,312", "-c", out, t)
    assert p.returncode == 0, p.stdout
    got = {(r["policy"], int(r["frames"])): int(r["faults"]) for r in rows(out)}
    for m in (234, 273, 312):
        assert got[("MIN", m)] <= got[("spt", m)] < 0.7 * got[("lru", m)], got


def hot_and_stream(path, ordered, epochs=60, hot=20, stream=10):
    """Each 100 ms epoch uses a hot set of pages again, then pages of a stream never used
    again: LRU and clock keep the hot set, FIFO pushes it out with the stream."""
    with open(path, "w") as f:
        f.write("# trace epoch_ms=100 workload=hotstream%s\n" % (" order=reference" if ordered else ""))
        for e in range(epochs):
            for p in range(hot):
                f.write("%d 1 %d 1 0\n" % (e, p))
            for p in range(stream):
                f.write("%d 2 %d 1 1\n" % (e, e * stream + p))
    return str(path)


def test_ordered_trace_lru_and_clock_keep_the_hot_set_fifo_does_not(tmp_path):
    """In the order of use, with the clock moving within a tick as the kernel's does, LRU faults
    only on the stream (and the hot set's first touches), clock nearly so; FIFO takes the hot
    set's pages as they come round and faults on them again. (Were the clock to stand still
    within a tick, every page of an epoch would have one age and LRU would choose among them by
    frame number.)"""
    t = hot_and_stream(tmp_path / "hs.trace", True)
    out = tmp_path / "hs.csv"
    p = run("-p", "clock,lru,fifo", "-m", "40", "-c", out, t)
    assert p.returncode == 0, p.stdout
    assert "in the order of use" in p.stdout, p.stdout
    got = {r["policy"]: int(r["faults"]) for r in rows(out)}
    only_stream = 20 + 60 * 10
    assert got["MIN"] == got["lru"] == only_stream, got
    assert got["clock"] <= only_stream * 1.05, got      # second chance: now and then a hot page goes
    assert got["fifo"] > only_stream * 1.4, got


def test_ordered_repeat_in_an_epoch_only_marks_the_page_written(tmp_path):
    """A later line of a page already referenced in the same epoch (the kernel's "0 1" line: a
    write after a first read) is no new reference; its page is dirty when it leaves."""
    t = tmp_path / "rep.trace"
    t.write_text("# trace epoch_ms=100 order=reference\n0 1 1 1 0\n0 1 2 1 0\n0 1 1 0 1\n0 1 1 1 1\n"
                 "1 1 3 1 0\n1 1 4 1 0\n")
    out = tmp_path / "rep.csv"
    p = run("-p", "fifo", "-m", "2", "-c", out, t)
    assert p.returncode == 0, p.stdout
    r = {x["policy"]: x for x in rows(out)}
    assert r["MIN"]["references"] == "4" and r["fifo"]["faults"] == "4", r
    assert r["fifo"]["writes"] == "1", r
    t2 = tmp_path / "unordered.trace"
    t2.write_text(t.read_text().replace(" order=reference", ""))
    assert "6 references" in run("-m", "2", t2).stdout     # sampled: every line is one


def test_atlas_beats_lru_on_a_loop_larger_than_memory(tmp_path):
    """Atlas's loop detector (simulator only) on what it was built for: a loop of 60 pages round
    40 frames. LRU, clock and FIFO fault on every reference; Atlas keeps part of the loop."""
    t = tmp_path / "loop.trace"
    with open(t, "w") as f:
        f.write("# trace epoch_ms=100 order=reference\n")
        for e in range(40):
            for p in range(60):
                f.write("%d 1 %d 1 0\n" % (e, p))
    out = tmp_path / "loop.csv"
    p = run("-p", "lru,atlas", "-m", "40", "-c", out, t)
    assert p.returncode == 0, p.stdout
    got = {r["policy"]: int(r["faults"]) for r in rows(out)}
    assert got["lru"] == 40 * 60, got
    assert got["MIN"] <= got["atlas"] < 0.75 * got["lru"], got


def test_gzipped_trace_counts_as_the_plain_one(tmp_path):
    import gzip, shutil
    src = os.path.join(ROOT, "traces", "sort.trace")
    gz = tmp_path / "sort.trace.gz"
    with open(src, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    a, b = run("-p", "clock,lru", src), run("-p", "clock,lru", gz)
    assert a.returncode == b.returncode == 0, b.stdout
    assert a.stdout.split("\n", 1)[1] == b.stdout.split("\n", 1)[1], (a.stdout, b.stdout)
    (tmp_path / "bad.trace.gz").write_bytes(b"not gzip at all")
    p = run(tmp_path / "bad.trace.gz")
    assert p.returncode == 2 and "damaged gzip" in p.stdout, p.stdout


def test_worst_five_seconds_are_at_most_all_faults(results):
    _, data = results
    for r in data:
        if r["faults"] != "error":
            assert 0 < int(r["worst5"]) <= int(r["faults"]), r


def processes_beside_a_hot_set(path, procs=30, hot=20, every=8, size=30):
    """A long-lived program uses its hot set every `every` epochs while short programs come and
    go, each a segment of its own that uses `size` pages over two epochs and exits, as the
    session's phases do beside its environment."""
    with open(path, "w") as f:
        f.write("# trace epoch_ms=500 workload=procs order=reference\n")
        for e in range(2 * procs):
            if e % every == 0:
                for p in range(hot):
                    f.write("%d 1 %d 1 0\n" % (e, p))
            for p in range(size):
                f.write("%d %d %d 1 1\n" % (e, 100 + e // 2, p))
    return str(path)


def test_ended_processes_free_their_frames_as_in_the_kernel(tmp_path):
    """The kernel frees an exiting process's frames, so its dead pages never push out a live
    one; the simulator frees a segment's pages at the end of the epoch of its last reference.
    In memory for the hot set and one program (60 frames, 50 live at most) no policy faults but
    on first touches. Kept until evicted (-K, as the simulator did first) the dead pages are
    younger than the hot set, and LRU and clock push the hot set out at every round."""
    t = processes_beside_a_hot_set(tmp_path / "procs.trace")
    first = 20 + 30 * 30
    out = tmp_path / "procs.csv"
    p = run("-p", "clock,lru,fifo", "-m", "60", "-c", out, t)
    assert p.returncode == 0, p.stdout
    assert "at most 50 live at once" in p.stdout, p.stdout
    got = {r["policy"]: int(r["faults"]) for r in rows(out)}
    assert got == {"MIN": first, "clock": first, "lru": first, "fifo": first}, got
    kept = tmp_path / "kept.csv"
    p = run("-K", "-p", "clock,lru,fifo", "-m", "60", "-c", kept, t)
    assert p.returncode == 0, p.stdout
    got = {r["policy"]: int(r["faults"]) for r in rows(kept)}
    assert got["MIN"] == first, got
    assert got["lru"] >= first + 20 * 6 and got["clock"] >= first + 20 * 6, got


def watched_sim(tmp_path, body):
    """build/tracesim's sources compiled with a policy "w" whose page_in is body (tools/lab/grade.py's
    way with a student's file)."""
    src = tmp_path / "policy_w.c"
    src.write_text('#include <time.h>\n#include <unistd.h>\n#include "vm/policy.h"\nstatic volatile uint32_t n, spin;\n'
                   'static void w_in(uint32_t f) { %s }\n'
                   'static int32_t w_choose(void) { for (uint32_t f = 0; f < pol_nframes(); f++) '
                   'if (pol_candidate(f)) return (int32_t)f; return -1; }\n'
                   'const struct vm_policy policy_w = { .name = "w", .page_in = w_in, .choose = w_choose };\n' % body)
    sim = tmp_path / "sim"
    c = subprocess.run(["cc", "-O2", "-I", ROOT, "-DTRACESIM_EXTRA=policy_w", "-o", str(sim), str(src)] +
                       glob.glob(os.path.join(ROOT, "tools/lab/tracesim/*.c")) + glob.glob(os.path.join(ROOT, "vm/policy*.c")) +
                       [os.path.join(ROOT, "tools/lab", f) for f in ("tracefile.c", "callwatch.c")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert c.returncode == 0, c.stdout
    t = tmp_path / "touch.trace"
    t.write_text("# trace epoch_ms=100\n" + "".join("%d 1 %d 1 0\n" % (e, e) for e in range(200)))
    return sim, t


def test_a_hook_that_loops_is_stopped_per_call_with_the_hook_and_the_reference(tmp_path):
    """200 first touches: the policy's 100th page_in, at the 100th reference, never returns."""
    sim, t = watched_sim(tmp_path, "if (++n == 100) for (;;) spin++;")
    p = subprocess.run([str(sim), "-p", "w", "-m", "300", "-t", "50", str(t)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    assert p.returncode == 3, p.stdout
    assert re.search(r"^tracesim: policy w on touch\.trace at 300 frames: its page_in hook did not return within "
                     r"50 ms of CPU time, at reference 100 of 200: a hook that loops", p.stdout, re.M), p.stdout


def test_the_limit_is_cpu_time_a_hook_waiting_is_not_stopped_by_it(tmp_path):
    """A hook that waits 300 ms of wall-clock time (as a descheduled one seems to) uses no CPU:
    a 50 ms limit in CPU time lets it finish, where one in wall-clock time would not."""
    sim, t = watched_sim(tmp_path, "struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a); if (++n == 100) do { "
                         "usleep(10000); clock_gettime(CLOCK_MONOTONIC, &b); } while ((b.tv_sec - a.tv_sec) * 1000 + "
                         "(b.tv_nsec - a.tv_nsec) / 1000000 < 300);")
    p = subprocess.run([str(sim), "-p", "w", "-m", "300", "-t", "50", str(t)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    assert p.returncode == 0 and "did not return" not in p.stdout, p.stdout


@pytest.mark.parametrize("value", ["0", "5", "x", "3600001"])
def test_a_bad_call_limit_is_one_line(value):
    p = run("-t", value, os.path.join(ROOT, "traces", "sort.trace"))
    assert p.returncode == 2 and p.stdout.strip() == \
        "tracesim: -t wants 10..3600000 ms of CPU time per hook call", p.stdout
