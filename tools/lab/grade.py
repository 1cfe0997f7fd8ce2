"""make grade POLICY=NAME: grades a replacement policy, as docs/lab-replacement.md states.

1. On the shipped traces (traces/*.trace and *.trace.gz, recorded in the order of use), in the
   simulator (build/tracesim: the very policy file the kernel compiles): the policy must never
   choose a frame it may not (wired, busy, free, out of range, or "none" while there are
   candidates); its faults are compared with MIN's, random's, FIFO's, clock's and LRU's at
   every memory size (the anchors' runs measured once per simulator and trace, and kept in
   build/grade/anchors/).
2. In the kernel (a 16 MB machine booted with vm.policy=NAME): sort of 3 MB (its output must
   equal the host's LC_ALL=C sort of the same input), memhog 24 (checks every word it wrote),
   forktree -e (every shared word checked), vmtest 20 2; then the audit must be clean and the
   VM must hold no more frames than before the workloads (none leaked), and the kernel must
   never have refused the policy's choice (vm.policy_errors: a frame that was not a candidate,
   which the kernel replaces by its oldest page rather than be corrupted). The same boot under
   clock and lru gives the page-ins to compare with (reported, not scored).
3. The kernel's ranking beside the simulator's (--compare, and with every kernel part): the
   session trace's own workload (tools/lab/record_traces.py), untraced, in a 16 MB machine at
   the CPU speed it was traced at, under clock, LRU and FIFO (and the policy, if the kernel has
   it), the VM's frames sampled every second, and once more in 24 MB, where nothing is evicted,
   for its first touches. Side by side: the kernel's page-ins, faults and refaults (faults less
   the first touches) and the simulator's faults and refaults on the session trace at the most
   frames the kernel's VM held (under the penalty the VM takes back from the cache any frame it
   needs, so that is its memory; the report says if the cache took VM pages), both ranked by
   faults, and whether they agree; then the simulator at each of its own sizes and summed.

The score (out of 100), only for a correct policy (an incorrect one scores 0): for each trace,
with F the faults summed over its memory sizes,

    trace score = 100 * (F_random - F) / (F_random - F_MIN), kept within 0..100

the share of the way from random replacement (0: no information) to Belady's MIN (100: the
whole future known) that the policy covers. A trace on which random is within 5 % of MIN
(nearly every fault a first touch) is shown but not scored. The total is the score on the
workstation session (traces/session.trace.gz, minutes of several programs, what Hagmann traced);
the single-program traces (loops, first touches) are scored and shown beside it, not counted
(with --traces and no session, the total is their mean). Where clock and LRU land is measured,
not set by the rule: the handout gives their scores, and what the literature says of them.

    python3 tools/lab/grade.py NAME [--file vm/policy_NAME.c] [--host-only] [--traces T...]
    python3 tools/lab/grade.py --dir DIR [--lab replacement] [--call-limit MS] [--timeout S] [--out D] [--kernel] [--traces T...]

--dir grades a class in one command (make grade DIR=...): DIR holds one directory per student
with the lab's student files (tools/lab/labs.py: for this lab one policy_NAME.c). Each is first
checked for what breaks the rules without running it (an #include of anything but vm/policy.h,
a call to anything a policy may not call: sleep, malloc, printf... every hook runs under the VM
lock), then graded as above, host part only unless --kernel, in a process group of its own,
and a simulator that crashes under it is reported as such. Its time limit is per hook call, in
CPU time (--call-limit, 1000 ms; tools/lab/callwatch.c): a hook that loops is stopped by the
simulator within a second or two of CPU, whatever the machine's load, and the report names the
hook and the trace's reference it looped at ("time limit"); a kernel pass is limited in QEMU's
CPU time (KERNEL_CPU_LIMIT), so a hung kernel is one too, with its ^P dump; --timeout (3,600 s
of wall-clock time, 21,600 with --kernel) is only the backstop for a hook that sleeps. When the submission is done, or given up
on, its whole process group is killed: no simulator of it is left running. Writes OUT/scores.csv (student, file, policy, status,
score, seconds, reason), one line a student, and OUT/STUDENT.txt, the student's report
(OUT: build/grade/DIR's name).

--file: a policy file the tree's build does not have (yet); the simulator is compiled with it
(build/grade/tracesim), and the kernel part is skipped unless the table has NAME. Exit status
0 for a correct policy, 1 for an incorrect one, 2 when grading could not run."""
import argparse, csv, glob, gzip, hashlib, json, os, re, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
# The one launcher of QEMU (tools/runqemu.py), as the tests and the benchmarks boot through.
sys.path.insert(0, os.path.join(ROOT, "tools"))
import runqemu  # noqa: E402
MEM = 16
KERNEL_LINES = ["vmstat vm.frames", "mklines /in 3M 5", "sort -m 256 -o /out /in", "cksum /out",
                "memhog 24", "forktree -e", "vmtest 20 2", "audit",
                "vmstat vm.frames vm.pageins vm.pageouts vm.policy_errors"]
LEAK_SLACK = 8            # frames: the shell's own pages may differ a little
# A kernel pass is limited in the guest's work, QEMU's CPU time (runqemu --cpu-limit, status
# HUNG), not in the wall clock: a loaded host makes a pass slow, never a hung one. A policy's
# hook that never returns hangs the kernel under the VM lock; the ^P dump then says where. The
# wall clock is the backstop for a guest that hangs idle.
KERNEL_CPU_LIMIT = 900
KERNEL_TIMEOUT = 3600
HUNG = 125


def fail(msg):
    print("grade: " + msg)
    sys.exit(2)


def simulator(name, policy_file):
    """The tracesim binary that knows the policy: build/tracesim, or one compiled with the
    file (its struct named policy_NAME)."""
    if not policy_file:
        return os.path.join(BUILD, "tracesim")
    src = sorted(set(glob.glob(os.path.join(ROOT, "tools/lab/tracesim/*.c")) +
                     [os.path.join(ROOT, "tools/lab/tracefile.c"), os.path.join(ROOT, "tools/lab/callwatch.c")] +
                     glob.glob(os.path.join(ROOT, "vm/policy*.c"))) - {os.path.abspath(policy_file)})
    tag = hashlib.sha1(os.path.abspath(policy_file).encode()).hexdigest()[:8]
    out = os.path.join(BUILD, "grade", "tracesim-%s-%s" % (name, tag))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cc = os.environ.get("HOSTCC", "cc")
    r = subprocess.run([cc, "-O2", "-g", "-Wall", "-Wextra", "-Wno-unused-parameter", "-I", ROOT,
                        "-DTRACESIM_EXTRA=policy_%s" % name, "-o", out] + src + [policy_file],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("%s does not compile with the simulator:\n%s" % (policy_file, r.stdout[-3000:]))
    return out


# What a hook's call may take, in CPU time (the simulators' -t; tools/lab/callwatch.c): a call
# takes microseconds, so one that used a second has looped, however loaded the machine.
CALL_LIMIT_MS = 1000
# The simulators' exit status when a hook did not return within it (its line says where).
LOOPED = 3


# The policies every submission is measured against (MIN is the simulator's own, in every run).
ANCHORS = ("clock", "lru", "fifo", "random")
ANCHOR_CACHE = os.path.join(BUILD, "grade", "anchors")


def anchor_cache(trace):
    """Where the anchors' rows and table on trace are kept: named for build/tracesim's bytes and the
    trace's, so a rebuilt simulator (a changed policy file, machine.c) or a trace recorded again is
    measured afresh."""
    h = hashlib.sha1()
    for f in (os.path.join(BUILD, "tracesim"), trace):
        with open(f, "rb") as fh:
            h.update(hashlib.sha1(fh.read()).digest())
    return os.path.join(ANCHOR_CACHE, h.hexdigest()[:16])


def anchors(traces):
    """(CSV rows, table text) of the anchors on traces, from build/tracesim. The anchors' counts
    are the same for every submission (each run a fresh process, the same trace), so they are
    measured once per simulator and trace and kept: a class of thirty is not thirty runs of LRU
    over the session, and a grade costs its own policy's runs."""
    rows, text = [], ""
    for t in traces:
        base = anchor_cache(t)
        if not os.path.exists(base + ".csv"):
            os.makedirs(ANCHOR_CACHE, exist_ok=True)
            tmp = "%s.%d" % (base, os.getpid())
            r = subprocess.run([os.path.join(BUILD, "tracesim"), "-p", ",".join(ANCHORS), "-c", tmp + ".csv", t],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                fail("the anchors could not run on %s:\n%s" % (t, r.stdout[-2000:]))
            with open(tmp + ".txt", "w") as f:
                f.write(r.stdout)
            os.replace(tmp + ".txt", base + ".txt")     # the table first: the CSV says both are there
            os.replace(tmp + ".csv", base + ".csv")
        with open(base + ".csv", newline="") as f:
            rows += list(csv.DictReader(f))
        with open(base + ".txt") as f:
            text += f.read()
    return rows, text


def host_part(sim, name, traces, call_limit_ms=CALL_LIMIT_MS):
    """(correct, problems, {trace: {policy: faults summed over sizes}}, table text): the policy's
    runs (and MIN's) in sim, the anchors' from anchors()."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sim.csv")
        r = subprocess.run([sim, "-p", name, "-t", str(call_limit_ms), "-c", path] + traces,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode == 2:
            fail("the simulator could not run:\n" + r.stdout[-2000:])
        rows = list(csv.DictReader(open(path, newline=""))) if os.path.exists(path) else []
    kept, table = anchors(traces)
    rows += [row for row in kept if row["policy"] not in ("MIN", name)]
    r.stdout = r.stdout + "the anchors (build/tracesim, measured once per simulator and trace):\n" + table
    problems = [l for l in r.stdout.splitlines() if l.startswith("error:")]
    if r.returncode == LOOPED:      # first: the run stopped there
        problems = [l for l in r.stdout.splitlines() if "did not return within" in l] + problems
    sums = {}
    for row in rows:
        if row["faults"] == "error":
            continue
        t = sums.setdefault(row["trace"], {})
        t[row["policy"]] = t.get(row["policy"], 0) + int(row["faults"])
    return r.returncode == 0 and not problems, problems, sums, r.stdout


# A trace on which random replacement is this close to MIN says nothing of a policy (nearly all
# its faults are first touches): it is shown, not scored.
NO_GAP = 0.05
# The traces the total is made of: the workstation session, which stands for what Hagmann traced.
# The others are one program each, loops or first touches; their scores are shown, and the total
# is theirs only when no total trace is graded (--traces).
TOTAL_TRACES = ["session"]


def trace_score(f, fmin, frandom):
    """The share of the way from random replacement (0) to MIN (100) that f covers, within 0..100;
    None where random is within NO_GAP of MIN."""
    if frandom - fmin <= NO_GAP * fmin:
        return None
    return max(0.0, min(100.0, 100.0 * (frandom - f) / (frandom - fmin)))


def boot(policy):
    """Runs KERNEL_LINES under vm.policy=policy on a private image; (statuses, outputs,
    input file bytes, rc)."""
    with tempfile.TemporaryDirectory() as d:
        img = os.path.join(d, "fs.img")
        subprocess.run(["cp", "--sparse=always", os.path.join(BUILD, "fs-pristine.img"), img], check=True)
        args = runqemu.command(kernel=os.path.join(BUILD, "kernel.elf"), disk=img, mem=MEM, timeout=KERNEL_TIMEOUT,
                               append="vm.policy=" + policy, cpu_limit=KERNEL_CPU_LIMIT)
        text = "".join('%s\necho "?=$?"\n' % l for l in KERNEL_LINES)
        p = subprocess.run(args, input=text.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode("utf-8", "replace")
        data = subprocess.run([os.path.join(BUILD, "fsck"), img, "--cat", "/in"], stdout=subprocess.PIPE).stdout
    # The console echoes a typed line after the prompt when the shell reads it ("$ LINE"): a
    # command's output runs from its echo to the echo of its status line (as tests/conftest.py's
    # split_commands reads it), and the status line's from there to the next echo.
    outputs, statuses, pos = [], [], 0
    for line in KERNEL_LINES:
        i = out.find("$ " + line + "\n", pos)
        j = out.find('$ echo "?=$?"\n', i + 1) if i >= 0 else -1
        if i < 0 or j < 0:
            outputs.append("")
            statuses.append(None)
            continue
        outputs.append(out[i + len(line) + 3:j])
        m = re.match(r"\?=(\d+)\n", out[j + len('$ echo "?=$?"\n'):])
        statuses.append(int(m.group(1)) if m else None)
        pos = j + 1
    return statuses, outputs, data, p.returncode, out


def numbers(text):
    """The values `vmstat NAME...` printed: "name value" lines (or bare values, as before)."""
    return [int(x) for x in re.findall(r"^\s*(?:[a-z][\w.]*\s+)?(\d+)\s*$", text, re.M)]


# The kernel's side of the simulator's ranking: the session trace's workload (tools/lab/record_traces.py),
# untraced, in a machine too small for it, under each of these policies, counting its page-ins.
COMPARE = ["clock", "lru", "fifo"]
COMPARE_MEM = 16
COMPARE_TRACE = "session"


# What the kernel pass reads before and after the session's work, in this order.
STAMP = ["vm.pageins", "vm.pageouts", "mem.frames.vm", "vm.faults", "vm.faults.zero", "vm.faults.code",
         "vm.evictions", "neg.fs_asks_vm_satisfied", "neg.vm_asks_fs_satisfied"]
SAMPLE_MS = 1000


def session_run(policy, mem=COMPARE_MEM, scale=100, setup_extra=()):
    """The session's foreground work (the environment and the toucher running behind it) under
    vm.policy=policy, at the CPU speed it was traced at (-icount 6, guest time exact; without
    align, so the host runs it as fast as it can). A sampler (vmstat -i) reads the VM's frames
    every second while the work runs: the VM's share of memory is what the simulator's size
    stands for, and the file cache moves it. Returns ({counter: growth over the work} for STAMP,
    with "frames" the samples of mem.frames.vm and "ms" the work's guest time), console; or
    (None, console)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
    import record_traces as rt
    from benchlib import boot_steps
    x = "" if scale == 100 else "-x %d " % scale
    setup = [l.replace("phase ", "phase " + x) for l in rt.SESSION_SETUP] + list(setup_extra)
    background = [l.replace("phase ", "phase " + x) for l in rt.SESSION_BACKGROUND]
    work = [l.replace("phase ", "phase " + x) for l in rt.session_lines()]
    stamp = "vmstat -n " + " ".join(STAMP)
    sampler = "vmstat -i %d 0 mem.frames.vm &" % SAMPLE_MS

    def finish(out):
        jobs = re.findall(r"^\[(\d+)\]$", out, re.M)
        return "kill %s\n" % " ".join("-" + j for j in jobs)

    steps = [(None, "sysctl vm.policy=%s\n" % policy + "\n".join(setup + background) + "\n"),
             (rt.ENV_READY, "\n".join([sampler, stamp] + work + [stamp, "echo session-done"]) + "\n"),
             (r"\nsession-done\n", finish)]
    rc, out = pass_console("%s-%dmb-x%d" % (policy, mem, scale), steps,
                           lambda: boot_steps(steps, mem=mem, timeout=4 * 3600, icount=rt.SESSION_CPU["icount"],
                                              align=False, cpu_limit=3600))
    got = []
    for m in re.finditer(re.escape(stamp) + r"\n", out):     # its echo: after "$ ", or a job's line
        # its numbers are the next bare numeric lines: a background job may print between them
        nums = re.findall(r"^(\d+)$", out[m.end():m.end() + 4000], re.M)[:len(STAMP)]
        if len(nums) == len(STAMP):
            got.append([int(n) for n in nums])
    if rc != 0 or len(got) != 2:
        return None, out
    r = {k: got[1][i] - got[0][i] for i, k in enumerate(STAMP)}
    # The sampler's lines from the first stamp's echo to the second's: the work's own.
    a = out.find(stamp + "\n")
    b = out.find(stamp + "\n", a + 1)
    samples = [(int(t), int(v)) for t, v in re.findall(r"^@(\d+) (\d+)$", out[a:b], re.M)]
    r["frames"] = [v for _, v in samples] or [got[0][2], got[1][2]]
    r["ms"] = samples[-1][0] - samples[0][0] if len(samples) > 1 else 0
    return r, out


# Kernel passes recorded and replayed (--compare-record DIR, --compare-replay DIR; make
# compare-record records traces/compare/, which test_lab_compare replays): a pass's console is
# all the comparison reads of it, so its parsing, the medians, the side by side and the verdict
# can be checked in seconds on consoles the kernel printed, instead of seven boots each time.
# DIR/passes.json says what each pass typed and when, at which commit and with which kernel it
# was recorded; a replay refuses a recording whose passes typed other commands than today's
# (the workload changed: record again), and says what it replays.
PASSES = {"mode": None, "dir": None, "count": {}, "manifest": None}


def pass_console(key, steps, boot):
    """(exit status, console) of the key'th pass: boot() run (and recorded), or the recording's."""
    n = PASSES["count"][key] = PASSES["count"].get(key, 0) + 1
    name = "%s-%d" % (key, n)
    d = PASSES["dir"]
    static = [l for _, text in steps if not callable(text) for l in text.splitlines()]
    if PASSES["mode"] == "replay":
        m = PASSES["manifest"]
        if name not in m["passes"]:
            fail("%s holds no pass %s (it has %s): make compare-record records them" % (
                d, name, ", ".join(sorted(m["passes"])) or "none"))
        got = m["passes"][name]
        if got["typed"][:len(static)] != static:
            fail("%s is stale: its pass %s typed other commands than the session types today (the workload "
                 "changed since it was recorded): make compare-record records it again" % (d, name))
        with gzip.open(os.path.join(d, name + ".console.gz"), "rt", encoding="utf-8", errors="replace") as f:
            return got["rc"], f.read()
    rc, out, typed, _ = boot()
    if PASSES["mode"] == "record":
        with gzip.open(os.path.join(d, name + ".console.gz"), "wt", encoding="utf-8") as f:
            f.write(out)
        PASSES["manifest"]["passes"][name] = {"rc": rc, "typed": typed}
        with open(os.path.join(d, "passes.json"), "w") as f:
            json.dump(PASSES["manifest"], f, indent=1, sort_keys=True)
            f.write("\n")
    return rc, out


def kernel_id():
    with open(os.path.join(BUILD, "kernel.elf"), "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()[:12]


def passes_from(mode, d):
    """Sets the passes to be recorded in d or replayed from it; the line that says which."""
    PASSES.update(mode=mode, dir=d)
    if mode == "record":
        os.makedirs(d, exist_ok=True)
        for f in glob.glob(os.path.join(d, "*.console.gz")):
            os.unlink(f)
        git = lambda *args: subprocess.run(["git", "-C", ROOT] + list(args), stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL, text=True).stdout.strip()
        commit = git("rev-parse", "--short=12", "HEAD")
        if commit and git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!" + os.path.relpath(d, ROOT)):
            commit += "+changes"        # the tree it ran was not that commit's
        PASSES["manifest"] = {"commit": commit or "unknown", "kernel": kernel_id(),
                              "recorded": time.strftime("%Y-%m-%d", time.gmtime()), "passes": {}}
        return "grade: compare: the kernel passes recorded in %s" % os.path.relpath(d, ROOT)
    try:
        with open(os.path.join(d, "passes.json")) as f:
            PASSES["manifest"] = m = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s has no readable passes.json (%s): make compare-record records the kernel passes" % (d, e))
    today = kernel_id() if os.path.exists(os.path.join(BUILD, "kernel.elf")) else None
    return ("grade: compare: the kernel passes replayed from %s, recorded %s at commit %s with kernel %s (%s); "
            "make compare-record records them again" % (
                os.path.relpath(d, ROOT), m["recorded"], m["commit"], m["kernel"],
                "today's build" if today == m["kernel"] else "today's build is %s" % today))


# Kernel runs of the session under one policy differ in refaults: in nine runs at 16 MB clock
# 3,634 to 3,999, LRU 4,556 to 5,319, FIFO 4,642 to 5,844. So each policy runs COMPARE_RUNS times
# and two whose runs overlap rank level; with one run (--compare-runs 1), two within LEVEL.
LEVEL = 0.05
COMPARE_RUNS = 3


def ranking(counts, level=None):
    """'a < b = c' from {policy: count}, fewest first; level(a, b) says when b, ranked after a,
    is level with it (default: the same count)."""
    items = sorted(counts.items(), key=lambda kv: kv[1])
    out = items[0][0]
    for (p0, c0), (p1, c1) in zip(items, items[1:]):
        out += (" = " if (level(p0, p1) if level else c1 == c0) else " < ") + p1
    return out


def sim_sizes(sim, trace, policies, sizes=None):
    """({frames: {policy: faults}}, the trace's pages) of the simulator on trace at its own sizes
    below its page count, or at the sizes given."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "at.csv")
        subprocess.run([sim, "-p", ",".join(policies), "-c", path] +
                       (["-m", ",".join(map(str, sizes))] if sizes else []) + [trace],
                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        rows = list(csv.DictReader(open(path, newline=""))) if os.path.exists(path) else []
    out, pages = {}, 0
    for r in rows:
        pages = int(r["pages"])
        if r["faults"] != "error" and (sizes or int(r["frames"]) < pages):
            out.setdefault(int(r["frames"]), {})[r["policy"]] = int(r["faults"])
    return out, pages


# The first touches of the session's workload in the kernel: its faults in a machine where the
# VM evicts nothing (the session was traced in 24 MB; in 20 MB its VM peaked at 3,994 frames
# with no eviction). What more a policy faults in COMPARE_MEM are its refaults.
FIRST_TOUCH_MEM = 24


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) // 2


def compare_part(sums, policies, mem=COMPARE_MEM, scale=100, sim=None, traces=(), runs=COMPARE_RUNS):
    """The kernel's ranking of policies on the session's workload beside the simulator's on its
    trace, in the same run, side by side: the simulator at the memory the kernel's VM had (the
    most frames it held: under the penalty the VM takes back from the file cache whatever frame
    the cache picked up from an exiting process, and the cache took none of the VM's pages
    unless the report says so), counting faults the same way on both sides (every fault, and
    the refaults beyond the first touches); then the simulator's own sizes, and its sum. The
    kernel's runs of one policy differ (the background wakes by the clock), so each policy runs
    `runs` times: its median ranks it, and two policies whose runs' refaults overlap rank level.
    Lines."""
    lines = []
    summed = next((s for t, s in sums.items() if t.startswith(COMPARE_TRACE)), None)
    trace = next((t for t in traces if os.path.basename(t).startswith(COMPARE_TRACE + ".")), None)
    kern = {}
    for pol in policies:
        for n in range(runs):
            r, console = session_run(pol, mem, scale)
            if r is None:
                lines.append("grade: compare: the session under %s failed; console tail:\n%s" % (pol, console[-1500:]))
                break
            kern.setdefault(pol, []).append(r)
            print("grade: compare: the session in a %d MB kernel under %s (run %d of %d): %d page-ins, %d faults (%d "
                  "zero fills), %d page-outs; the VM held %d-%d frames (mean %d, sampled every %d ms), the cache took "
                  "%d of its pages, it gave the VM %d; %.0f s of guest time" % (
                      mem, pol, n + 1, runs, r["vm.pageins"], r["vm.faults"], r["vm.faults.zero"], r["vm.pageouts"],
                      min(r["frames"]), max(r["frames"]), sum(r["frames"]) / len(r["frames"]), SAMPLE_MS,
                      r["neg.fs_asks_vm_satisfied"], r["neg.vm_asks_fs_satisfied"], r["ms"] / 1000.0), flush=True)
    first, _ = session_run(policies[0], FIRST_TOUCH_MEM, scale)
    if first is not None:
        print("grade: compare: the session's first touches: %d faults in a %d MB kernel, %d pages evicted%s" % (
            first["vm.faults"], FIRST_TOUCH_MEM, first["vm.evictions"],
            "" if first["vm.evictions"] == 0 else " (not all first touches: refaults below are too few)"), flush=True)
    if any(len(kern.get(p, [])) != runs for p in policies):
        return lines
    med = lambda p, k: median([r[k] for r in kern[p]])
    lines.append("grade: compare: kernel, the session's workload in %d MB (page-ins, median of %d): %s; %s" % (
        mem, runs, ", ".join("%s %d" % (p, med(p, "vm.pageins")) for p in policies),
        ranking({p: med(p, "vm.pageins") for p in policies})))
    vm = max(max(r["frames"]) for rs in kern.values() for r in rs)
    at, pages = sim_sizes(sim, trace, policies, [vm]) if trace and sim else ({}, 0)
    at = at.get(vm, {})
    if all(p in at for p in policies):
        kf = {p: med(p, "vm.faults") for p in policies}
        sf = {p: at[p] for p in policies}
        ft = first["vm.faults"] if first is not None else 0
        lo = {p: min(r["vm.faults"] for r in kern[p]) - ft for p in policies}
        hi = {p: max(r["vm.faults"] for r in kern[p]) - ft for p in policies}
        took = sum(r["neg.fs_asks_vm_satisfied"] for rs in kern.values() for r in rs)
        lines.append("grade: compare: side by side at the kernel VM's memory, %d frames (the most it held; the "
                     "cache took %s of its pages); the kernel's medians of %d runs, its refaults' range:" % (
                         vm, took if took else "none", runs))
        lines.append("grade: compare:   %-10s %16s %16s %16s %16s %18s %18s" % (
            "policy", "kernel page-ins", "kernel faults", "kernel refaults", "(runs)", "simulator faults",
            "simulator refaults"))
        for p in policies:
            lines.append("grade: compare:   %-10s %16d %16d %16d %16s %18d %18d" % (
                p, med(p, "vm.pageins"), kf[p], kf[p] - ft, "%d-%d" % (lo[p], hi[p]), sf[p], sf[p] - pages))
        lines.append("grade: compare:   first touches: kernel %s (%d MB, nothing evicted), simulator %d (the "
                     "trace's pages)" % (ft if first is not None else "-", FIRST_TOUCH_MEM, pages))
        # Two policies whose kernel runs overlap (or, with one run, lie within LEVEL) are one rank.
        apart = lambda a, b: lo[b] > hi[a] and (runs > 1 or hi[b] - hi[a] > LEVEL * max(hi[a], 0))
        korder = ranking(kf, lambda a, b: not apart(a, b))
        sorder = ranking(sf)
        same = all(sf[a] < sf[b] for a in policies for b in policies if apart(a, b))
        lines.append("grade: compare: kernel (median faults; level where its runs overlap): %s; simulator at %d "
                     "frames: %s; they %s" % (korder, vm, sorder, "agree" if same else
                                              "disagree (docs/lab-replacement.md says where and why)"))
        lines.append(which_grade(same))
    sizes, _ = sim_sizes(sim, trace, policies) if trace and sim else ({}, 0)
    sizes = {f: s for f, s in sizes.items() if all(p in s for p in policies)}
    if sizes:
        lines.append("grade: compare: simulator, %s trace, size by size: %s" % (COMPARE_TRACE, "; ".join(
            "%d frames %s" % (f, ranking({p: s[p] for p in policies})) for f, s in sorted(sizes.items()))))
    if summed and all(p in summed for p in policies):
        lines.append("grade: compare: simulator, %s trace, faults summed over its sizes: %s; %s" % (
            COMPARE_TRACE, ", ".join("%s %d" % (p, summed[p]) for p in policies),
            ranking({p: summed[p] for p in policies})))
    if sizes:
        order = sorted(policies, key=lambda p: med(p, "vm.faults"))
        same = [f for f, s in sorted(sizes.items()) if sorted(policies, key=lambda p: s[p]) == order]
        lines.append("grade: compare: the kernel's order (%s) is the simulator's at %d of %d sizes%s" % (
            " < ".join(order), len(same), len(sizes), " (%s frames)" % ", ".join(map(str, same)) if same else ""))
    return lines


def which_grade(agree):
    """The line that says, beside the kernel's ranking and the simulator's, which one is the grade."""
    if agree:
        return ("grade: compare: the grade is the simulator's score; the kernel's ranking agrees with it and is "
                "reported, not scored")
    return ("grade: compare: the rankings disagree; the grade is the simulator's score, not the kernel's ranking: the "
            "simulator replays the same references for every policy, so its counts repeat exactly and differ only "
            "by the policy's choices, where the kernel's runs differ from run to run with the background's timing "
            "and its VM's memory moves with the file cache; the kernel's ranking is reported, not scored")


def kernel_part(name):
    """(correct, problems, page-ins under name, clock, lru)."""
    problems, pageins = [], {}
    for pol in [name] + [p for p in ("clock", "lru") if p != name]:
        statuses, outs, data, rc, console = boot(pol)
        if pol != name:
            n = numbers(outs[-1])
            pageins[pol] = n[1] if len(n) >= 2 else None
            continue
        if rc == HUNG:
            dump = console.find("--- ^P dump")
            problems.append("kernel: the machine hung under the policy: %d s of QEMU's CPU time and the workloads "
                            "not done (a hook that never returns, under the VM lock); where the kernel was (its "
                            "^P dump, or the console's end):\n%s" % (KERNEL_CPU_LIMIT,
                                                                     console[dump:] if dump >= 0 else console[-3000:]))
            continue
        if rc != 0 or statuses != [0] * len(KERNEL_LINES):
            problems.append("kernel: a workload failed (exit %d, statuses %s); console tail:\n%s"
                            % (rc, statuses, console[-1500:]))
            continue
        want = subprocess.run("LC_ALL=C sort | cksum", shell=True, input=data, stdout=subprocess.PIPE).stdout.split()
        got = outs[3].split()
        if not want or got[:2] != [w.decode() for w in want[:2]]:
            problems.append("kernel: sort's output differs from the host's (cksum %s, want %s)" % (got[:2], want[:2]))
        if "memhog: 24 MB ok" not in outs[4]:
            problems.append("kernel: memhog found wrong words: " + outs[4].strip()[-300:])
        if not re.search(r"forktree: \d+ processes, 0 bad", outs[5]):
            problems.append("kernel: forktree found wrong words: " + outs[5].strip()[-300:])
        if "audit: ok" not in outs[7]:
            problems.append("kernel: the audit found problems: " + outs[7].strip()[-500:])
        before, after = numbers(outs[0]), numbers(outs[-1])
        if not before or len(after) < 4:
            problems.append("kernel: could not read the counters")
        else:
            if after[0] > before[0] + LEAK_SLACK:
                problems.append("kernel: frames leaked: the VM held %d frames before the workloads, %d after"
                                % (before[0], after[0]))
            pageins[pol] = after[1]
            if after[3:] and after[3] != 0:
                problems.append("kernel: the policy chose %d frames that were not candidates "
                                "(vm.policy_errors; the console names the first)" % after[3])
    return not problems, problems, pageins


def rule_breaks(lab, path):
    """What breaks the lab's rules in a student file, found without running it: [(status, why)]."""
    text = open(path, errors="replace").read()
    out = []
    for inc in re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', text, re.M):
        if inc != lab.allowed_include:
            out.append(("rule broken", "includes %s: %s includes nothing but %s (the host compiles the very "
                        "same file, and nothing else is safe under %s)" % (inc, lab.noun, lab.allowed_include, lab.lock)))
    with tempfile.TemporaryDirectory() as d:
        obj = os.path.join(d, "p.o")
        cc = os.environ.get("HOSTCC", "cc")
        r = subprocess.run([cc, "-O2", "-c", "-I", ROOT, "-o", obj, path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            return out + [("does not compile", r.stdout.strip()[-1500:])]
        syms = subprocess.run(["nm", "-u", obj], stdout=subprocess.PIPE, text=True).stdout.split()
    for sym in sorted(set(x for x in syms if x != "U")):
        if not lab.allowed_symbols(sym):
            out.append(("rule broken", "calls %s, which %s may not: %s" % (sym, lab.noun, lab.call_rule)))
    return out


def grade_one(lab, path, timeout, host_only, traces, call_limit_ms=CALL_LIMIT_MS):
    """(status, score, seconds, reason, report text) of one submission, graded in a process group of
    its own. A hook that loops is stopped by the simulator, per call in CPU time (call_limit_ms);
    timeout, in wall-clock seconds, is only the backstop for one that sleeps or waits, and the
    whole group is killed then, so that no simulator of it is left running."""
    t0 = time.monotonic()
    argv = lab.grade_command(sys.executable, path, host_only, call_limit_ms) + (["--traces"] + traces if traces else [])
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    RUNNING.add(p.pid)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(p.pid)
        out, _ = p.communicate()
        return ("time limit", 0, time.monotonic() - t0,
                "not done in %d s of wall-clock time: a policy that sleeps or waits (its hooks run under the VM lock "
                "and must return at once)" % timeout, out)
    finally:
        kill_group(p.pid)           # whatever it left behind (a simulator's run in its group)
        RUNNING.discard(p.pid)
    secs = time.monotonic() - t0
    looped = re.search(r"^(?:tracesim|arbitersim): .* did not return within .*$", out, re.M)
    if looped:
        return "time limit", 0, secs, looped.group(0), out
    hung = re.search(r"^grade: INCORRECT: (kernel: the (?:machine|guest) hung.*)$", out, re.M)
    if hung:
        return "time limit", 0, secs, hung.group(1), out
    final = re.search(r"^grade: \S+: (correct|incorrect), score (\d+)/100$", out, re.M)
    if p.returncode == 0 and final:
        return "correct", int(final.group(2)), secs, "", out
    if p.returncode == 1 and final:
        why = re.findall(r"^grade: INCORRECT: (.*)$", out, re.M)
        return "incorrect", 0, secs, why[0] if why else "", out
    died = re.search(r"(?:tracesim|arbitersim): the run of .*? died[^\n]*", out)
    if died:
        return "crashed the simulator", 0, secs, died.group(0), out
    last = [l for l in out.splitlines() if l.strip()]
    return "could not grade", 0, secs, last[-1] if last else "exit %d" % p.returncode, out


# The process groups of the submissions being graded: killed if the grader itself is stopped
# (^C, a kill, a test's time limit), so that none of them outlives it.
RUNNING = set()


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all(signum, frame):
    for pgid in list(RUNNING):
        kill_group(pgid)
    sys.exit(128 + signum)


def grade_dir(lab, folder, out_dir, timeout, host_only, traces, call_limit_ms=CALL_LIMIT_MS):
    """Grades every student of folder; writes out_dir/scores.csv and a report each; returns the rows."""
    students = sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))
    if not students:
        fail("%s holds no student directories (one per student, with %s)" % (folder, lab.student_glob))
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for st in students:
        files = sorted(glob.glob(os.path.join(folder, st, lab.student_glob)))
        row = dict(student=st, file="", policy="", status="", score=0, seconds="0.0", reason="")
        report = []
        if len(files) != 1:
            row.update(status="no submission", reason="%d files match %s (one is wanted)" % (len(files), lab.student_glob))
            report.append("grade: %s: no submission, score 0/100: %s" % (st, row["reason"]))
        else:
            path = os.path.abspath(files[0])
            prefix = lab.student_glob.split("*")[0]
            name = os.path.basename(path)[len(prefix):-2]
            row.update(file=os.path.relpath(path, folder), policy=name)
            breaks = [] if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else \
                [("rule broken", "the file's name must be %sNAME.c, NAME lowercase letters, digits and _" % prefix)]
            breaks = breaks or rule_breaks(lab, path)
            if breaks:
                row.update(status=breaks[0][0], reason="; ".join(w for _, w in breaks))
                report.append("grade: %s: %s, score 0/100" % (name, breaks[0][0]))
                report += ["grade: %s" % w for _, w in breaks]
            else:
                status, score, secs, reason, out = grade_one(lab, path, timeout, host_only, traces, call_limit_ms)
                row.update(status=status, score=score, seconds="%.1f" % secs, reason=reason)
                report.append(out)
                if status not in ("correct", "incorrect"):
                    report.append("grade: %s: %s, score 0/100: %s" % (name, status, reason))
        with open(os.path.join(out_dir, st + ".txt"), "w") as f:
            f.write("\n".join(report).rstrip("\n") + "\n")
        rows.append(row)
        print("grade: %-16s %-20s %-22s %3s  %s" % (st, row["policy"], row["status"], row["score"], row["reason"]),
              flush=True)
    with open(os.path.join(out_dir, "scores.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("grade: %d students: %s, reports beside it" % (len(rows), os.path.relpath(os.path.join(out_dir, "scores.csv"))))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("policy", nargs="?")
    ap.add_argument("--dir", help="grade every student directory in DIR")
    ap.add_argument("--lab", default="replacement", help="with --dir: the lab (tools/lab/labs.py)")
    ap.add_argument("--timeout", type=int,
                    help="with --dir: wall-clock seconds per student, the backstop for a hook that sleeps "
                    "(3600; with --kernel 21600: the kernel passes are limited in CPU time themselves)")
    ap.add_argument("--call-limit", type=int, default=CALL_LIMIT_MS,
                    help="CPU ms a hook's call may take in the simulator (a hook that loops is stopped there)")
    ap.add_argument("--out", help="with --dir: where scores.csv and the reports go")
    ap.add_argument("--kernel", action="store_true", help="with --dir: the kernel part too, for policies in the table")
    ap.add_argument("--file", help="the policy's file, when the tree's build does not have it yet")
    ap.add_argument("--host-only", action="store_true", help="only the traces (no QEMU)")
    ap.add_argument("--compare", action="store_true",
                    help="only the simulator and the kernel's ranking of clock, lru and fifo on the session")
    ap.add_argument("--compare-mem", type=int, default=COMPARE_MEM, help="MB of the kernel's machine for --compare")
    ap.add_argument("--compare-scale", type=int, default=100, help="the session's phases scaled (phase -x): tests")
    ap.add_argument("--compare-runs", type=int, default=COMPARE_RUNS, help="kernel runs of each policy for --compare")
    ap.add_argument("--compare-record", metavar="DIR", help="with --compare: record the kernel passes' consoles in DIR")
    ap.add_argument("--compare-replay", metavar="DIR", help="with --compare: replay the kernel passes recorded in DIR")
    ap.add_argument("--traces", nargs="*", help="default: traces/*.trace")
    a = ap.parse_args()
    if (a.compare_record or a.compare_replay) and not (a.compare and not (a.compare_record and a.compare_replay)):
        fail("--compare-record DIR or --compare-replay DIR (one of them) goes with --compare")
    if a.dir:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import labs
        if a.lab not in labs.LABS:
            fail("no lab named %s (%s)" % (a.lab, ", ".join(labs.LABS)))
        if not os.path.isdir(a.dir):
            fail("%s is not a directory" % a.dir)
        out = a.out or os.path.join(BUILD, "grade", os.path.basename(os.path.normpath(a.dir)))
        signal.signal(signal.SIGTERM, stop_all)
        signal.signal(signal.SIGINT, stop_all)
        timeout = a.timeout or (21600 if a.kernel else 3600)
        grade_dir(labs.LABS[a.lab], a.dir, out, timeout, not a.kernel, a.traces, a.call_limit)
        sys.exit(0)
    if not a.policy:
        fail("give a policy NAME, or --dir DIR")
    name = a.policy
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        fail("a policy name is lowercase letters, digits and _: %r" % name)
    traces = a.traces or sorted(glob.glob(os.path.join(ROOT, "traces", "*.trace")) +
                                glob.glob(os.path.join(ROOT, "traces", "*.trace.gz")))
    if not traces:
        fail("no traces (make traces records them)")
    if not os.path.exists(os.path.join(BUILD, "tracesim")):
        fail("build/tracesim is missing: run make first")
    listed = subprocess.run([os.path.join(BUILD, "tracesim"), "-p", name, "-m", "4", traces[0]],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT).returncode != 2
    if not listed and not a.file:
        guess = os.path.join(ROOT, "vm", "policy_%s.c" % name)
        if not os.path.exists(guess):
            fail("no policy %s in build/tracesim, and no %s: give --file" % (name, os.path.relpath(guess, ROOT)))
        a.file = guess
    sim = simulator(name, a.file if a.file and not listed else None)

    print("grade: %s on %d traces (simulator)" % (name, len(traces)))
    ok, problems, sums, table = host_part(sim, name, traces, a.call_limit)
    print(table, end="")
    scores, total = [], []
    anchors = [p for p in ("random", "fifo", "clock", "lru") if p != name]
    print("%-16s %10s %s %10s %8s" % ("trace", "MIN", " ".join("%10s" % p for p in anchors), name, "score"))
    for t, s in sums.items():
        if name not in s:
            continue
        sc = trace_score(s[name], s["MIN"], s["random"])
        if sc is not None:
            scores.append(sc)
            if any(t.split(".")[0] == x for x in TOTAL_TRACES):
                total.append(sc)
        print("%-16s %10d %s %10d %8s" % (t, s["MIN"], " ".join("%10d" % s[p] for p in anchors), s[name],
                                          "%.0f" % sc if sc is not None else "-"))
    if sums and not scores:
        print("grade: no trace scored: random is within %d %% of MIN on all of them" % (100 * NO_GAP))
    if total:
        print("grade: the total is the score on %s; the other traces' are shown, not counted" % ", ".join(TOTAL_TRACES))
        scores = total

    kernel_ok, kproblems, pageins = True, [], {}
    if a.compare:
        pols = COMPARE + ([name] if listed and name not in COMPARE else [])
        print("grade: the kernel's ranking beside the simulator's: %s" % ", ".join(pols), flush=True)
        if a.compare_record or a.compare_replay:
            print(passes_from("record" if a.compare_record else "replay", a.compare_record or a.compare_replay))
        for line in compare_part(sums, pols, a.compare_mem, a.compare_scale, sim, traces, max(1, a.compare_runs)):
            print(line)
        sys.exit(0 if ok else 1)
    if a.host_only:
        print("grade: kernel part skipped (--host-only)")
    elif not listed:
        print("grade: kernel part skipped: %s is not in the tree's build yet (a vm/policy_NAME.c with its POLICY line, then make)" % name)
    else:
        if not os.path.exists(os.path.join(BUILD, "kernel.elf")):
            fail("build/kernel.elf is missing: run make first")
        print("grade: %s in the kernel (%d MB): %s" % (name, MEM, "; ".join(KERNEL_LINES[1:-1])))
        kernel_ok, kproblems, pageins = kernel_part(name)
        if pageins:
            print("grade: kernel page-ins: " + ", ".join("%s %s" % kv for kv in pageins.items()))
        pols = COMPARE + ([name] if name not in COMPARE else [])
        print("grade: the kernel's ranking beside the simulator's: %s" % ", ".join(pols), flush=True)
        for line in compare_part(sums, pols, sim=sim, traces=traces):
            print(line)
    correct = ok and kernel_ok
    for p in problems[:3]:
        print("grade: INCORRECT: " + p)
    if len(problems) > 3:
        print("grade: INCORRECT: ... and %d more like these in the simulator" % (len(problems) - 3))
    for p in kproblems:
        print("grade: INCORRECT: " + p)
    score = round(sum(scores) / len(scores)) if scores and correct else 0
    print("grade: %s: %s, score %d/100" % (name, "correct" if correct else "incorrect", score))
    sys.exit(0 if correct else 1)


if __name__ == "__main__":
    main()
