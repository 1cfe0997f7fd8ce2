#!/usr/bin/env python3
"""make crashtest: records a few workloads on a logging disk (tools/crash/crashrec.py), builds
crash states from each log (tools/crash/crashstates.py) and checks every one (tools/crash/crashcheck.py),
repaired by the kernel's own mount code on the host; a few are also booted in QEMU.

Prints progress and a summary (states checked, violations by kind, acknowledged bytes lost),
writes one CSV row per state to build/crash/crashtest.csv, and keeps the image (before
repair) of the first failing states of each kind under build/crash/failed/, each with the
command that reproduces it. Exit status 1 when any state fails.

    crashtest.py                    the full run: about FULL_STATES states, the Ace run's pairs and
                                    three-operation sequences included
    crashtest.py --quick            about 1,800 states, for make test (the Ace run's single
                                    operations, delete-then-create and aimed sequences; every
                                    flush and drop state: each catalogued durability bug's
                                    failing states are of these kinds; the torn requests are
                                    the full run's)
    crashtest.py --stop-at-first    stop at the first failing state (is a planted bug caught?)

It ends with the workloads (an Ace sequence is one), the states checked and the time.
"""
import argparse, csv, multiprocessing, os, shutil, sys, tempfile, time
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crashrec, repaircompare
from crashstates import StateImage, written_blocks
from crashcheck import Checker

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "crash"
KEEP_PER_KIND = 5

_checker = {}
_images = {}               # run dir -> this worker's StateImage of it
_kept_here = Counter()     # failure kind -> images this worker kept
VERIFY_EVERY = 64          # every so many states, the rewritten image is held to one made whole


def _host_image(c, rundir, m, order, idx, tmp):
    """This worker's image of the run, made state (m, order): rewritten where it differs from
    the last state's (crashstates.StateImage), and now and then compared with the image made
    whole, so that a wrong rewrite cannot pass for a checked state."""
    si = _images.get(rundir)
    if si is None:
        path = os.path.join(tempfile.mkdtemp(prefix="crashimage-"), "state.img")
        si = _images[rundir] = StateImage(c.rec, path, c.initial_blocks, c.stale)
    si.write(m, order)
    if idx % VERIFY_EVERY == 0:
        whole = os.path.join(tmp, "whole.img")
        c.rec.write_image(whole, m, order, c.initial_blocks, c.stale)
        with open(whole, "rb") as a, open(si.path, "rb") as b:
            if a.read() != b.read():
                raise AssertionError("the rewritten image of state %d is not the state's image" % idx)
        os.remove(whole)
    return si


def _work(job):
    """One state, in a worker process: (run dir, seed, per_epoch, targeted, index, qemu)."""
    rundir, seed, per_epoch, targeted, idx, qemu = job
    c = _checker.get(rundir)
    if c is None:
        c = _checker[rundir] = Checker(rundir)
        c.state_list = c.states(seed, per_epoch, targeted)
    kind, m, order = c.state_list[idx]
    tmp = tempfile.mkdtemp(prefix="crashstate-")
    kept = None
    try:
        if qemu:                # QEMU's repair does not say what it wrote: an image of its own
            img = os.path.join(tmp, "state.img")
            c.rec.write_image(img, m, order, c.initial_blocks, c.stale)
            v, info = c.check(m, order, img, tmp, qemu=True)
        else:
            si = _host_image(c, rundir, m, order, idx, tmp)
            written = os.path.join(tmp, "written")
            v, info = c.check(m, order, si.path, tmp, written=written)
            si.repaired(written_blocks(written))
        # The caller keeps a few images of each kind of failure; a worker keeps no more than
        # that many itself, since results wait in the pool's queue until the caller reads them
        # and thousands of failing states would otherwise each hold an image on disk.
        if v and _kept_here[v[0][0]] < KEEP_PER_KIND:
            _kept_here[v[0][0]] += 1
            # The image before repair, made again: copying every state's image first, to
            # keep the few that fail, cost as much as writing it.
            kept = os.path.join(tmp, "keep.img")
            c.rec.write_image(kept, m, order, c.initial_blocks, c.stale)
        return dict(run=rundir, idx=idx, kind=kind, m=m, blocks=len(order), qemu=qemu, targeted=targeted, per_epoch=per_epoch,
                    violations=v, kept=kept, tmp=tmp, **info)
    except Exception as e:      # a checker bug must show, not vanish in a worker
        return dict(run=rundir, idx=idx, kind=kind, m=m, blocks=len(order), qemu=qemu, targeted=targeted, per_epoch=per_epoch,
                    violations=[("checker", "%s: %s" % (type(e).__name__, e), 0)], kept=None, tmp=tmp,
                    P=0, t=0, repair="?")
    finally:
        # Nothing of a checked state stays on disk but the image kept: a full run checks
        # thousands of states of tens of MB each.
        if kept is None:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            for name in os.listdir(tmp):
                path = os.path.join(tmp, name)
                if path != kept:
                    shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.remove(path)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="about 1,800 states: flush, random and drop states, no torn requests (make test)")
    p.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    p.add_argument("--seed", type=int, default=1, help="seeds the workloads and the crash states")
    p.add_argument("--reuse", action="store_true", help="check the recordings already in build/crash")
    p.add_argument("--only", help="check only the recordings whose name contains this")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--stop-at-first", action="store_true",
                   help="stop at the first failing state (does a planted bug fail at all, and where)")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.quick:
        plan = [("mix", 5, a.seed, None, False), ("rename", 2, a.seed, None, False),
                ("daemon", 2, a.seed, None, False), ("ace", 1, a.seed, None, "drops")]
        per_epoch, nqemu = 8, 1
    else:
        # The Ace run in three recordings (crashrec.ace_sequences 2, 3 and 4): a state's image
        # holds every block its recording wrote, so one recording of all of them would make
        # each of its states three times as dear.
        plan = [("mix", 25, a.seed, None, False), ("mix", 25, a.seed + 1, 60, False),
                ("rename", 12, a.seed, None, False), ("mix", 40, a.seed + 2, None, False),
                ("daemon", 6, a.seed, None, False), ("ace", 2, a.seed, None, True), ("ace", 3, a.seed, None, True),
                ("ace", 4, a.seed, None, True)]
        per_epoch, nqemu = 30, 6
    t0 = time.time()
    jobs = []
    runs = []
    compare = []
    workloads = Counter()       # recordings, and the Ace run's sequences: one workload each
    log_failed = []
    for wl, rounds, seed, kill, targeted in plan:
        rd = out / ("%s-r%d-s%d%s" % (wl, rounds, seed, "-k%d" % kill if kill else ""))
        if a.only and a.only not in rd.name:
            continue
        if not (a.reuse and (rd / "manifest.json").exists()):
            shutil.rmtree(rd, ignore_errors=True)
            # The full Ace runs write about 300 sequences' files: 32 MB ran out of space.
            size = 64 if wl == "ace" and rounds > 1 else 32
            m = crashrec.record(wl, rounds, seed, rd, size_mb=size, kill_after_acks=kill)
            print("recorded %s: %d steps, %d acks, %d writes, %d flushes, %.0f s" % (
                rd.name, len(m["steps"]), m["acks"], m["end"][0], m["end"][1], m["seconds"]), flush=True)
        c = Checker(str(rd))
        # The Ace run's states are its flushes and torn epochs: random ones add little there.
        pe = 0 if targeted else per_epoch
        n = len(c.states(seed, pe, targeted))
        runs.append((rd, seed, n, pe))
        compare.append((rd, seed, pe, targeted))
        workloads[wl] += len(crashrec.ace_sequences(rounds)) if wl == "ace" else 1
        for v in c.log_violations():          # the recording's own log, checked once
            log_failed.append((rd, v))
        jobs += [(str(rd), seed, pe, targeted, i, False) for i in range(n)]
        # A few states booted in the real kernel: the flush states spread over the run.
        F = len(c.rec.flush_pieces)
        for k in range(nqemu // len(plan) + 1):
            jobs.append((str(rd), seed, pe, targeted, min(F, (k + 1) * F // (nqemu // len(plan) + 2)), True))
    if a.stop_at_first:
        # The recordings' states in turn, so that a bug only one of them shows fails early.
        by_run = [[j for j in jobs if j[0] == str(rd)] for rd, _, _, _ in runs]
        jobs = [j for k in range(max(map(len, by_run), default=0)) for run in by_run if k < len(run)
                for j in [run[k]]]
    print("checking %d crash states with %d workers" % (len(jobs), a.jobs), flush=True)

    failed_dir = out / "failed"
    shutil.rmtree(failed_dir, ignore_errors=True)
    failed_dir.mkdir()
    kinds, states_by_kind, kept = Counter(), Counter(), Counter()
    lost = 0
    nfail = 0
    rows = []
    examples = []
    done = 0
    stopped = False
    for rd, (kind, text, _) in log_failed:
        nfail += 1
        kinds[kind] += 1
        states_by_kind[kind] += 1
        print("FAILED %s (its log): %s: %s" % (rd.name, kind, text), flush=True)
        stopped = a.stop_at_first
    # The workers make each state's images in a folder of this run's, so that states cut off
    # by --stop-at-first leave nothing behind.
    scratch = tempfile.mkdtemp(prefix="crashtest-")
    tempfile.tempdir = scratch
    with multiprocessing.Pool(a.jobs) as pool:
        for r in pool.imap(_work, [] if stopped else jobs, chunksize=4):
            if stopped:
                shutil.rmtree(r["tmp"], ignore_errors=True)
                continue
            done += 1
            v = r["violations"]
            here = Counter(k for k, _, _ in v)
            kinds.update(here)
            states_by_kind.update(here.keys())
            state_lost = sum(l for _, _, l in v)
            lost += state_lost
            keep = ""
            if v:
                nfail += 1
                first = v[0][0]
                if kept[first] < KEEP_PER_KIND and r["kept"]:
                    kept[first] += 1
                    keep = failed_dir / ("%s-%d%s.img" % (Path(r["run"]).name, r["idx"], "-qemu" if r["qemu"] else ""))
                    shutil.move(r["kept"], keep)
                    examples.append((r, keep))
            shutil.rmtree(r["tmp"], ignore_errors=True)
            rows.append(dict(run=Path(r["run"]).name, state=r["idx"], kind=r["kind"], flush=r["m"],
                             extra_blocks=r["blocks"], log_records=r["P"], repair_by="qemu" if r["qemu"] else "host",
                             repair=r["repair"], violations=" ".join(sorted(here)),
                             acked_bytes_lost=state_lost, detail=" | ".join(t for _, t, _ in v)[:500],
                             kept=str(keep)))
            if done % 100 == 0 or done == len(jobs):
                print("  %d/%d states, %d failing, %.0f s" % (done, len(jobs), nfail, time.time() - t0), flush=True)
            if v and a.stop_at_first:
                print("  stopping at the first failing state (%d/%d), %.0f s" % (done, len(jobs), time.time() - t0),
                      flush=True)
                stopped = True
                pool.terminate()
                pool.join()     # the workers gone before their scratch folder goes
                break

    tempfile.tempdir = None
    shutil.rmtree(scratch, ignore_errors=True)

    # The first failing state of each kind again, repaired by the real kernel in QEMU.
    confirm = []
    for r, keep in examples:
        if not r["qemu"] and r["violations"][0][0] not in [c[0] for c in confirm]:
            confirm.append((r["violations"][0][0], (r["run"], [s for d, s, _, _ in runs if str(d) == r["run"]][0],
                                                    r["per_epoch"], r["targeted"], r["idx"], True)))
    confirm = confirm[:0 if a.stop_at_first else 4]
    if confirm:
        print("booting %d failing states in QEMU" % len(confirm), flush=True)
    for kind, job in confirm:
        r = _work(job)
        shutil.rmtree(r["tmp"], ignore_errors=True)
        got = sorted(set(k for k, _, _ in r["violations"]))
        print("  %s state %d in QEMU: %s" % (Path(r["run"]).name, r["idx"], ", ".join(got) or "no violation"))
        here = Counter(k for k, _, _ in r["violations"])
        rows.append(dict(run=Path(r["run"]).name, state=r["idx"], kind=r["kind"], flush=r["m"],
                         extra_blocks=r["blocks"], log_records=r["P"], repair_by="qemu",
                         repair=r["repair"], violations=" ".join(sorted(here)),
                         acked_bytes_lost=sum(l for _, _, l in r["violations"]),
                         detail=" | ".join(t for _, t, _ in r["violations"])[:500], kept=""))

    # The full run: 3 states of each kind per recording repaired by the kernel in QEMU too, and
    # compared with the host build's repair (tools/crash/repaircompare.py; make test has its own).
    if not a.quick and not stopped:
        t1 = time.time()
        cmp = [r for rd, seed, pe, targeted in compare for r in repaircompare.run(
            rd, seed, pe, targeted, 3, keep=failed_dir, log=lambda line: print(line, flush=True))]
        nfail += sum(1 for r in cmp if r["differences"] or r["host_violations"] or r["qemu_violations"])
        print(repaircompare.summary(cmp, time.time() - t1), flush=True)
    with open(out / "crashtest.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print()
    print("crashtest: %d workloads (%s), %d crash states%s from %d recordings (%d booted in QEMU), %.0f s" % (
        sum(workloads.values()), ", ".join("%s %d" % (w, n) for w, n in sorted(workloads.items())), done,
        "" if done == len(jobs) else " of %d" % len(jobs), len(runs), sum(1 for j in jobs if j[5]),
        time.time() - t0))
    print("  states failing: %d" % nfail)
    for k, n in sorted(kinds.items()):
        print("  %-13s %5d states, %5d violations" % (k, states_by_kind[k], n))
    print("  acknowledged bytes lost: %d" % lost)
    print("  per state: %s" % (out / "crashtest.csv"))
    for r, keep in examples:
        print("FAILED %s state %d (%s after flush %d, %d more blocks; %s): %s: %s" % (
            Path(r["run"]).name, r["idx"], r["kind"], r["m"], r["blocks"], r["repair"][:60],
            r["violations"][0][0], r["violations"][0][1][:300]))
        print("  image kept (before repair): %s" % os.path.relpath(keep, ROOT))
        print("  reproduce: python3 tools/crash/crashcheck.py %s --seed %d --per-epoch %d --state %d%s%s" % (
            os.path.relpath(r["run"], ROOT), [s for d, s, _, _ in runs if str(d) == r["run"]][0], r["per_epoch"],
            r["idx"], " --targeted-edges" if r["targeted"] == "edges" else " --targeted-drops" if r["targeted"] == "drops" else " --targeted" if r["targeted"] else "", " --qemu" if r["qemu"] else ""))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
