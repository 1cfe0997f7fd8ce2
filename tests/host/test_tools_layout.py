"""tools/ in families (tools/README.md): the tools' Python modules import one another by
bare name (each script puts its own folder, or tools/, on sys.path), so no two may share a name;
no two may import each other, directly or round a longer cycle; and every tools/ path the
Makefile, the docs, the tests and the tools themselves name must exist; and every family
(a folder of tools/) and every file of it is described in tools/README.md."""
import ast, re
from pathlib import Path
from conftest import ROOT

TOOLS = ROOT / "tools"


def modules():
    """{module name: path} of every Python file under tools/."""
    found = {}
    for p in sorted(TOOLS.rglob("*.py")):
        assert p.stem not in found, "two tools modules named %s: %s and %s" % (
            p.stem, found[p.stem].relative_to(ROOT), p.relative_to(ROOT))
        found[p.stem] = p
    return found


def imports(path, names):
    """The tools modules path imports (at any depth of its code)."""
    out = set()
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Import):
            out |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            out.add(n.module.split(".")[0])
    return {m for m in out if m in names and names[m] != path}


def test_no_two_tools_modules_share_a_name():
    modules()


def test_no_import_cycle_among_the_tools():
    names = modules()
    graph = {m: imports(p, names) for m, p in names.items()}
    state = {}              # absent: not seen; 1: on the current path; 2: done

    def visit(m, path):
        state[m] = 1
        for d in sorted(graph[m]):
            assert state.get(d) != 1, "import cycle: " + " -> ".join(path + [m, d])
            if d not in state:
                visit(d, path + [m])
        state[m] = 2
    for m in sorted(graph):
        if m not in state:
            visit(m, [])


def test_every_tools_path_named_exists():
    files = [ROOT / "Makefile", ROOT / "README.md", ROOT / "linker.ld", ROOT / ".ci" / "run",
             ROOT / "tests" / "mutants" / "catalog.txt"] + sorted(ROOT.glob("mk/*.mk"))
    for pattern in ("docs/**/*", "tests/**/*.py", "tools/**/*"):
        files += [p for p in ROOT.glob(pattern) if p.is_file() and p.suffix in (".md", ".py", ".c", ".h", ".sh", ".in")]
    missing = []
    for f in files:
        for m in re.finditer(r"\btools/[\w./-]*[\w/]", f.read_text(errors="replace")):
            if f.read_text(errors="replace")[m.end():m.end() + 1] == "*":
                continue            # a glob: tools/bench/bench_*.py
            if not (ROOT / m.group(0)).exists():
                missing.append("%s: %s" % (f.relative_to(ROOT), m.group(0)))
    assert not missing, "\n".join(missing)


def test_every_family_and_its_files_are_in_the_readme():
    readme = (TOOLS / "README.md").read_text()
    missing = []
    for d in sorted(p for p in TOOLS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))):
        if "## %s/" % d.name not in readme:
            missing.append("the family %s/ has no heading '## %s/'" % (d.name, d.name))
            continue
        section = readme.split("## %s/" % d.name, 1)[1].split("\n## ", 1)[0]
        for f in sorted(d.iterdir()):
            globbed = [m for m in re.findall(r"`([\w*.-]+)`", section) if "*" in m]
            if f.suffix in (".py", ".sh", ".in") and "`%s`" % f.name not in section and \
                    not any(Path(f.name).match(g) for g in globbed):
                missing.append("tools/%s/%s is not described under '## %s/'" % (d.name, f.name, d.name))
    assert not missing, "\n".join(missing)
