"""No literal figure in generated text that a run could have measured (issue 36): a number the
benchmarks print or write into the docs comes from the CSV of the run, or is printed as the
constant it is (a setting, a target, a unit, a bound "not measured").

The source check: every module-level number of the modules that make text (tools/bench's
tables, headline, figures and our benchmarks), and every number they import from another
module of tools/bench, that reaches a string's formatting must be named in that module's
PRINTED_CONSTANTS with what it is. A figure once measured and kept as a constant (the fastest
cache miss, FASTEST_MISS_NS = 35000, printed as measured while a run measured 12,882 ns) fails it.
The unit tests hold the one such figure found to the run's CSV: the miss comes from negcost.csv,
and without it the bound is printed as a bound."""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "tools", "bench")
sys.path.insert(0, BENCH)
import results  # noqa: E402

# The modules whose text this check holds (the others' owners hold theirs).
TEXT_MODULES = ["results", "headline", "ifs_tables", "targets", "ecd_figures", "bench_figures", "bench_ifs", "bench_vm",
                "bench_fork", "bench_fs", "bench_boot", "bench_negcost", "benchlib"]


def tree(mod):
    with open(os.path.join(BENCH, mod + ".py")) as f:
        return ast.parse(f.read())


def numbers(t):
    """{name: value} of the module's top-level assignments of a number (or arithmetic on numbers)."""
    out = {}
    for node in t.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                v = ast.literal_eval(node.value)
            except ValueError:
                try:
                    v = eval(compile(ast.Expression(node.value), "c", "eval"), {})
                except Exception:
                    continue
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[node.targets[0].id] = v
    return out


def formatted(t):
    """The nodes of the strings' formatting: `"..." % (x)`, "...".format(x), f"{x}"."""
    for n in ast.walk(t):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and isinstance(n.left, ast.Constant) \
                and isinstance(n.left.value, str):
            yield n.right
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format":
            yield from n.args
        elif isinstance(n, ast.JoinedStr):
            yield n


def printed_numbers(mod, source=None):
    """The numeric constants (the module's own and those it imports from tools/bench) that reach
    a string's formatting in mod, less those it names in PRINTED_CONSTANTS."""
    t = ast.parse(source) if source is not None else tree(mod)
    known = numbers(t)
    for n in ast.walk(t):
        if isinstance(n, ast.ImportFrom) and n.module and os.path.exists(os.path.join(BENCH, n.module + ".py")):
            theirs = numbers(tree(n.module))
            known.update({a.asname or a.name: theirs[a.name] for a in n.names if a.name in theirs})
    declared = {}
    for node in t.body:
        if isinstance(node, ast.Assign) and any(getattr(x, "id", None) == "PRINTED_CONSTANTS" for x in node.targets):
            declared = ast.literal_eval(node.value)
    found = set()
    for expr in formatted(t):
        for n in ast.walk(expr):
            if isinstance(n, ast.Name) and n.id in known:
                found.add(n.id)
            if isinstance(n, ast.Attribute) and n.attr.isupper() and isinstance(n.value, ast.Name) and \
                    os.path.exists(os.path.join(BENCH, n.value.id + ".py")) and n.attr in numbers(tree(n.value.id)):
                found.add(n.attr)
    return sorted(found - set(declared)), declared


def test_every_number_printed_is_declared_for_what_it_is():
    for mod in TEXT_MODULES:
        undeclared, declared = printed_numbers(mod)
        assert undeclared == [], "%s prints %s: from the run's CSV, or in PRINTED_CONSTANTS as what it is" % (
            mod, ", ".join(undeclared))
        assert all(isinstance(v, str) and v for v in declared.values()), mod


def test_the_check_fails_a_measured_figure_kept_as_a_constant():
    """The plant: the fastest miss put back as a constant and printed."""
    with open(os.path.join(BENCH, "results.py")) as f:
        src = f.read()
    planted = src + '\nFASTEST_MISS_NS = 35000\n\ndef reading():\n    return "a miss (%s ns)" % FASTEST_MISS_NS\n'
    assert printed_numbers("results", planted)[0] == ["FASTEST_MISS_NS"]


def test_no_hand_written_figure_in_the_generated_prose():
    """Figures written into the prose by hand ("about 56 KB", "on 2 cores") that a run measures."""
    for mod in ("results", "headline", "ifs_tables"):
        for n in ast.walk(tree(mod)):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                assert not re.search(r"\babout \d|\bon \d+ cores\b", n.value), (mod, n.value)


AGG = {(120, "fixed", 5.0): dict(fs_asks_vm=10, fs_asks_vm_satisfied=0, vm_asks_fs=3, toucher_pageins=0,
                                 cache_max_kb=300, resp_max_ms=20, after_ms=30)}


def test_the_reading_takes_the_miss_the_run_measured():
    text = " ".join(results.ifs_reading(AGG, 480.0, 473, miss=(12882, "build/bench/negcost.csv, 1 run")))
    assert "(12,882 ns, make bench-negcost: build/bench/negcost.csv, 1 run)" in text
    assert "3.7 % at least and 3.7 % on average" in text
    assert "35" not in text.replace("3.7", "")


def test_without_the_run_the_bound_is_printed_as_a_bound():
    text = " ".join(results.ifs_reading(AGG, 480.0, 473, miss=None))
    assert "a bound of 35 us" in text and "not measured in this run" in text
    assert "35,000" not in text


def test_fastest_miss_reads_negcost_csv(tmp_path):
    assert results.fastest_miss(str(tmp_path)) is None
    (tmp_path / "negcost.csv").write_text("mode,run,miss_min,miss_median\nfixed,1,12882,50157\n"
                                          "adaptive,1,13001,50000\n")
    assert results.fastest_miss(str(tmp_path)) == (12882, "build/bench/negcost.csv, 2 runs")
