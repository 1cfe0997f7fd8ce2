#!/usr/bin/env python3
"""make paper: every table and figure of the seed papers that this system reproduces, measured
again on the current code and written into the book's results chapter beside the published
numbers.

Each benchmark is its own script (tools/bench/bench_*.py) and knows its paper; this one only
runs them, in one of two presets, and then `results.py`, which writes the generated parts of
docs/ from the CSVs they left under build/bench:

  short  each benchmark's smallest run that still gives every table a row: hours, not a day
         (--estimate). The documents are written with --partial, so every table it fills begins by
         saying what the run lacked (fewer runs, fewer points).
  full   every benchmark's full grid, as `make bench-NAME` runs it: most of a day.

Parallel runs. A benchmark measured in guest time (-icount shift=0: its figures count
instructions, whatever else the host runs) may run beside another; one measured in wall clock
or with the guest's clock held to the host's (the disk-bound parts, IFS, ECD, Linux) must not
share the host's cores with another benchmark, so those run one at a time, each allowed -j
guests of its own. With -j 1 everything runs in turn.

Resuming (--resume). The full preset takes most of a day; a run that stops (a session ended,
the host rebooted) is started again with --resume: benchmarks that ended well on this code
(paper-times.csv names the commit) are not run again, and the long ones (IFS, ECD, Linux's)
are given --resume too: each keeps the runs its journal has of this code (benchlib.Journal: a
line a run, written as the run ends) and runs only the points it lacks. The short ones start
again.

Progress: a line when a benchmark starts and ends, its own progress lines prefixed with its
name, and an estimate of the time left from how long each benchmark took the last time it ran
in this preset (build/bench/paper-times.csv), or from the estimates below the first time.

    paper.py [--preset short|full] [-j N] [--only NAME,...] [--resume] [--no-docs]
    paper.py --estimate

--estimate prints how long each preset takes on 2 cores by the first estimates below (not by
the last run's times, which differ from machine to machine): the one figure `make help` and
the README give (tests/host/test_paper.py holds them to it).

Exits non-zero, writing no documents, if any benchmark failed; its console log is under
build/bench/paper-logs."""
import argparse, csv, os, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, bench_path, tree_commit   # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class Bench:
    """One benchmark script: what of the papers it reproduces, how each preset runs it (extra
    arguments and environment), whether its figures are guest time only (exact), and a first
    estimate of its seconds in each preset on 2 cores."""

    def __init__(self, name, script, papers, exact, short, full, estimate, jobs_flag=False, resume_flag=False):
        self.name, self.script, self.papers, self.exact = name, script, papers, exact
        self.presets = {"short": short, "full": full}
        self.estimate, self.jobs_flag, self.resume_flag = estimate, jobs_flag, resume_flag

    def command(self, preset, jobs, resume=False):
        args, env = self.presets[preset]
        args = list(args) + (["-j", str(jobs)] if self.jobs_flag else []) + (
            ["--resume"] if resume and self.resume_flag else [])
        return [sys.executable, os.path.join(HERE, self.script)] + args, dict(os.environ, **env)


BENCHES = [
    Bench("bench-fork", "bench_fork.py", "Sprite thesis Tables 7-1 and 7-3 (COW-COR fork)", True,
          ([], {"ITER": "5"}), ([], {}), {"short": 240, "full": 600}),
    Bench("tracesim", "../lab/tracesim.py", "Hagmann's comparison of replacement policies on the shipped traces", True,
          (["--out", "build/bench/tracesim"], {}), (["--out", "build/bench/tracesim"], {}), {"short": 30, "full": 30}),
    Bench("bench-vm", "bench_vm.py", "Irlam's vmtest table; the fault costs of thesis ch. 7", False,
          ([], {"RUNS": "1", "VMTEST_MB": "2 8 16 24 32"}), ([], {}), {"short": 300, "full": 1500}),
    Bench("bench-negcost", "bench_negcost.py", "docs/negotiation.md's cost: an untraded negotiation against a cache miss",
          True, ([], {"RUNS": "1"}), ([], {}), {"short": 20, "full": 60}),
    Bench("bench-fs", "bench_fs.py", "Braunstein's transfer sizes; thesis Tables 5-5 to 5-7 (write policies)", False,
          ([], {"RUNS": "1"}), ([], {}), {"short": 300, "full": 700}),
    Bench("bench-ifs", "bench_ifs.py", "WRL 90/4 Tables 2, 3 and 4 (the IFS benchmark, paper and matched presets)",
          False, (["--runs", "1", "--intervals", "5,30", "--penalties", "0,120,adaptive", "--fixed-kb", "170"], {}),
          (["--penalties", "0,120,120:stepped,1200,adaptive,ignored"], {}),
          {"short": 2400, "full": 38000}, jobs_flag=True, resume_flag=True),
    Bench("bench-ifs-sprite", "bench_ifs.py", "the ablation: the paper preset's rows with Sprite's mechanism alone",
          False, (["--preset", "paper", "--mechanism", "sprite", "--runs", "1", "--intervals", "5,30", "--penalties",
                   "0,120", "--fixed-kb", ""], {}),
          (["--preset", "paper", "--mechanism", "sprite", "--intervals", "5,30", "--penalties", "0,120",
            "--fixed-kb", ""], {}), {"short": 750, "full": 2400}, jobs_flag=True, resume_flag=True),
    Bench("bench-ecd", "bench_ecd.py", "WRL 90/4 Table 1's ECD benchmark: Figures 1-6, Table 2, Appendix C", False,
          (["--preset", "short", "--runs", "1", "--adaptive"], {}), (["--runs", "3", "--adaptive"], {}), {"short": 1500, "full": 29000},
          jobs_flag=True, resume_flag=True),
    Bench("bench-linux", "bench_linux.py", "Linux 6.1 on the IFS mix, beside the matched preset's rows, Debian's "
          "setup and the protected one", False, (["--runs", "1", "--intervals", "5,30", "--setup", "both"], {}),
          (["--runs", "3", "--setup", "both"], {}), {"short": 1500, "full": 4800}, jobs_flag=True,
          resume_flag=True),
    Bench("bench-linux-paper", "bench_linux.py", "Linux 6.1 on the IFS paper preset, Debian's setup and the protected "
          "one", False, (["--preset", "paper", "--runs", "1", "--setup", "both"], {}),
          (["--preset", "paper", "--runs", "3", "--setup", "both"], {}), {"short": 3600, "full": 10800}, jobs_flag=True,
          resume_flag=True),
    Bench("bench-linux-ecd", "bench_linux_ecd.py", "Linux 6.1 on the ECD benchmark, its line beside ours", False,
          (["--preset", "matched-fast"], {}), (["--preset", "matched"], {}), {"short": 900, "full": 3600},
          jobs_flag=True, resume_flag=True),
]


def times_path():
    return bench_path("paper-times.csv")


def _times():
    try:
        with open(times_path(), newline="") as f:
            return list(csv.DictReader(f))
    except FileNotFoundError:
        return []


def last_times(preset):
    """{benchmark: seconds} of the last run of each in this preset."""
    return {r["bench"]: float(r["seconds"]) for r in _times() if r["preset"] == preset}


def done_at(preset, commit):
    """The benchmarks whose last run in this preset ended well on this code (commit, of a clean
    tree): what --resume skips."""
    if commit == "unknown" or commit.endswith("-dirty"):
        return set()
    return {r["bench"] for r in _times() if r["preset"] == preset and r.get("commit") == commit}


def save_time(preset, name, seconds, commit=""):
    rows = [r for r in _times() if (r["bench"], r["preset"]) != (name, preset)]
    rows.append(dict(bench=name, preset=preset, seconds="%.0f" % seconds, commit=commit))
    with open(times_path(), "w", newline="") as f:
        w = csv.DictWriter(f, ["bench", "preset", "seconds", "commit"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def schedule(benches, jobs):
    """Lanes of benchmarks that run at once: the exact ones in a lane beside the others when
    there are cores for two, the rest one after another. Returns a list of lanes (lists)."""
    exact = [b for b in benches if b.exact]
    timed = [b for b in benches if not b.exact]
    if jobs >= 2 and exact and timed:
        return [timed, exact]
    return [timed + exact]


def left(lanes, done, expected, running_since, now):
    """Seconds left: each lane's remaining expectations (a running one's less what it has run
    so far), the longest lane being what the whole waits for."""
    worst = 0
    for lane in lanes:
        total = 0
        for b in lane:
            if b.name in done:
                continue
            e = expected[b.name]
            if b.name in running_since:
                e = max(e - (now - running_since[b.name]), 0)
            total += e
        worst = max(worst, total)
    return worst


def minutes(s):
    s = int(round(s))
    return "%d min %02d s" % (s // 60, s % 60) if s >= 60 else "%d s" % s


def rough(s):
    """A duration as a person says it: 6300 s -> "1 h 45 min" (quarter hours), 73200 s ->
    "20 hours", 1500 s -> "25 minutes" (five minutes)."""
    if s >= 10 * 3600:
        return "%d hours" % round(s / 3600)
    if s >= 3600:
        q = int(round(s / 900))
        return "%d h %02d min" % (q // 4, q % 4 * 15) if q % 4 else "%d h" % (q // 4)
    return "%d minutes" % max(5, int(round(s / 300)) * 5)


def estimate(preset, jobs=2):
    """The preset's first estimate with -j jobs: its lanes' longest, each benchmark as BENCHES
    says."""
    return left(schedule(BENCHES, jobs), set(), {b.name: b.estimate[preset] for b in BENCHES}, {}, 0)


def estimates_text():
    return "short preset about %s on 2 cores, full about %s" % (rough(estimate("short")), rough(estimate("full")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=["short", "full"], default="short")
    ap.add_argument("-j", type=int, default=2, help="guests at once (default 2)")
    ap.add_argument("--only", default="", help="comma-separated benchmarks to run (default: all)")
    ap.add_argument("--no-docs", action="store_true", help="run the benchmarks, leave docs/ alone")
    ap.add_argument("--estimate", action="store_true", help="print how long each preset takes, run nothing")
    ap.add_argument("--resume", action="store_true", help="skip the benchmarks done on this code (this commit, a clean "
                    "tree) in this preset, and let IFS's keep its runs of this code: a run that stopped goes on")
    a = ap.parse_args()
    if a.estimate:
        print(estimates_text())
        return
    if a.j < 1:
        sys.exit("paper: -j must be at least 1")
    names = [b.name for b in BENCHES]
    only = [n for n in a.only.split(",") if n]
    unknown = [n for n in only if n not in names]
    if unknown:
        sys.exit("paper: no benchmark %s (there are: %s)" % (", ".join(unknown), ", ".join(names)))
    benches = [b for b in BENCHES if not only or b.name in only]
    commit = tree_commit()
    if a.resume:
        skip = done_at(a.preset, commit)
        if skip & {b.name for b in benches}:
            print("paper: --resume: %s done on this code (%s), not run again" % (
                ", ".join(b.name for b in benches if b.name in skip), commit), flush=True)
        benches = [b for b in benches if b.name not in skip]
    logs = bench_path("paper-logs")
    os.makedirs(logs, exist_ok=True)
    known = last_times(a.preset)
    expected = {b.name: known.get(b.name, b.estimate[a.preset]) for b in benches}
    lanes = schedule(benches, a.j)
    lock, done, running, failed = threading.Lock(), set(), {}, []
    t0 = time.monotonic()

    def say(text):
        with lock:
            print("paper: %s" % text, flush=True)

    def run(b):
        cmd, env = b.command(a.preset, a.j, a.resume)
        with lock:
            running[b.name] = time.monotonic()
            eta = left(lanes, done, expected, running, time.monotonic())
        say("%s started (%s; about %s left in all)" % (b.name, b.papers, minutes(eta)))
        start = time.monotonic()
        with open(os.path.join(logs, b.name + ".log"), "w") as log:
            p = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in p.stdout:
                log.write(line)
                with lock:
                    sys.stdout.write("  %s| %s" % (b.name, line))
                    sys.stdout.flush()
            rc = p.wait()
        took = time.monotonic() - start
        with lock:
            done.add(b.name)
            del running[b.name]
            eta = left(lanes, done, expected, running, time.monotonic())
        if rc == 0:
            save_time(a.preset, b.name, took, commit)
            say("%s done in %s (%d of %d; about %s left)" % (b.name, minutes(took), len(done), len(benches), minutes(eta)))
        else:
            failed.append(b.name)
            say("%s FAILED (exit %d after %s): %s" % (b.name, rc, minutes(took),
                                                        os.path.relpath(os.path.join(logs, b.name + ".log"), ROOT)))

    say("%s preset, %d benchmark%s, -j %d: about %s" % (a.preset, len(benches), "" if len(benches) == 1 else "s", a.j,
                                                        minutes(left(lanes, done, expected, running, 0))))
    threads = [threading.Thread(target=lambda lane=lane: [run(b) for b in lane]) for lane in lanes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    say("all done in %s" % minutes(time.monotonic() - t0))
    if failed:
        sys.exit("paper: %s failed; docs/ left as they were" % ", ".join(failed))
    if a.no_docs:
        return
    cmd = [sys.executable, os.path.join(HERE, "results.py")] + (["--partial"] if a.preset == "short" else [])
    sys.exit(subprocess.call(cmd, cwd=ROOT))


if __name__ == "__main__":
    main()
