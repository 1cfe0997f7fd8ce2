"""make lab-release: writes the students' copy of the tree, without the labs' reference solutions
and without a word that names them, and shows that it builds and passes the lab's tests.

What is withheld is listed in one file, withheld.py beside this one (the instructor's; the
students' tree leaves it out, so this tool runs only in the full tree). The copy is every file
git tracks, as the work tree has it (so never build/), less

  - every lab's solution and the instructor's files (withheld.SOLUTIONS, withheld.LEFT_OUT):
    one tree serves a class that does both labs, so neither lab's answer is in it;
  - with the lab's copies put in (tools/lab/labs.py: the arbiter's skeleton as
    kernel/arbiter_mine.c, in the reference's place in the kernel's table);

and then scrubbed of the text that names a solution, in this order:

  1. withheld.EDITS, exact texts replaced where they are found (the kernel's tables and externs,
     the graders' lines that look for a solution);
  2. the tests: a top-level statement of a tests/ Python file that names a withheld word is
     dropped, and so is every statement that uses a name it defined (a fixture, a flag such as
     HAS_REFERENCE, a skip mark), down to the tests that need it; a module whose pytestmark goes
     is left out whole (all of it needs a solution);
  3. the docs: a table row naming a withheld word goes, a table column headed by a withheld
     policy (withheld.COLUMNS) goes, a line linking a file left out goes;
  4. the planted bugs of tests/mutants/catalog.txt that live in a solution, name one, or are
     caught only by a test file left out.

Last, every file of the tree is checked against withheld.WORDS: one left is a line saying which
file, which line and which word, and the release stops. That check, not the lists above, is
what makes the tree clean: a tree that moved on under an edit fails it rather than shipping.

Then, unless --no-check: `make` in the copy (the lab's targets) and the lab's tests there, run
with this tree's Python environment so that nothing is downloaded again, with no time limit of
their own (a loaded machine is slow, not wrong). --quick builds the same but runs only the lab's
fast tests (labs.py: quick_tests) and compiles each lab's skeleton: what make test's
tests/host/test_lab_release.py runs; make lab-release runs the lab's full tests. Either way the
copy's build/ and Python caches are removed afterwards, so the tree handed out is the tree checked.

    python3 tools/lab/release.py [--lab replacement|arbiter] [--out DIR] [--no-check | --quick]

DIR is build/lab-release/LAB by default; it is made afresh."""
import argparse, ast, os, re, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs  # noqa: E402

ROOT = labs.ROOT
CATALOG = "tests/mutants/catalog.txt"


def fail(msg):
    sys.exit("lab-release: " + msg)


def load_withheld():
    try:
        import withheld
    except ImportError:
        fail("no withheld.py beside release.py: this is a students' tree, which has no solutions to leave out")
    return withheld


def tracked():
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], stdout=subprocess.PIPE, check=True)
    return [f for f in r.stdout.decode().split("\0") if f]


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def names_one(text, words):
    """The first withheld word text contains (case ignored), or None."""
    low = text.lower()
    return next((w for w in words if w.lower() in low), None)


def defines(node):
    """The module-level names a top-level statement binds (not its functions' locals)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def scrub_python(text, words):
    """A test file without the statements that name a withheld word or use a name one of them
    defined; None when its pytestmark goes (the whole module needs a solution)."""
    lines = text.splitlines(keepends=True)
    body = ast.parse(text).body
    gone, dropped = set(), set()
    changed = True
    while changed:
        changed = False
        for i, node in enumerate(body):
            if i in dropped:
                continue
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            uses = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
                   {a.arg for n in ast.walk(node) if isinstance(n, ast.arguments)
                    for a in n.posonlyargs + n.args + n.kwonlyargs}
            if names_one("".join(lines[start - 1:node.end_lineno]), words) or uses & gone:
                dropped.add(i)
                changed = True
                gone |= defines(node)
    if "pytestmark" in gone:
        return None
    keep = [True] * len(lines)
    for i in dropped:
        node = body[i]
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        for k in range(start - 1, node.end_lineno):
            keep[k] = False
    # A comment line naming a withheld word goes with the code it spoke of.
    return "".join(l for l, k in zip(lines, keep) if k and not (l.lstrip().startswith("#") and names_one(l, words)))


def scrub_markdown(text, words, columns, left_out):
    """A doc without the table rows that name a withheld word, the table columns headed by a
    withheld policy, and the lines that link a file left out."""
    out, drop_cols, in_table = [], [], False
    left = [os.path.basename(f) for f in left_out]
    for line in text.splitlines(keepends=True):
        if line.startswith("|"):
            cells = line.rstrip("\n").strip().strip("|").split("|")
            if not in_table:            # a table's first line: its header
                drop_cols = [i for i, c in enumerate(cells) if c.strip().strip("`") in columns]
            in_table = True
            if drop_cols:
                line = "|" + "|".join(c for i, c in enumerate(cells) if i not in drop_cols) + "|\n"
            if names_one(line, words):
                continue
        else:
            in_table, drop_cols = False, []
            if any("](%s" % f in line for f in left):
                continue
        out.append(line)
    return "".join(out)


def drop_mutants(text, words, solutions, left_out):
    """The catalog without the planted bugs a students' tree cannot hold or run."""
    keep, dropped = [], []
    for b in text.split("\n\n"):
        m = re.search(r"^file: (\S+)$", b, re.M)
        t = re.search(r"^tests: (.*)$", b, re.M)
        tests = t.group(1).split() if t else []
        if (m and m.group(1) in solutions) or names_one(b, words) or (tests and all(f in left_out for f in tests)):
            dropped.append(re.search(r"^id: (\S+)", b, re.M).group(1))
            continue
        keep.append(b)
    return "\n\n".join(keep), dropped


def release(lab, out):
    w = load_withheld()
    files = tracked()
    missing = [s for s in w.SOLUTIONS if s not in files]
    if missing:
        fail("the solutions %s are not in the tree (withheld.py is out of date)" % ", ".join(missing))
    if os.path.exists(out):
        shutil.rmtree(out)
    left_out = set(w.SOLUTIONS) | set(w.LEFT_OUT)
    for f in files:
        if f in left_out or not os.path.exists(os.path.join(ROOT, f)):
            continue
        dest = os.path.join(out, f)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), dest, follow_symlinks=False)
    for each in labs.LABS.values():
        for dest, src in each.copies.items():
            shutil.copy2(os.path.join(ROOT, src), os.path.join(out, dest))
    for f, pairs in w.EDITS.items():
        path = os.path.join(out, f)
        if not os.path.exists(path):
            continue
        text = read(path)
        for old, new in pairs:
            text = text.replace(old, new)
        write(path, text)
    # The tests, then the docs (left-out test modules join the files left out, for the catalog).
    for f in sorted(files):
        path = os.path.join(out, f)
        if f.startswith("tests/") and f.endswith(".py") and os.path.exists(path):
            text = scrub_python(read(path), w.WORDS)
            if text is None:
                os.remove(path)
                left_out.add(f)
            else:
                write(path, text)
    for f in files:
        path = os.path.join(out, f)
        if f.endswith(".md") and os.path.exists(path):
            write(path, scrub_markdown(read(path), w.WORDS, w.COLUMNS, left_out))
    dropped = []
    if os.path.exists(os.path.join(out, CATALOG)):
        text, dropped = drop_mutants(read(os.path.join(out, CATALOG)), w.WORDS, w.SOLUTIONS, left_out)
        write(os.path.join(out, CATALOG), text)
    left = still_named(out, w.WORDS)
    if left:
        fail("the students' tree still names a solution (reword it, or add an edit to withheld.py):\n  " +
             "\n  ".join(left))
    print("lab-release: %s: %d files, without %s; planted bugs dropped: %s" % (
        os.path.relpath(out, ROOT), sum(len(fs) for _, _, fs in os.walk(out)), ", ".join(sorted(left_out)),
        ", ".join(dropped) or "none"))
    return out


def still_named(out, words):
    """'file:line: word' for each withheld word left in any file of the tree, text or not."""
    found = []
    for d, _, fs in os.walk(out):
        for name in sorted(fs):
            path = os.path.join(d, name)
            data = open(path, "rb").read().decode("latin-1")
            for n, line in enumerate(data.splitlines(), 1):
                word = names_one(line, words)
                if word:
                    found.append("%s:%d: %s" % (os.path.relpath(path, out), n, word))
    return found


def clean(out):
    """The copy as handed out: no build/ and no Python caches from its check."""
    shutil.rmtree(os.path.join(out, "build"), ignore_errors=True)
    if os.path.exists(os.path.join(out, "compile_commands.json")):      # make all's, for editors
        os.remove(os.path.join(out, "compile_commands.json"))
    for d, subdirs, _ in os.walk(out):
        for s in list(subdirs):
            if s in ("__pycache__", ".pytest_cache"):
                shutil.rmtree(os.path.join(d, s))
                subdirs.remove(s)


def check(lab, out, quick):
    """make in the copy, then the lab's tests there (its fast ones with quick); exits on a failure."""
    print("lab-release: make in %s" % os.path.relpath(out, ROOT), flush=True)
    r = subprocess.run(["make", "-C", out] + lab.build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("the students' tree does not build:\n" + r.stdout[-3000:])
    if quick:
        for each in labs.LABS.values():     # the tree is every lab's: every skeleton must compile
            cc = os.environ.get("HOSTCC", "cc")
            r = subprocess.run([cc, "-fsyntax-only", "-Wall", "-Werror", "-I", out, os.path.join(out, each.skeleton)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                fail("the %s lab's skeleton %s does not compile:\n%s" % (each.name, each.skeleton, r.stdout[-3000:]))
    tests = [t for t in (lab.quick_tests if quick else lab.tests) if os.path.exists(os.path.join(out, t.split("::")[0]))]
    print("lab-release: its %stests: %s" % ("fast " if quick else "", " ".join(tests)), flush=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + tests, cwd=out, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "(no output)")
    if r.returncode != 0:
        fail("the students' tree fails its tests:\n" + r.stdout[-4000:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lab", default="replacement")
    ap.add_argument("--out")
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--quick", action="store_true", help="only the lab's fast tests, and the skeletons compiled")
    a = ap.parse_args()
    if a.lab not in labs.LABS:
        fail("no lab named %s (%s)" % (a.lab, ", ".join(labs.LABS)))
    lab = labs.LABS[a.lab]
    out = release(lab, a.out or os.path.join(ROOT, "build", "lab-release", lab.name))
    if not a.no_check:
        try:
            check(lab, out, a.quick)
        finally:
            clean(out)
        print("lab-release: %s builds and passes its %stests" % (os.path.relpath(out, ROOT), "fast " if a.quick else ""))


if __name__ == "__main__":
    main()
