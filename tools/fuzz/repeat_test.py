#!/usr/bin/env python3
"""Runs one pytest test over and over to catch a flaky failure, and keeps each failing run's
whole console.

    python3 tools/fuzz/repeat_test.py [-n RUNS] [-j PARALLEL] [--jitter] [--out DIR] TEST [PYTEST ARGS...]

TEST is a pytest node id, for example
'tests/qemu/test_faults.py::test_fault_kills_only_the_program[jump-page fault]'.
Each run gets its own log directory (TEST_LOGS, read by tests/conftest.py), so parallel runs
of the same test do not overwrite each other's logs; a passing run's directory is removed, a
failing one's is kept as build/test-logs/repeat/RUN/ (--out DIR: DIR/RUN/, so that two loops
can run at once) with pytest's output beside the logs.

Why --jitter: a loaded host rarely changes a guest's timing the way a flaky failure needs.
Stopping each QEMU of these runs now and then for a few milliseconds (SIGSTOP, SIGCONT) is
what a busy machine does to it, only more often: the serial line's input then arrives in
bursts at random points of the guest's execution. A race of the console's echo
(kernel/console.c) fails the fault test 3 times in 600 runs with jitter, none in 450 without.
"""
import argparse, os, random, shutil, signal, subprocess, sys, threading, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "test-logs" / "repeat"


def descendants(pids):
    """Every process below pids (from /proc), so only our own QEMUs are ever stopped."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    found, todo = [], list(pids)
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            found.append(c)
            todo.append(c)
    return found


def is_qemu(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().startswith("qemu-system")
    except OSError:
        return False


def jitter(running, stop):
    rnd = random.Random()
    while not stop.is_set():
        for pid in [p for p in descendants(list(running)) if is_qemu(p)]:
            if rnd.random() < 0.3:
                try:
                    os.kill(pid, signal.SIGSTOP)
                    time.sleep(rnd.uniform(0.005, 0.09))
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
        time.sleep(rnd.uniform(0.005, 0.05))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=100, help="runs (default 100)")
    ap.add_argument("-j", type=int, default=2, help="runs at once (default 2)")
    ap.add_argument("--jitter", action="store_true", help="stop and continue the runs' QEMUs at random")
    ap.add_argument("--out", type=Path, default=OUT, help="where failing runs are kept (default build/test-logs/repeat)")
    ap.add_argument("test")
    ap.add_argument("pytest_args", nargs="*")
    a = ap.parse_args()
    a.out = a.out.resolve()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))     # still stop the runs (finally, below)

    running = {}                  # pid -> run number
    stop = threading.Event()
    if a.jitter:
        threading.Thread(target=jitter, args=(running, stop), daemon=True).start()
    failed, done, started = [], 0, 0
    procs = []
    try:
        while done < a.n:
            while started < a.n and len(procs) < a.j:
                d = a.out / str(started)
                shutil.rmtree(d, ignore_errors=True)
                d.mkdir(parents=True)
                out = open(d / "pytest.txt", "w")
                p = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", a.test]
                                     + a.pytest_args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                     env=dict(os.environ, TEST_LOGS=str(d)))
                out.close()
                procs.append((p, started, d))
                running[p.pid] = started
                started += 1
            time.sleep(0.1)
            for entry in list(procs):
                p, i, d = entry
                if p.poll() is None:
                    continue
                procs.remove(entry)
                running.pop(p.pid, None)
                done += 1
                if p.returncode == 0:
                    shutil.rmtree(d)
                elif p.returncode != 1:          # not a test failure: a usage error, no such test
                    sys.stdout.write((d / "pytest.txt").read_text())
                    sys.exit("repeat_test: pytest stopped with status %d" % p.returncode)
                else:
                    failed.append(i)
                    print("run %d failed (status %d): %s" % (i, p.returncode, os.path.relpath(d)), flush=True)
                if done % 10 == 0:
                    print("%d runs, %d failed" % (done, len(failed)), flush=True)
    finally:
        stop.set()
        for p, _, _ in procs:
            p.terminate()
    print("%d runs, %d failed%s" % (done, len(failed), (": runs " + " ".join(map(str, failed))) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
