"""Every CSV row a benchmark writes names its run (tools/bench/benchlib.py run_identity): the
tree's commit, the preset, QEMU's version and the date. A table made of rows of several runs
(each preset's rows replace only that preset's) can then say which code and which QEMU each
figure is of.

The unit tests hold the function; the source check holds every CSV writer under tools/bench to
its columns: a function that makes a csv.writer or csv.DictWriter must name the IDENTITY columns
(directly, or through a module-level list built from them, in its own module or the one it imports
it from), or take its columns as a parameter that every caller gives such a list; and a module that
writes a CSV must call run_identity, so the rows get the values and not only the headers."""
import ast
import datetime
import glob
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "tools", "bench")
sys.path.insert(0, BENCH)
import benchlib  # noqa: E402

# Writers that do not name a run, each with why. paper.py's CSV is make paper's own record of
# how long each benchmark took, which schedules the next make paper: no figure of the kernel.
# bench_linux.py's memory search and series are its owner's to stamp (issue 36; the lead merges).
EXEMPT_MODULES = {"paper": "make paper's timings of the benchmarks, not a benchmark's figures"}
EXEMPT_CALLS = {("bench_linux", "linux-mem.csv"): "bench_linux.py's owner stamps it",
                ("bench_linux", "linux-ifs-series.csv"): "bench_linux.py's owner stamps it"}


def test_run_identity_has_the_columns_and_a_utc_date():
    when = datetime.datetime(2026, 12, 3, 7, 8, 9, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    got = benchlib.run_identity("paper", now=when)
    assert list(got) == benchlib.IDENTITY == ["commit", "preset", "qemu_version", "date"]
    assert got["preset"] == "paper"
    assert got["date"] == "2026-12-03T05:08:09Z"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", benchlib.run_identity("x")["date"])
    assert got["commit"] and got["qemu_version"]
    assert benchlib.RUN_COLUMNS == ["commit", "qemu_version", "date"]


def test_commit_is_the_trees_or_unknown_outside_git():
    c = benchlib.tree_commit(ROOT)
    assert c == "unknown" or re.fullmatch(r"[\w.-]+?(-dirty)?", c), c
    with tempfile.TemporaryDirectory() as d:
        assert benchlib.tree_commit(d) == "unknown"


def test_qemu_version_is_the_first_lines_version():
    assert benchlib.qemu_version_of("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\n"
                                    "Copyright (c) 2003-2022 Fabrice Bellard\n") == "7.2.22"
    assert benchlib.qemu_version_of("QEMU emulator version 8.2.2\n") == "8.2.2"
    assert benchlib.qemu_version_of("") == "unknown"
    assert benchlib.qemu_version_of("no such program\nversion 9\n") == "unknown"


def test_env_preset_says_what_is_set(monkeypatch):
    monkeypatch.delenv("RUNS", raising=False)
    monkeypatch.delenv("ROW_MS", raising=False)
    assert benchlib.env_preset(["RUNS", "ROW_MS"]) == "default"
    monkeypatch.setenv("RUNS", "1")
    monkeypatch.setenv("ROW_MS", "1000")
    assert benchlib.env_preset(["RUNS", "ROW_MS"]) == "RUNS=1 ROW_MS=1000"


# --- the source check --------------------------------------------------------------------------
def modules():
    out = {}
    for p in sorted(glob.glob(os.path.join(BENCH, "*.py"))):
        with open(p) as f:
            out[os.path.basename(p)[:-3]] = ast.parse(f.read(), p)
    return out


def top_assigns(tree):
    got = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    got[t.id] = node.value
    return got


def imports(tree):
    """{name: module} of `from MODULE import name` at the top."""
    return {a.asname or a.name: node.module for node in tree.body if isinstance(node, ast.ImportFrom)
            for a in node.names}


def stamped(node, mod, mods, seen=()):
    """Whether the expression node (in module mod) names the IDENTITY columns."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            name, where = n.id, mod
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in mods:
            name, where = n.attr, n.value.id
        else:
            continue
        if name == "IDENTITY":
            return True
        if (where, name) in seen:
            continue
        value = top_assigns(mods[where]).get(name)
        if value is None and imports(mods[where]).get(name) in mods:
            where = imports(mods[where])[name]
            value = top_assigns(mods[where]).get(name)
        if value is not None and stamped(value, where, mods, seen + ((where, name),)):
            return True
    return False


def makes_writer(fn):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("writer", "DictWriter")
               and isinstance(n.func.value, ast.Name) and n.func.value.id == "csv" for n in ast.walk(fn))


def writer_problems(mods):
    """What breaks the rule, each a sentence (empty: every writer names its run)."""
    bad = []
    for mod, tree in mods.items():
        if mod in EXEMPT_MODULES:
            continue
        fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and makes_writer(n)]
        if fns and not any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) ==
                           "run_identity" for n in ast.walk(tree)):
            bad.append("%s writes a CSV and never calls run_identity" % mod)
        for fn in fns:
            if any(stamped(n, mod, mods) for n in fn.body):
                continue
            params = [a.arg for a in fn.args.args]
            if "columns" not in params:
                bad.append("%s.%s writes a CSV without the IDENTITY columns" % (mod, fn.name))
                continue
            k = params.index("columns")
            for cmod, ctree in mods.items():
                for call in ast.walk(ctree):
                    if not (isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", None))
                            == fn.name):
                        continue
                    arg = call.args[k] if len(call.args) > k else next(
                        (kw.value for kw in call.keywords if kw.arg == "columns"), None)
                    first = ast.get_source_segment(src(cmod), call.args[0]) if call.args else ""
                    if any((cmod, name) in EXEMPT_CALLS for name in re.findall(r"[\w.-]+\.csv", first or "")):
                        continue
                    if arg is None or not stamped(arg, cmod, mods):
                        bad.append("%s calls %s.%s with columns lacking IDENTITY (line %d)" % (
                            cmod, mod, fn.name, call.lineno))
    return bad


def src(mod):
    with open(os.path.join(BENCH, mod + ".py")) as f:
        return f.read()


def test_every_csv_writer_names_its_run():
    mods = modules()
    assert writer_problems(mods) == []
    # the check sees writers: these write CSVs, each through a function it finds
    writers = {m for m, t in mods.items() if any(isinstance(n, ast.FunctionDef) and makes_writer(n)
                                                 for n in ast.walk(t))}
    assert {"bench_boot", "bench_fork", "bench_fs", "bench_vm", "bench_negcost", "bench_ifs", "bench_ecd",
            "bench_linux"} <= writers


def test_the_check_fails_a_writer_without_the_columns():
    """The check itself: a writer planted without the columns, or without run_identity, is named."""
    mods = modules()
    mods["planted"] = ast.parse("import csv\nfrom benchlib import run_identity\n"
                                "def w(f):\n    csv.writer(f).writerow(['a', 'b'])\n")
    mods["planted2"] = ast.parse("import csv\nfrom benchlib import IDENTITY\nCOLS = ['a'] + IDENTITY\n"
                                 "def w(f):\n    csv.DictWriter(f, COLS)\n")
    got = writer_problems(mods)
    assert "planted.w writes a CSV without the IDENTITY columns" in got
    assert "planted2 writes a CSV and never calls run_identity" in got
    assert not any("planted2.w" in g for g in got)
