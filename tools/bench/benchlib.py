"""What the benchmark scripts (tools/bench/bench_*.py) share: booting a private copy of the image
with commands on the console, one progress line per step, and min/median/max of several runs.

Every benchmark writes its CSV under build/bench, draws its figure beside it as a PNG
(tools/bench/bench_figures.py), and writes nothing else: the tables in docs/results.md change only
through `make results` (tools/bench/results.py), which makes them again from these CSVs."""
import concurrent.futures, datetime, functools, json, os, re, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Every boot goes through the one launcher of QEMU (tools/runqemu.py), as the tests' do.
sys.path.insert(0, os.path.join(ROOT, "tools"))
import runqemu  # noqa: E402
# Where the CSVs, figures and logs go: build/bench, or BENCH_DIR (the test that a benchmark
# leaves the tracked tree alone runs one into a folder of its own).
BENCH = os.environ.get("BENCH_DIR") or os.path.join(ROOT, "build", "bench")


# --- which run a CSV row is ------------------------------------------------------------------------
# Every row a benchmark writes names the run it came from, so a table made of rows of several runs
# (a preset's rows replace only that preset's) can say which code, which QEMU and when: the tree's
# commit (`git describe --always --dirty`, "unknown" outside git), the preset, QEMU's version and
# the UTC date the run began. tests/host/test_bench_identity.py holds every CSV writer to them.
IDENTITY = ["commit", "preset", "qemu_version", "date"]
RUN_COLUMNS = [c for c in IDENTITY if c != "preset"]     # for a CSV that has its preset column already


@functools.lru_cache(maxsize=None)
def tree_commit(root=ROOT):
    """`git describe --always --dirty` of the tree, or "unknown" (no git, not a work tree)."""
    try:
        p = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if p.returncode != 0:
        return "unknown"
    return p.stdout.decode().strip() or "unknown"


def qemu_version_of(text):
    """"QEMU emulator version 7.2.22 (Debian ...)" -> "7.2.22"; "unknown" when it says none."""
    m = re.search(r"version (\d[\w.+~-]*)", text.splitlines()[0] if text.strip() else "")
    return m.group(1) if m else "unknown"


@functools.lru_cache(maxsize=None)
def qemu_version():
    try:
        p = subprocess.run(["qemu-system-i386", "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return qemu_version_of(p.stdout.decode("utf-8", "replace"))


def run_identity(preset, now=None):
    """The IDENTITY columns of a row of a run of preset: the date is now (UTC, ISO 8601, to the
    second), when the caller asks, at the run's start or as it builds the run's row."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return {"commit": tree_commit(), "preset": preset, "qemu_version": qemu_version(),
            "date": now.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def env_preset(names):
    """The preset of a benchmark set by environment variables (RUNS=1 ...): "default" when none
    of names is set, else what is set, "RUNS=1 ROW_MS=1000"."""
    got = ["%s=%s" % (n, os.environ[n]) for n in names if os.environ.get(n)]
    return " ".join(got) or "default"


def identity_cells(ident):
    """The IDENTITY columns' values of ident, in order, for a csv.writer row."""
    return [ident[k] for k in IDENTITY]


class Progress:
    """Prints "bench-NAME [i/n] what (elapsed)" before each step, so a long run shows it lives."""

    def __init__(self, name, steps):
        self.name, self.steps, self.i, self.t0 = name, steps, 0, time.monotonic()

    def step(self, what):
        self.i += 1
        print("%s [%d/%d] %s (%.0f s so far)" % (self.name, self.i, self.steps, what,
                                                 time.monotonic() - self.t0), flush=True)


def private_boot(d, mem, timeout, image=None, **options):
    """A private copy of image (build/fs-pristine.img) in folder d, and the runqemu command line that
    boots build/kernel.elf on it (options: more of runqemu.command's): (the copy's path, the arguments)."""
    img = os.path.join(d, "fs.img")
    subprocess.run(["cp", "--sparse=always", image or os.path.join(ROOT, "build/fs-pristine.img"), img], check=True)
    return img, runqemu.command(kernel=os.path.join(ROOT, "build/kernel.elf"), disk=img, mem=mem, timeout=timeout,
                                **options)


def boot(name, commands, mem=64, icount=False, append="", timeout=1800, check=None):
    """Boots build/kernel.elf on a private copy of build/fs-pristine.img, types commands, and returns
    what the console printed. Exits naming the benchmark if the guest failed or check (a
    string) is missing from the output."""
    with tempfile.TemporaryDirectory() as d:
        _, args = private_boot(d, mem, timeout, icount=True if icount else None, append=append or None)
        p = subprocess.run(args, input=commands.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0 or (check and check not in out):
        sys.exit("%s: the guest failed (exit %d); its console:\n%s" % (name, p.returncode, out[-4000:]))
    return out


# --- a guest held to the host's clock -------------------------------------------------------------
# A benchmark run under -icount with align=on counts on the guest's clock keeping the host's: its
# disk is throttled in the host's time, so a guest second is a disk second only while QEMU keeps up.
# On a loaded host it does not (issue 36: 0.36-0.78 of real time while sort ran), and every wait
# for the disk then looks shorter in guest time than it was. Such a run is refused and booted again,
# and a point whose every boot was too slow is reported as not measured, never as a figure.
#
# How late the guest is, QEMU says itself under align=on ("Warning: The guest is now late by X to
# Y seconds", on its stderr, which boot_steps reads with the console; at most every 2 s, 100 times
# a run): the guest's clock against the host's over the whole run. A benchmark with its own time
# stamps measures its own span instead (bench_ifs.py: sort's guest time over its host time).
# The least guest time per host second a run is taken at. BENCH_GUEST_FLOOR sets another for a try
# on a busy host (every row keeps its guest_ratio, so a table can be read against it).
GUEST_FLOOR = float(os.environ.get("BENCH_GUEST_FLOOR") or 0.95)
PACE_TRIES = 3              # a refused run is booted again twice
TOO_SLOW = "guest too slow: not measured"
TOO_SLOW_RC = 75            # boot_steps' status when every boot was too slow (EX_TEMPFAIL)
LATE = re.compile(r"Warning: The guest is now late by ([\d.]+) to ([\d.]+) seconds")


def late_s(text):
    """The seconds the guest was late at the end by QEMU's last warning (its lower figure: the
    refusal must be sure), 0 without one."""
    got = LATE.findall(text)
    return float(got[-1][0]) if got else 0.0


def whole_run_ratio(text, host_s):
    """The guest's seconds per host second over a run of host_s seconds whose console is text;
    None when the run is too short to say."""
    if not host_s or host_s <= 0:
        return None
    return max(0.0, 1 - late_s(text) / host_s)


# The guest's own clock: the time-stamped samples `vmstat -i` prints ("@UPTIME_MS VALUE..."), which
# the IFS and ECD runs print all along. Their uptime is the kernel's tick count, which QEMU's count
# of lateness does not see: with the host at a load of 3 on 2 cores an idle guest's ticks ran at
# 0.94 of real time while QEMU said it was less than a second late.
STAMP_LINE = re.compile(r"^@(\d+)(?: \d+)+$", re.M)
STAMP_SPAN_MS = 10000       # the least guest span of samples worth a ratio (arrivals come in chunks)


def stamp_ratio(text, arrivals, least_ms=STAMP_SPAN_MS):
    """The guest's milliseconds per host millisecond between the first and the last time-stamped
    sample of the console (their uptimes against when their bytes arrived), or None when there
    are fewer than two or they span less than least_ms of guest time."""
    when = lambda off: next((t for o, t in reversed(arrivals) if o <= off), None)
    pts = [(int(m.group(1)), when(m.start())) for m in STAMP_LINE.finditer(text)]
    pts = [p for p in pts if p[1] is not None]
    if len(pts) < 2 or pts[-1][0] - pts[0][0] < least_ms or pts[-1][1] <= pts[0][1]:
        return None
    return (pts[-1][0] - pts[0][0]) / 1000 / (pts[-1][1] - pts[0][1])


def run_ratio(text, arrivals, host_s):
    """How well a run's guest kept the host's time: the worse of QEMU's count (whole_run_ratio)
    and the guest's own clock (stamp_ratio), None when neither is known."""
    known = [q for q in (whole_run_ratio(text, host_s), stamp_ratio(text, arrivals)) if q is not None]
    return min(known) if known else None


def paced(attempt, ratio, tries=PACE_TRIES, floor=GUEST_FLOOR, say=None):
    """Runs attempt() until its guest kept pace: ratio(result) at least floor, or None (not
    known: taken). At most tries runs. Returns (the result taken or None when every run was
    too slow, [(ratio, result) of each refused run]); say(message) hears each refusal."""
    refused = []
    for k in range(1, tries + 1):
        got = attempt()
        q = ratio(got)
        if q is None or q >= floor:
            return got, refused
        refused.append((q, got))
        if say:
            say("the guest ran at %.2f of real time (under %.2f): run %d of %d refused%s" % (
                q, floor, k, tries, ", booting again" if k < tries else "; " + TOO_SLOW))
    return None, refused


def ready(cond, text):
    """Whether a step's condition (a regex, or a function of the text) holds."""
    return cond(text) if callable(cond) else re.search(cond, text) is not None


def boot_steps(steps, mem=64, icount=None, throttle_bps=None, throttle_iops=None, timeout=1800, log=None,
               align=False, image=None, keep=None, extra=(), cpu_limit=None, pace=None, host_flush=True,
               clock=None):
    """Boots build/kernel.elf on a private copy of image (build/fs-pristine.img) and types each step's text once
    the console, since the step before was typed, matches the step's regex (None: at once; a function of
    that text: once it returns true, for a condition no regex can say, as "a line with a number above N").
    A step's text may be a function of the whole console so far, for commands that depend on
    what the guest printed (a background job's pid). After the last step, end of input: the
    shell exits and the machine powers off. Returns (exit status, console text, the lines typed,
    arrivals), arrivals being (offset in the text, host's monotonic time) of each chunk read.
    log: a file that gets the console as it arrives. Steps run in the guest's order, never on
    host timers. keep: a path that gets the copy as the run left it (a prepared image). extra:
    QEMU's own arguments (the arbiter lab's recording adds -debugcon file:PATH). cpu_limit: runqemu's
    --cpu-limit (seconds of QEMU's CPU time, the guest's work; status 125 when spent).
    host_flush=False: the disk's flushes end in QEMU (runqemu --no-host-flush), for a test
    such as the soak that syncs often and measures no time; a benchmark keeps them.
    clock: kernel.clock on the command line ("tsc" for a paced benchmark: under a slow -icount
    the default clock, a count of the PIT's interrupts, loses the ticks that fall due while
    interrupts are off, kernel/time.c; None leaves the kernel's default).
    pace: for a benchmark whose guest is held to the host's clock (icount with align): True
    refuses a boot whose guest fell below GUEST_FLOOR of real time over the whole run (QEMU's
    own count of how late it is and the guest's time-stamped samples: run_ratio), a function (console, lines typed, arrivals,
    host seconds) -> ratio or None refuses by the benchmark's own measure; a refused boot is
    booted again, PACE_TRIES boots in all, and when every one was too slow the status is
    TOO_SLOW_RC and the console ends with TOO_SLOW and the ratios (see paced)."""
    once = lambda: _boot_once(steps, mem, icount, throttle_bps, throttle_iops, timeout, log, align, image, keep,
                              extra, cpu_limit, host_flush, clock)
    if not pace:
        return once()[:4]
    measure = pace if callable(pace) else lambda out, typed, arrivals, host_s: run_ratio(out, arrivals, host_s)

    def ratio(run):
        rc, out, typed, arrivals, host_s = run
        return measure(out, typed, arrivals, host_s) if rc == 0 else None   # a failed boot is the caller's
    got, ratios = paced(once, ratio, say=lambda m: print("bench: " + m, flush=True))
    if got is None:
        rc, out, typed, arrivals, _ = ratios[-1][1]
        line = "\n%s (the guest at %s of real time in %d boots)\n" % (
            TOO_SLOW, ", ".join("%.2f" % q for q, _ in ratios), len(ratios))
        if log:
            with open(log, "a") as f:
                f.write(line)
        return TOO_SLOW_RC, out + line, typed, arrivals
    return got[:4]


def _boot_once(steps, mem, icount, throttle_bps, throttle_iops, timeout, log, align, image, keep, extra,
               cpu_limit, host_flush=True, clock=None):
    """One boot of boot_steps: (status, console, lines typed, arrivals, the host's seconds of it)."""
    with tempfile.TemporaryDirectory() as d:
        img, args = private_boot(d, mem, timeout, image, icount=None if icount is None else str(icount),
                                 icount_align=align and icount is not None,
                                 throttle_bps=throttle_bps or None, throttle_iops=throttle_iops or None,
                                 extra=extra, cpu_limit=cpu_limit, no_host_flush=not host_flush,
                                 append="kernel.clock=%s" % clock if clock else None)
        t0 = time.monotonic()
        p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        steps, typed, out, mark, arrivals = list(steps), [], bytearray(), 0, []
        f = open(log, "wb") if log else None

        def send(text):
            typed.extend(text.splitlines())
            try:
                p.stdin.write(text.encode())
                p.stdin.flush()
            except OSError:
                pass
        try:
            while True:
                while steps and (steps[0][0] is None or ready(steps[0][0], out[mark:].decode("utf-8", "replace"))):
                    rx, text = steps.pop(0)
                    send(text(out.decode("utf-8", "replace")) if callable(text) else text)
                    mark = len(out)
                    if not steps:
                        p.stdin.close()
                b = p.stdout.read1(65536)
                if not b:
                    break
                arrivals.append((len(out.decode("utf-8", "replace")), time.monotonic()))
                out += b
                if f:
                    f.write(b)
                    f.flush()
            p.wait()
            host_s = time.monotonic() - t0
        finally:
            if f:
                f.close()
            try:
                p.stdin.close()
            except OSError:
                pass
        if keep and p.returncode == 0:
            subprocess.run(["cp", "--sparse=always", img, keep], check=True)
    return p.returncode, out.decode("utf-8", "replace"), typed, arrivals, host_s


class Journal:
    """The finished runs of a benchmark, one JSON line each, written as each run ends (flushed and
    synced), so that a benchmark stopped part way (a session ended, the host rebooted: the full
    `make paper` takes most of a day) loses at most the runs it was in. Started again with
    --resume, it runs only the jobs the journal lacks.

    A line holds the benchmark's context (what its runs depend on beyond the job: the preset and
    its settings, as the caller gives them), the code that measured it (tree_commit), the job and
    its result. --resume keeps a job's latest result of the same context and code, where the
    code is a commit of a clean tree and the result was measured (keep(result) says; a run refused
    as too slow is run again). A run without --resume starts its context afresh: its earlier lines
    go, other contexts' stay (build/bench/journal-NAME.jsonl holds every preset of a benchmark)."""

    def __init__(self, name, context, resume, keep=lambda result: True, code=None):
        self.path = bench_path("journal-%s.jsonl" % name)
        self.context = json.loads(json.dumps(context, sort_keys=True))
        self.code = code or tree_commit()
        self.lock = threading.Lock()
        self.done = {}
        lines = []
        if os.path.exists(self.path):
            with open(self.path) as f:
                for text in f:
                    try:
                        lines.append(json.loads(text))
                    except ValueError:
                        pass            # a line cut short by a stop mid-write
        trusted = resume and self.code != "unknown" and not self.code.endswith("-dirty")
        for e in lines:
            if trusted and e.get("context") == self.context and e.get("code") == self.code and keep(e["result"]):
                self.done[self.key(e["job"])] = e["result"]
        if not resume:
            lines = [e for e in lines if e.get("context") != self.context]
        with open(self.path, "w") as f:
            f.writelines(json.dumps(e, sort_keys=True) + "\n" for e in lines)

    @staticmethod
    def key(job):
        return json.dumps(job, sort_keys=True)

    def result(self, job):
        """The kept result of job (a list or tuple of JSON values), or None."""
        return self.done.get(self.key(list(job)))

    def record(self, job, result):
        line = json.dumps(dict(context=self.context, code=self.code, job=list(job), result=result), sort_keys=True)
        with self.lock, open(self.path, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())


def run_all(name, job, jobs, parallel, failure, journal=None):
    """job(j) for each of jobs, at most parallel at once. Returns the results in the jobs' order
    and the messages of the runs that raised failure (each printed as it comes; the others go
    on). Exits naming the benchmark if every run failed. With a journal, each result is recorded
    as its run ends, and the jobs whose result it kept (--resume) are not run: their results are
    returned in their places."""
    results, failures = [], []
    kept = {}                   # job's index: its result, kept from the journal
    for i, j in enumerate(jobs if journal else ()):
        r = journal.result(j)
        if r is not None:
            kept[i] = r
    if kept:
        print("%s: --resume: %d of %d runs kept from the journal (%s), %d to run"
              % (name, len(kept), len(jobs), os.path.relpath(journal.path), len(jobs) - len(kept)), flush=True)

    def journaled(j):
        r = job(j)
        if journal:
            journal.record(j, r)
        return r

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, parallel)) as ex:
        futures = {i: ex.submit(journaled, j) for i, j in enumerate(jobs) if i not in kept}
        for i in range(len(jobs)):
            if i in kept:
                results.append(kept[i])
                continue
            try:
                results.append(futures[i].result())
            except failure as e:
                failures.append(str(e))
                print("%s: a run failed: %s" % (name, e), flush=True)
    if not results:
        sys.exit("%s: every run failed" % name)
    return results, failures


def spread(values):
    """(min, median, max) of a list of numbers."""
    return min(values), statistics.median(values), max(values)


def bench_path(name):
    os.makedirs(BENCH, exist_ok=True)
    return os.path.join(BENCH, name)
