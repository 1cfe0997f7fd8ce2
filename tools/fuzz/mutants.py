#!/usr/bin/env python3
"""Plants known bugs one at a time and runs the suite against each: does a test notice?

    python3 tools/fuzz/mutants.py [-j N] [--only ID,...] [--area AREA,...] [--list]
    make mutants MUTANTS_ARGS='--area cache -j 2'

The bugs are the catalog, tests/mutants/catalog.txt: each entry names a C function (`in:`,
found wherever it is defined, so a function moved to another file keeps its bug) or a source
file, an exact piece of text that occurs there exactly once, and what to put instead (its
format is at the top of that file). A suite that only shows that things work when nothing is wrong passes on most of
them; the aim is one that fails on every one.

How a verdict is reached, and why:
  - The tree's files (git ls-files, tracked and untracked but not ignored) are copied to a
    temporary directory and built there once: the template. Each mutant gets a copy of the
    built template with its one change, so make rebuilds only what the change touches, and the
    working tree is never modified.
  - The unmutated template first runs the whole suite (the baseline). If anything fails there,
    nothing is run: a failure on a mutant would say nothing.
  - A mutant that does not build is "build-failed", never "caught": a compiler is not a test.
  - The suite runs with -x in two parts: first the test files most likely to notice the area's
    bugs (the catalog entry's "tests", else the area's list below), then all the others. The
    first failing test is the verdict "caught"; "survived" means every test passed.
  - A caught mutant's failing test is run alone twice more: on the mutant, where it must fail
    again, and on the unmutated tree, where it must pass. Otherwise the failure was the
    machine's (a timing flake under load) or shows only now and then: the suite runs once
    more (--retries), and a mutant whose failures never hold up is "flaky".
  - A mutant whose suite runs past --timeout is "timeout" (it hangs something no test bounds).
  - --suite crashtest (or crashtest-quick) judges by make crashtest's power cuts instead of the
    suite: durability bugs (a missing or early flush) are crash-state testing's to catch.

Results go to build/mutants.csv (one row per mutant, written as each finishes) with each
mutant's output in build/mutants/ID.log; a table by area and the survivors are printed at the
end. -j runs that many mutants at once, each pytest with 2/j workers (the suite's own QEMUs are
the load: on 2 cores, -j 1 with 2 workers is as fast as anything).
"""
import argparse, csv, os, re, shutil, signal, subprocess, sys, tempfile, threading, time, traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "tests" / "mutants" / "catalog.txt"
OUT_CSV = ROOT / "build" / "mutants.csv"
OUT_LOGS = ROOT / "build" / "mutants"
SELF_TEST = "tests/host/test_mutants_catalog.py"     # checks the catalog against the unmutated sources

# Test files that most likely notice a bug in each area: run first, so a caught mutant costs
# a fraction of the suite. Missing files are skipped (tests come and go).
AREA_TESTS = {
    "cache": ["tests/host/test_kfs.py", "tests/qemu/test_replacement_order.py",
              "tests/qemu/test_writeback_timing.py", "tests/qemu/test_delayed_write.py"],
    "cleaner": ["tests/qemu/test_writeback_timing.py", "tests/qemu/test_delayed_write.py", "tests/qemu/test_crash.py"],
    "durability": ["tests/host/test_kfs.py", "tests/qemu/test_crash.py", "tests/qemu/test_delayed_write.py",
                   "tests/qemu/test_persistence.py"],
    "fsalloc": ["tests/host/test_kfs.py", "tests/qemu/test_delayed_write.py"],
    "replacement": ["tests/host/test_c_programs.py::test_the_c_program_passes[test_policy]", "tests/qemu/test_replacement_order.py", "tests/qemu/test_vm.py"],
    "vm": ["tests/qemu/test_vm.py", "tests/qemu/test_faults.py", "tests/qemu/test_usertests.py"],
    "cowcor": ["tests/qemu/test_cowcor.py"],
    "negotiation": ["tests/host/test_c_programs.py::test_the_c_program_passes[test_negotiate]", "tests/qemu/test_negotiation.py", "tests/qemu/test_gdb.py"],
    "audit": ["tests/qemu/test_audit_checks.py", "tests/qemu/test_vm.py"],
    "fsck": ["tests/host/test_fsck_checks.py", "tests/host/test_mkfs.py", "tests/host/test_fsck_oracle.py"],
    "kernel": ["tests/qemu/test_usertests.py", "tests/qemu/test_shell.py", "tests/qemu/test_console.py"],
    "programs": ["tests/qemu/test_programs.py", "tests/qemu/test_sort.py", "tests/qemu/test_workloads.py"],
    "images": ["tests/qemu/test_imgfuzz.py", "tests/host/test_fsck_checks.py"],
    "messages": ["tests/qemu/test_messages.py", "tests/qemu/test_vm.py", "tests/qemu/test_exhaustion.py"],
    "gdb": ["tests/qemu/test_views.py", "tests/qemu/test_gdb.py"],
    "coursework": ["tests/host/test_c_programs.py::test_the_c_program_passes[test_policy]", "tests/host/test_tracesim.py", "tests/host/test_grade.py",
                   "tests/qemu/test_trace.py"],
}

# What a surrounding make or an earlier `make qemu` would otherwise hand down to the builds
# and tests in the copies.
DROP_ENV = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "CMDLINE", "FILES", "FSIMG", "MEM",
            "BOOTDIR", "TEST_LOGS", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER"}


# --- the catalog ------------------------------------------------------------------------------

class Mutant:
    def __init__(self, line):
        self.line = line            # where the entry starts in the catalog
        self.id = self.area = self.file = self.function = self.bug = None
        self.find, self.replace, self.tests = [], [], []

    @property
    def find_text(self):
        return "\n".join(self.find)

    @property
    def replace_text(self):
        return "\n".join(self.replace)


def parse_catalog(path=CATALOG):
    """The entries of the catalog, in order. Raises ValueError naming the line of a malformed one."""
    entries, cur, block = [], None, None
    for n, raw in enumerate(Path(path).read_text().splitlines(), 1):
        if raw.startswith("|"):
            if cur is None or block is None:
                raise ValueError("%s:%d: a '|' line outside find: or replace:" % (path, n))
            getattr(cur, block).append(raw[1:])
            continue
        line = raw.strip()
        if not line:
            cur = block = None
            continue
        if line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            raise ValueError("%s:%d: expected 'key: value', got %r" % (path, n, raw))
        if key == "id":
            cur, block = Mutant(n), None
            cur.id = value
            entries.append(cur)
            continue
        if cur is None:
            raise ValueError("%s:%d: %s: before any id:" % (path, n, key))
        if key in ("find", "replace"):
            if value:
                raise ValueError("%s:%d: %s: takes '|' lines below it" % (path, n, key))
            block = key
        elif key in ("area", "file", "bug"):
            setattr(cur, key, value)
            block = None
        elif key == "in":
            cur.function = value
            block = None
        elif key == "tests":
            cur.tests = value.split()
            block = None
        else:
            raise ValueError("%s:%d: unknown key %r" % (path, n, key))
    return entries


# Where a function named by in: may be defined: every C source of the tree's programs.
SOURCE_DIRS = ("kernel", "vm", "fs", "drivers", "scaffold", "user", "mkfs", "tools")


def definition(text, name):
    """(start, end) in text of the C function name's definition, from its first line to its
    closing brace (a "}" alone on its line: the house style), or None."""
    m = re.search(r"^(?![\s#/*])[^\n;]*\b%s\([^;{]*\)[^;{]*\n\{\n" % re.escape(name), text, re.M)
    if not m:
        return None
    end = text.find("\n}\n", m.end() - 1)
    return (m.start(), end + 3) if end >= 0 else None


def c_sources(root):
    """[(path, text)] of every C source and header under SOURCE_DIRS of root."""
    return [(p, p.read_text(errors="replace")) for top in SOURCE_DIRS for p in sorted((Path(root) / top).rglob("*"))
            if p.suffix in (".c", ".h") and p.is_file()]


def locate(m, root=ROOT, sources=None):
    """(file relative to root, start, end) of the text m replaces within: its function's
    definition wherever that is (in:), else its whole file. Raises ValueError saying why
    not: no such function or file, or the text there not exactly once. sources: c_sources(root),
    when the caller has read them already."""
    if m.function:
        found = []
        for p, text in sources if sources is not None else c_sources(root):
            if m.function + "(" not in text:
                continue
            span = definition(text, m.function)
            n = text[span[0]:span[1]].count(m.find_text) if span else 0
            if n:
                found.append((p, span, n))
        if len(found) != 1 or found[0][2] != 1:
            raise ValueError("%s: its text occurs %s in the definitions of %s(), not once in one" % (
                m.id, "%d times" % sum(n for _, _, n in found) if found else "0 times", m.function))
        p, (start, end), _ = found[0]
        return str(p.relative_to(root)), start, end
    src = Path(root) / m.file
    if not src.is_file():
        raise ValueError("%s: %s does not exist" % (m.id, m.file))
    text = src.read_text()
    count = text.count(m.find_text)
    if count != 1:
        raise ValueError("%s: its text occurs %d times in %s, not once" % (m.id, count, m.file))
    return m.file, 0, len(text)


def problems(entries, root=ROOT):
    """What is wrong with the catalog against the sources under root: one line each. Each
    entry's file is set to where its text is (an in: entry's function may have moved)."""
    out, seen = [], set()
    sources = c_sources(root)
    for m in entries:
        where = "%s (line %d)" % (m.id, m.line)
        if not re.fullmatch(r"[a-z0-9]+\.[a-z0-9-]+", m.id or ""):
            out.append("%s: the id is not AREA.name" % where)
        if m.id in seen:
            out.append("%s: a second entry with this id" % where)
        seen.add(m.id)
        for key in ("area", "bug"):
            if not getattr(m, key):
                out.append("%s: no %s:" % (where, key))
        if bool(m.file) == bool(m.function):
            out.append("%s: needs one of in: (a function) or file:" % where)
        if not m.find_text.strip():
            out.append("%s: nothing to find" % where)
            continue
        if m.find_text == m.replace_text:
            out.append("%s: the replacement is the text itself" % where)
        if not m.file and not m.function:
            continue
        try:
            m.file = locate(m, root, sources)[0]
        except ValueError as e:
            out.append("%s: %s" % (where, str(e).split(": ", 1)[1]))
    return out


def apply(m, tree):
    """Plants m in the tree at tree (its text must be there exactly once: locate)."""
    path, start, end = locate(m, tree)
    src = Path(tree) / path
    text = src.read_text()
    st = src.stat()
    src.write_text(text[:start] + text[start:end].replace(m.find_text, m.replace_text) + text[end:])
    # Newer than anything built from it, whatever the clock's resolution.
    t = max(time.time(), st.st_mtime) + 2
    os.utime(src, (t, t))


# --- running ------------------------------------------------------------------------------------

def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


class Runner:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.procs = set()              # process groups running now (killed on ^C)
        self.lock = threading.Lock()
        self.stopping = False

    def run(self, cmd, cwd, log, timeout):
        """Runs cmd in its own process group, its output appended to log: (status, seconds,
        output); status None on timeout (the whole group is killed)."""
        t0 = time.time()
        with open(log, "ab") as f:
            f.write(("\n$ (cd %s && %s)\n" % (cwd, " ".join(cmd))).encode())
            f.flush()
            p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 env=clean_env(), start_new_session=True)
            with self.lock:
                self.procs.add(p)
            out = bytearray()

            def pump():
                for chunk in iter(lambda: p.stdout.read1(65536), b""):
                    out.extend(chunk)
                    f.write(chunk)
                    f.flush()
            reader = threading.Thread(target=pump, daemon=True)
            reader.start()
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill(p)
                rc = None
            reader.join()
            with self.lock:
                self.procs.discard(p)
        return rc, time.time() - t0, out.decode("utf-8", "replace")

    def kill(self, p):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()

    def kill_all(self):
        self.stopping = True
        with self.lock:
            procs = list(self.procs)
        for p in procs:
            self.kill(p)

    def build(self, tree, log):
        return self.run(["make", "-s", "-j2", "test-build"], tree, log, self.args.build_timeout)

    def pytest(self, tree, paths, log, timeout, extra=()):
        # A short temporary directory of its own: the crash tests put a Unix socket in it, and
        # a socket's path may not be longer than 107 bytes.
        basetemp = tempfile.mkdtemp(prefix="mt-")
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-rfE", "-p", "no:cacheprovider",
               "--basetemp", basetemp]
        if self.args.pytest_jobs > 1:
            cmd += ["-n", str(self.args.pytest_jobs)]
        try:
            return self.run(cmd + list(extra) + list(paths), tree, log, timeout)
        finally:
            shutil.rmtree(basetemp, ignore_errors=True)


def first_failure(output):
    """The node id of the first test pytest's summary names as failed (or erroring)."""
    for line in output.splitlines():
        m = re.match(r"(?:FAILED|ERROR) (\S+?)(?: - .*)?$", line.strip())
        if m:
            return m.group(1)
    return ""


def verdict_of(rc, output):
    if rc is None:
        return "timeout"
    if rc == 0:
        return "survived"
    # -x under xdist ends with "Interrupted" (status 2) after the first failure.
    if rc in (1, 2) and first_failure(output):
        return "caught"
    return "error"          # interrupted, internal error, bad usage, no tests


def run_crashtest(runner, tree, log, budget):
    """make crashtest (or its --quick part) instead of the suite: (verdict, what failed, seconds)."""
    cmd = [sys.executable, "tools/crash/crashtest.py", "--jobs", str(runner.args.pytest_jobs)]
    # Whether a state fails at all is the verdict: the full run stops at the first.
    cmd.append("--quick" if runner.args.suite == "crashtest-quick" else "--stop-at-first")
    rc, secs, out = runner.run(cmd, tree, log, budget)
    if rc is None:
        return "timeout", "", secs
    if rc == 0:
        return "survived", "", secs
    failing = re.search(r"states failing: (\d+)", out)
    kinds = re.findall(r"^  ([a-z-]+) +(\d+) states", out, re.M)
    if rc == 1 and failing:
        return "caught", "crashtest: %s states failing (%s)" % (
            failing.group(1), " ".join("%s %s" % k for k in kinds)), secs
    return "error", "crashtest status %d" % rc, secs


def run_suite(runner, tree, first, log, budget, ignore=()):
    """The first files, then the rest, stopping at the first failure. (verdict, test, seconds)"""
    if runner.args.suite != "pytest":
        return run_crashtest(runner, tree, log, budget)
    t0 = time.time()
    extra = ["--ignore=%s" % i for i in ignore]
    first = [t for t in first if (Path(tree) / t.split("::")[0]).exists() and t.split("::")[0] not in ignore]
    parts = []
    if runner.args.tests:
        parts.append((runner.args.tests.split(","), []))     # only these: a new test against the catalog
    elif first:
        parts.append((first, []))
        rest_extra = ["--ignore=%s" % t if "::" not in t else "--deselect=%s" % t for t in first]
        parts.append((["tests"], rest_extra))
    else:
        parts.append((["tests"], []))
    for paths, more in parts:
        left = budget - (time.time() - t0)
        if left <= 0:
            return "timeout", "", time.time() - t0
        rc, _, out = runner.pytest(tree, paths, log, left, extra + more)
        v = verdict_of(rc, out)
        if rc == 5 and more:
            continue            # nothing left to run after the first part
        if v != "survived":
            return v, first_failure(out), time.time() - t0
    return "survived", "", time.time() - t0


def copy_tree(src, dst):
    subprocess.run(["cp", "-a", "--sparse=always", str(src), str(dst)], check=True)


def export_sources(dst):
    """The tree as git sees it (tracked files and untracked ones not ignored), without build/."""
    try:
        names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                               cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not p.relative_to(ROOT).parts[0] in ("build", ".git")]
    for name in names:
        if not name or name.startswith("build/"):
            continue
        s = ROOT / name
        if not s.is_file():
            continue            # deleted in the working tree, still in the index
        d = Path(dst) / name
        d.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(s, d)


# --- reporting ---------------------------------------------------------------------------------

FIELDS = ["id", "area", "file", "verdict", "test", "build_s", "test_s", "confirm", "bug"]


def summary(rows, entries):
    areas = []
    for m in entries:
        if m.area not in areas:
            areas.append(m.area)
    kinds = ["caught", "survived", "flaky", "build-failed", "timeout", "error"]
    lines = ["", "%-12s %5s " % ("area", "total") + " ".join("%8s" % k for k in kinds)]
    total = {k: 0 for k in kinds}
    for a in areas:
        mine = [r for r in rows if r["area"] == a]
        if not mine:
            continue
        counts = {k: sum(1 for r in mine if r["verdict"] == k) for k in kinds}
        for k in kinds:
            total[k] += counts[k]
        lines.append("%-12s %5d " % (a, len(mine)) + " ".join("%8d" % counts[k] for k in kinds))
    lines.append("%-12s %5d " % ("all", len(rows)) + " ".join("%8d" % total[k] for k in kinds))
    times = sorted(float(r["build_s"]) + float(r["test_s"]) for r in rows)
    if times:
        lines.append("time per mutant: median %.0f s, min %.0f s, max %.0f s (build and tests)" %
                     (times[len(times) // 2], times[0], times[-1]))
    surv = [r for r in rows if r["verdict"] == "survived"]
    if surv:
        lines.append("")
        lines.append("survivors (no test failed):")
        for r in surv:
            lines.append("  %-40s %s" % (r["id"], r["bug"]))
    other = [r for r in rows if r["verdict"] not in ("caught", "survived")]
    if other:
        lines.append("")
        lines.append("neither caught nor survived (see build/mutants/ID.log):")
        for r in other:
            lines.append("  %-40s %s %s" % (r["id"], r["verdict"], r["test"]))
    return "\n".join(lines)


# --- main --------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Results: build/mutants.csv, logs in build/mutants/ID.log.")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="mutants at once (default 1)")
    ap.add_argument("--pytest-jobs", type=int, default=0,
                    help="pytest workers per mutant (default 2/JOBS, at least 1)")
    ap.add_argument("--only", default="", help="comma-separated ids (or id prefixes ending in '.')")
    ap.add_argument("--area", default="", help="comma-separated areas, run in that order")
    ap.add_argument("--list", action="store_true", help="list the selected mutants and stop")
    ap.add_argument("--check", action="store_true", help="check that every entry applies, and stop")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the unmutated suite run (only when you know it passes)")
    ap.add_argument("--no-confirm", action="store_true",
                    help="do not run a caught mutant's failing test again on the unmutated tree")
    ap.add_argument("--suite", choices=["pytest", "crashtest", "crashtest-quick"], default="pytest",
                    help="what must fail: the test suite (default), or make crashtest's power cuts "
                         "(its --quick part: crashtest-quick), for the durability bugs")
    ap.add_argument("--tests", default="",
                    help="comma-separated test files or node ids to run instead of the whole suite "
                         "(does a new test kill these mutants?); 'survived' then means they passed")
    ap.add_argument("--retries", type=int, default=1,
                    help="whole-suite runs more for a mutant whose failure did not hold up (1)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds for one mutant's suite (3600)")
    ap.add_argument("--build-timeout", type=float, default=900, help="seconds for one build (900)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees (printed)")
    ap.add_argument("--csv", default=str(OUT_CSV), help="where the results go (build/mutants.csv)")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error("-j must be at least 1")
    if args.pytest_jobs < 1:
        args.pytest_jobs = max(1, 2 // args.jobs)

    try:
        entries = parse_catalog()
    except ValueError as e:
        print("mutants: %s" % e, file=sys.stderr)
        return 2
    bad = problems(entries)
    if bad:
        print("mutants: the catalog does not fit the sources:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 2
    chosen = entries
    if args.only:
        want = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in want if not any(m.id == w or (w.endswith(".") and m.id.startswith(w)) for m in entries)]
        if unknown:
            print("mutants: no such mutant: %s (--list shows them)" % ", ".join(unknown), file=sys.stderr)
            return 2
        chosen = [m for m in chosen if any(m.id == w or (w.endswith(".") and m.id.startswith(w)) for w in want)]
    if args.area:
        areas = [a.strip() for a in args.area.split(",") if a.strip()]
        known = sorted({m.area for m in entries})
        unknown = [a for a in areas if a not in known]
        if unknown:
            print("mutants: no such area: %s (areas: %s)" % (", ".join(unknown), " ".join(known)), file=sys.stderr)
            return 2
        chosen = sorted((m for m in chosen if m.area in areas), key=lambda m: areas.index(m.area))
    if args.check:
        print("mutants: all %d entries apply" % len(entries))
        return 0
    if args.list:
        for m in chosen:
            print("%-40s %-12s %-22s %s" % (m.id, m.area, m.file, m.bug))
        return 0

    # A background job ignores ^C; kill (SIGTERM) stops it the same way: every QEMU it started
    # goes too.
    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    work = Path(tempfile.mkdtemp(prefix="mutants-"))
    runner = Runner(args, work)
    OUT_LOGS.mkdir(parents=True, exist_ok=True)
    t_start = time.time()
    rows = []
    try:
        template = work / "template"
        export_sources(template)
        log = OUT_LOGS / "template.log"
        log.unlink(missing_ok=True)
        print("mutants: building the unmutated tree in %s" % template, flush=True)
        rc, secs, out = runner.build(template, log)
        if rc != 0:
            print("mutants: the unmutated tree does not build (%s):\n%s" % (log, out[-3000:]), file=sys.stderr)
            return 2
        base = work / "base"
        copy_tree(template, base)
        if not args.no_baseline:
            print("mutants: the whole suite on the unmutated tree (the baseline)", flush=True)
            log = OUT_LOGS / "baseline.log"
            log.unlink(missing_ok=True)
            v, test, secs = run_suite(runner, base, [], log, args.timeout)
            if v != "survived":
                print("mutants: the suite fails without any mutant (%s %s, %s): fix that first" %
                      (v, test, log), file=sys.stderr)
                return 2
            print("mutants: baseline passes (%.0f s)" % secs, flush=True)

        csv_path = Path(args.csv)
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        with open(csv_path, "w", newline="") as f:
            csv.writer(f).writerow(FIELDS)
        done = [0]

        def one(m):
            if runner.stopping:
                return None
            tree = work / ("m-" + m.id)
            log = OUT_LOGS / ("%s.log" % m.id)
            log.write_text("mutant %s (%s): %s\nin %s\n" % (m.id, m.area, m.bug, m.file))
            row = {"id": m.id, "area": m.area, "file": m.file, "verdict": "", "test": "",
                   "build_s": "0", "test_s": "0", "confirm": "", "bug": m.bug}
            try:
                copy_tree(template, tree)
                apply(m, tree)
                rc, bsecs, out = runner.build(tree, log)
                row["build_s"] = "%.1f" % bsecs
                if rc != 0:
                    row["verdict"] = "build-failed" if rc is not None else "timeout"
                else:
                    first = m.tests or AREA_TESTS.get(m.area, [])
                    spent = 0.0
                    for attempt in range(1 + args.retries):
                        v, test, tsecs = run_suite(runner, tree, first, log, args.timeout, ignore=[SELF_TEST])
                        spent += tsecs
                        row.update(verdict=v, test=test, test_s="%.1f" % spent)
                        if v != "caught" or not test or args.no_confirm or runner.stopping or args.suite != "pytest":
                            break
                        # The failing test alone, again with the mutant and then without: a
                        # catch fails again and passes unmutated; anything else was the machine
                        # (or a bug that shows only now and then), and the suite runs once more.
                        one_test = ["-n", "0"] if args.pytest_jobs > 1 else []
                        again, _, _ = runner.pytest(tree, [test], log, args.timeout, one_test)
                        unmutated, _, _ = runner.pytest(base, [test], log, args.timeout, one_test)
                        row["confirm"] = (row["confirm"] + "; " if row["confirm"] else "") + "%s: %s again, %s unmutated" % (
                            test.rsplit("::", 1)[-1], "fails" if again else "passes", "fails" if unmutated else "passes")
                        if again != 0 and unmutated == 0:
                            break
                        row["verdict"] = "flaky"
            except Exception as e:          # a broken copy or catalog: say so, go on
                row["verdict"] = "error"
                row["test"] = str(e)[:200]
                with open(log, "a") as f:
                    traceback.print_exc(file=f)
            finally:
                if not args.keep:
                    shutil.rmtree(tree, ignore_errors=True)
            if runner.stopping:
                return None
            with runner.lock:
                rows.append(row)
                done[0] += 1
                with open(csv_path, "a", newline="") as f:
                    csv.writer(f).writerow([row[k] for k in FIELDS])
                print("[%d/%d] %-40s %-12s %s %s (%.0f s)" % (
                    done[0], len(chosen), m.id, row["verdict"], row["test"], row["confirm"],
                    float(row["build_s"]) + float(row["test_s"])), flush=True)
            return row

        pool = ThreadPoolExecutor(max_workers=args.jobs)
        try:
            futures = [pool.submit(one, m) for m in chosen]
            for fut in futures:
                while not fut.done():
                    time.sleep(0.5)     # not fut.result() alone: ^C must reach this thread at once
                fut.result()
        finally:
            runner.stopping = True
            pool.shutdown(wait=False, cancel_futures=True)
    except KeyboardInterrupt:
        runner.kill_all()
        print("\nmutants: interrupted; results so far in %s" % args.csv, file=sys.stderr)
        return 130
    finally:
        if args.keep:
            print("mutants: trees kept in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    order = {m.id: i for i, m in enumerate(chosen)}
    rows.sort(key=lambda r: order[r["id"]])
    print(summary(rows, chosen))
    print("mutants: %d mutants in %.0f min; %s" % (len(rows), (time.time() - t_start) / 60, args.csv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
