"""make lab-release: writes the students' copy of the tree for a lab, without its reference
solutions, and shows that it builds and passes the lab's tests.

The copy is every file git tracks, as the work tree has it, less the lab's solutions
(tools/lab/labs.py: for the replacement lab vm/policy_aging.c), with the text that names them
taken out of the shared files (its line in vm/policy.c's table, its extern in vm/policy.h), the
planted bugs of tests/mutants/catalog.txt that live in a solution or in that text dropped (the
catalog's own test would find them missing), and the tests that need a solution skipped. Each
of these edits must match exactly once: a tree that moved on under them stops the release with
a clear line instead of shipping a half-edited file. Then, unless --no-check, `make` in the copy
(its own build/) and the lab's host tests there (tools/lab/labs.py names them), run with this
tree's Python environment so that nothing is downloaded again.

    python3 tools/lab/release.py [--lab replacement] [--out DIR] [--no-check]

DIR is build/lab-release/LAB by default; it is made afresh."""
import argparse, os, re, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs  # noqa: E402

ROOT = labs.ROOT
CATALOG = "tests/mutants/catalog.txt"
# Tests that need a lab's solution, skipped in the students' tree: {lab: [(file, the def line)]}.
NEEDS_SOLUTION = {
    "replacement": [("tests/qemu/test_views.py", "def test_aging_policy_clock_rate_and_cluster_in_the_guest(disk):\n")],
}


def fail(msg):
    sys.exit("lab-release: " + msg)


def tracked():
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], stdout=subprocess.PIPE, check=True)
    return [f for f in r.stdout.decode().split("\0") if f]


def edit(path, old, new):
    with open(path) as f:
        text = f.read()
    if text.count(old) != 1:
        fail("%s: expected the text %r exactly once, found it %d times (the tree moved on: update "
             "tools/lab/labs.py or tools/lab/release.py)" % (os.path.relpath(path), old.strip(), text.count(old)))
    with open(path, "w") as f:
        f.write(text.replace(old, new))


def drop_mutants(path, lab):
    """Removes the catalog's entries that plant a bug in a solution or in the text naming it."""
    with open(path) as f:
        blocks = f.read().split("\n\n")
    gone = [t.strip() for pairs in lab.solution_lines.values() for t, _ in pairs]
    keep, dropped = [], []
    for b in blocks:
        m = re.search(r"^file: (\S+)$", b, re.M)
        find = "\n".join(l[1:] for l in b.splitlines() if l.startswith("|"))
        if m and (m.group(1) in lab.solutions or any(g and g in find for g in gone)):
            dropped.append(re.search(r"^id: (\S+)", b, re.M).group(1))
            continue
        keep.append(b)
    with open(path, "w") as f:
        f.write("\n\n".join(keep))
    return dropped


def release(lab, out):
    files = tracked()
    missing = [s for s in lab.solutions if s not in files]
    if missing:
        fail("the solutions %s are not in the tree" % ", ".join(missing))
    if os.path.exists(out):
        shutil.rmtree(out)
    for f in files:
        if f in lab.solutions or not os.path.exists(os.path.join(ROOT, f)):
            continue
        dest = os.path.join(out, f)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), dest, follow_symlinks=False)
    for dest, src in lab.copies.items():
        shutil.copy2(os.path.join(ROOT, src), os.path.join(out, dest))
    for f, pairs in lab.solution_lines.items():
        for old, new in pairs:
            edit(os.path.join(out, f), old, new)
    for f, line in NEEDS_SOLUTION.get(lab.name, []):
        edit(os.path.join(out, f), line, '@pytest.mark.skip(reason="needs the %s lab\'s solution, which the students\' '
                                         'tree leaves out")\n%s' % (lab.name, line))
    dropped = drop_mutants(os.path.join(out, CATALOG), lab) if os.path.exists(os.path.join(out, CATALOG)) else []
    left = subprocess.run(["grep", "-rlF", "--exclude-dir=build", "--exclude=*.md", "--exclude=catalog.txt",
                           "--exclude=release.py", "--exclude=labs.py"] +
                          sum((["-e", os.path.basename(s)[:-2]] for s in lab.solutions), []) + [out],
                          stdout=subprocess.PIPE, text=True).stdout.split()
    print("lab-release: %s: %d files, without %s; planted bugs dropped: %s" % (
        os.path.relpath(out, ROOT), len(files) - len(lab.solutions), ", ".join(lab.solutions), ", ".join(dropped) or "none"))
    if left:
        print("lab-release: still naming a solution (read them): " + ", ".join(os.path.relpath(p, out) for p in left))
    return out


def check(lab, out):
    """make in the copy, then the lab's host tests there; exits on a failure."""
    print("lab-release: make in %s" % os.path.relpath(out, ROOT), flush=True)
    r = subprocess.run(["make", "-C", out] + lab.build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("the students' tree does not build:\n" + r.stdout[-3000:])
    tests = [t for t in lab.tests if os.path.exists(os.path.join(out, t))]
    print("lab-release: its tests: %s" % " ".join(tests), flush=True)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + tests, cwd=out,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "(no output)")
    if r.returncode != 0:
        fail("the students' tree fails its tests:\n" + r.stdout[-4000:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lab", default="replacement")
    ap.add_argument("--out")
    ap.add_argument("--no-check", action="store_true")
    a = ap.parse_args()
    if a.lab not in labs.LABS:
        fail("no lab named %s (%s)" % (a.lab, ", ".join(labs.LABS)))
    lab = labs.LABS[a.lab]
    out = release(lab, a.out or os.path.join(ROOT, "build", "lab-release", lab.name))
    if not a.no_check:
        check(lab, out)
        print("lab-release: %s builds and passes its tests" % os.path.relpath(out, ROOT))


if __name__ == "__main__":
    main()
