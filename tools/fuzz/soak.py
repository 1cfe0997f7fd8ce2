#!/usr/bin/env python3
"""make soak DURATION=SECONDS: one machine under every workload at once for a while, then the
checks that a long run must pass.

WHY. Each test boots a fresh machine for seconds; bugs that need hours of mixed load (a frame
lost on one error path in ten thousand, a backing block never given back, a disk block leaked
by a rename racing an unlink, a wait that misses its wakeup once in a million) never show
there. A soak runs everything together for as long as it is given and then asks whether the
kernel is still whole.

WHAT RUNS. One machine (64 MB, the default image). After a baseline (sync, vmstat, sysctl -a),
the IFS mix's interactive program, the toucher (user/toucher.c), holds memory in the
background and touches it every second for the whole run. Then rounds, each four jobs at once
in the background, each ending with a marker line "soak: ROUND JOB STATUS":
  sort     mklines makes a file, sort sorts it through temporary files (the IFS mix's file
           cache work), the files removed;
  fuzz     sysfuzz (user/sysfuzz.c) with a new seed each round, 3 processes;
  forktree fork trees that exec at the leaves and check every shared word (COW-COR);
  fsstress files created, rewritten and deleted in a directory, then removed.
The next round is typed once every job of the round before has printed its marker (the
order is the guest's: the host only looks at the clock to decide whether to start another
round). When DURATION has passed, or the number of rounds asked for (--rounds) has run, the
toucher is killed and the end is checked. make test's short soak counts rounds, not seconds:
the same work on any host, where a loaded one would run fewer rounds in its seconds.

WHAT IS CHECKED. No panic and no hang (every round ends; the machine powers off cleanly);
every job's status 0, and no process of a workload killed by a fault; the VM audit clean;
free frames (free + cache), the VM's frames and backing blocks, the kernel's frames, free disk
blocks and descriptors back to the baseline (after a sync); no setting changed; and the
image clean to the host's fsck. Progress is one line per round; the summary ends with PASS
or FAIL and the exit status says the same. The console goes to build/soak.log.

    python3 tools/fuzz/soak.py [--duration SECONDS] [--rounds N] [--mem MB] [--calls N] [--log FILE]
"""
import argparse, os, re, subprocess, sys, tempfile, time

# benchlib boots a private copy of the image, as the benchmarks do (tools/bench/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
import benchlib  # noqa: E402

ROOT = benchlib.ROOT
TOUCHER_MB = 8


def round_line(n, calls):
    seed = 1000 + n
    jobs = [
        ("sort", "mklines /tmp/soak.in%d 192K %d; sort -o /tmp/soak.out%d /tmp/soak.in%d; "
                 "rm /tmp/soak.in%d /tmp/soak.out%d" % (n, seed, n, n, n, n)),
        ("fuzz", "sysfuzz %d %d" % (seed, calls)),
        ("forktree", "forktree -e -o -k 32"),
        ("fsstress", "fsstress /tmp/soak.fs%d 24 %d; rm -r /tmp/soak.fs%d" % (n, seed, n)),
    ]
    # sh -c so that each job's status is its own: the marker's $? is the job's last command's
    return " & ".join("sh -c '%s; echo \"soak: %d %s $?\"'" % (cmd, n, name) for name, cmd in jobs) + " &\n"


def round_done(n):
    """A regex that matches once every job of round n printed its marker (not the echo of
    the typed line, whose markers end in a literal $?)."""
    return "(?s)" + "".join(r"(?=.*soak: %d %s \d+)" % (n, j) for j in ("sort", "fuzz", "forktree", "fsstress"))


FINAL = "sleep 1\nsync\nvmstat\nsysctl -a\naudit\nps\npoweroff\n"


def vmstat(text):
    return {k: int(v) for k, v in re.findall(r"^([a-z][\w.]*) (\d+)$", text, re.M)}


def settings(text):
    rows = dict(re.findall(r"^(\S+)=(\S+)", text, re.M))
    rows.pop("vm.pageout", None)
    return rows


def between(out, start, end):
    i = out.find(start)
    if i < 0:
        return ""
    j = out.find(end, i + len(start))
    return out[i + len(start): j if j >= 0 else len(out)]


def check(out, rc, rounds, img):
    """The failures found, as one line each (an empty list: the soak passed)."""
    bad = []
    if rc != 0:
        bad.append("the machine did not power off cleanly (runqemu exit %d)" % rc)
    for word in ("panic", "kernel trap"):
        if word in out:
            bad.append("the console says %r" % word)
    for n in range(1, rounds + 1):
        for job in ("sort", "fuzz", "forktree", "fsstress"):
            m = re.search(r"^soak: %d %s (\d+)$" % (n, job), out, re.M)
            if not m:
                bad.append("round %d: %s never ended" % (n, job))
            elif m.group(1) != "0":
                bad.append("round %d: %s exited with status %s" % (n, job, m.group(1)))
    killed = [l for l in re.findall(r"^pid \d+ \((\w+)\) killed: .*$", out, re.M)]
    for name in set(killed):
        if name in ("sysfuzz", "forktree", "sort", "mklines", "fsstress", "sh", "rm"):
            bad.append("a %s process was killed by a fault" % name)
    # the baseline's vmstat and sysctl -a, then the end's
    base_v = vmstat(between(out, "$ vmstat\n", "$ sysctl -a\n"))
    tail = out[out.rfind("$ sync\n"):] if "$ sync\n" in out else ""
    end_v = vmstat(between(tail, "$ vmstat\n", "$ sysctl -a\n"))
    if not base_v or not end_v:
        bad.append("no vmstat at the start or the end")
    else:
        free = lambda c: c["mem.frames.free"] + c["mem.frames.cache"]
        if abs(free(end_v) - free(base_v)) > 16:
            bad.append("free frames (free + cache) %d at the start, %d at the end" % (free(base_v), free(end_v)))
        if abs(end_v["vm.frames"] - base_v["vm.frames"]) > 16:
            bad.append("vm.frames %d at the start, %d at the end" % (base_v["vm.frames"], end_v["vm.frames"]))
        for k in ("vm.swap.blocks", "mem.frames.kernel", "fs.disk.blocks.free", "fs.disk.descriptors.free"):
            if end_v.get(k) != base_v.get(k):
                bad.append("%s %s at the start, %s at the end" % (k, base_v.get(k), end_v.get(k)))
    m = re.search(r"^(?:\$ )?kill (\d+)\n(.*?)^\$ ", out, re.M | re.S)
    if not m or m.group(1) == "0" or m.group(2).strip():
        bad.append("the toucher did not live to the end: %r" % (m.group(0)[:200] if m else None))
    base_s = settings(between(out, "$ sysctl -a\n", "$ "))
    end_s = settings(between(tail, "$ sysctl -a\n", "$ "))
    if not base_s or base_s != end_s:
        bad.append("settings changed: %s" % sorted(set(end_s.items()) ^ set(base_s.items())))
    if "audit: ok" not in between(tail, "$ audit\n", "$ "):
        bad.append("the audit is not clean: %r" % between(tail, "$ audit\n", "$ ")[:300])
    p = subprocess.run([os.path.join(ROOT, "build/fsck"), img], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    fsck_out = p.stdout.decode("utf-8", "replace").strip()
    if p.returncode != 0:
        bad.append("fsck: %s" % fsck_out[-500:])
    return bad, base_v, end_v, fsck_out


def soak(duration=None, mem=64, calls=2000, log=None, rounds=None):
    """Soaks until duration seconds have passed or rounds rounds have run, whichever is first
    (either may be None, not both); returns (status, console, rounds run)."""
    assert duration is not None or rounds is not None
    log = log or os.path.join(ROOT, "build", "soak.log")
    t0 = time.monotonic()
    state = {"rounds": 0, "done": False}

    def next_round(n):
        def text(out):
            if state["done"]:
                return ""
            if n > 1:
                print("soak: round %d done (%.0f s)" % (n - 1, time.monotonic() - t0), flush=True)
            if (duration is not None and time.monotonic() - t0 >= duration) or n == last:
                state["done"] = True
                return "kill %s\n%s" % (toucher_pid(out), FINAL)
            state["rounds"] = n
            return round_line(n, calls)
        return text

    def toucher_pid(out):
        m = re.search(r"^\[(\d+)\]\s*$", between(out, "$ toucher", "$ "), re.M)
        return m.group(1) if m else "0"

    start = "sync\nvmstat\nsysctl -a\ntoucher -m %d -s 1 -n 1000000 -q &\n" % TOUCHER_MB
    # The first round goes once the toucher is started; each later one (or the end) once
    # every job of the round before has printed its marker. More steps than rounds can run
    # (a round takes about a second; ten a second are allowed for), and the last step ends
    # the run whatever the time, so that input never runs out before the end is sent.
    max_rounds = rounds if rounds is not None else 10 * int(duration) + 2
    last = max_rounds + 1
    steps = [(None, start), (r"\[\d+\]", next_round(1))]
    steps += [(round_done(n - 1), next_round(n)) for n in range(2, max_rounds + 2)]
    length = " or ".join(([] if duration is None else ["%d s" % duration]) +
                         ([] if rounds is None else ["%d rounds" % rounds]))
    print("soak: %s of sort, sysfuzz (%d calls x 3 processes a round), forktree and fsstress "
          "beside a %d MB toucher, in %d MB; console in %s" % (length, calls, TOUCHER_MB, mem,
                                                              os.path.relpath(log)), flush=True)
    with tempfile.TemporaryDirectory() as d:
        keep = os.path.join(d, "after.img")
        # the backstop for a hang: the duration, or a generous 30 s a round (one takes about 1)
        limit = (duration if duration is not None else 30 * rounds) + 600
        # No host syncs: the soak's fsyncs (about 100 a second) only slowed the guests beside it,
        # and its image is checked after QEMU has exited cleanly.
        rc, out, typed, _ = benchlib.boot_steps(steps, mem=mem, timeout=limit, log=log, keep=keep, host_flush=False)
        img = keep if os.path.exists(keep) else None
        if img is None:
            bad, base_v, end_v, fsck_out = ["the machine did not power off cleanly (runqemu exit %d)" % rc], {}, {}, ""
        else:
            bad, base_v, end_v, fsck_out = check(out, rc, state["rounds"], img)
    elapsed = time.monotonic() - t0
    fuzzed = sum(int(x) for x in re.findall(r"^sysfuzz: (\d+) calls, ", out, re.M))
    forktrees = len(re.findall(r"^forktree: \d+ processes, 0 bad$", out, re.M))
    print("soak: %d rounds in %.0f s: %d fuzzed calls, %d sorts, %d fork trees, %d fsstress runs; toucher beside" %
          (state["rounds"], elapsed, fuzzed, state["rounds"], forktrees, state["rounds"]))
    if base_v and end_v:
        print("soak: free frames %d -> %d, vm.swap.blocks %d -> %d, disk blocks free %d -> %d; %s" %
              (base_v["mem.frames.free"] + base_v["mem.frames.cache"], end_v["mem.frames.free"] + end_v["mem.frames.cache"],
               base_v["vm.swap.blocks"], end_v["vm.swap.blocks"], base_v["fs.disk.blocks.free"],
               end_v["fs.disk.blocks.free"], fsck_out))
    for b in bad:
        print("soak: FAIL: %s" % b)
    print("soak: %s" % ("PASS" if not bad and state["rounds"] > 0 else "FAIL"), flush=True)
    return (0 if not bad and state["rounds"] > 0 else 1), out, state["rounds"]


def main():
    ap = argparse.ArgumentParser(description="make soak: every workload at once for a while, then the checks")
    ap.add_argument("--duration", type=float, default=None, help="seconds of load (default 600, "
                    "unless --rounds is given)")
    ap.add_argument("--rounds", type=int, default=None, help="stop after this many rounds (default: "
                    "as many as the duration allows)")
    ap.add_argument("--mem", type=int, default=64, help="MB of guest memory (default 64)")
    ap.add_argument("--calls", type=int, default=2000, help="sysfuzz calls per process a round (default 2000)")
    ap.add_argument("--log", help="the console log (default build/soak.log)")
    a = ap.parse_args()
    if a.duration is None and a.rounds is None:
        a.duration = 600
    rc, _, _ = soak(a.duration, a.mem, a.calls, a.log, a.rounds)
    sys.exit(rc)


if __name__ == "__main__":
    main()
