"""Maps that check themselves: every source path the README, the docs/ book and the sources'
own comments name exists, every function or variable the book names in `code` is in the
sources, and the counts the book gives of the mutant catalog are its count. A file moved or a
function renamed fails here, not in a student's first minute (test_readme.py holds the "where
is" table to its definitions)."""
import glob
import re

import pytest

from conftest import ROOT

TOP = ("kernel", "vm", "fs", "drivers", "scaffold", "user", "mkfs", "lab", "tools", "tests", "docs", "traces")
PATH = re.compile(r"(?<![\w/.$-])(?:%s)/(?:[\w./*-]|\[\w+\]|\{[\w,.]+\})+" % "|".join(TOP))
# Written by the build, not in the tree (mkfs -b build/user/bin).
BUILT = {"user/bin"}
# Names a reader makes: the lab's file of their own (`cp ... vm/policy_NAME.c`, the released
# kernel/arbiter_mine.c), a pattern's NAME, N or ID.
PLACEHOLDER = re.compile(r"(?:^|[/_.-])(?:[A-Z]+|mine)(?:[/_.-]|$)")


def named_files():
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "linker.ld"] + sorted(ROOT.glob("mk/*.mk")) + \
        sorted(ROOT.glob("docs/**/*.md"))
    files += sorted(ROOT.glob("docs/lab/*.c")) + sorted(ROOT.glob("docs/*.json"))
    for top in ("kernel", "vm", "fs", "drivers", "scaffold", "user", "mkfs", "tools"):
        files += sorted(p for p in (ROOT / top).rglob("*") if p.is_file()
                        and p.suffix in (".c", ".h", ".S", ".py", ".md", ".json", ".txt", ".ld", ".sh"))
    return files


def braces(path):
    """a/{b,c}.h -> a/b.h, a/c.h (one level)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [path[:m.start()] + alt + path[m.end():] for alt in m.group(1).split(",")]


def exists(path):
    if path in BUILT or PLACEHOLDER.search(path):
        return True
    return all(glob.glob(str(ROOT / p)) for p in braces(path))


def stale_paths(text):
    out = []
    for m in PATH.finditer(text):
        path = m.group(0).rstrip(".,/")
        if text[m.end():m.end() + 1] in ("%", "{"):
            continue                    # a format: "kernel/arbiter_%s.c"
        if not exists(path):
            out.append(path)
    return out


@pytest.mark.parametrize("f", named_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_named_exists(f):
    stale = stale_paths(f.read_text(errors="replace"))
    assert stale == [], "%s names paths that are not in the tree: %s" % (f.relative_to(ROOT), sorted(set(stale)))


def test_a_stale_path_is_caught_and_patterns_are_not():
    assert stale_paths("the pages (vm/page.c) and vm/aging.c") == ["vm/page.c"]
    assert stale_paths("kernel/arbiters.[ch], kernel/arbiter_*.c, fs/{cache,sync}.c, vm/policy_NAME.c") == []
    assert stale_paths("kernel/{coremap,gone}.c") == ["kernel/{coremap,gone}.c"]
    assert stale_paths('"kernel/arbiter_%s.c" % name') == []


def source_words():
    text = ""
    for top in ("kernel", "vm", "fs", "drivers", "scaffold", "user", "mkfs", "tools", "tests", "docs/lab"):
        for p in (ROOT / top).rglob("*"):
            if p.is_file() and p.suffix in (".c", ".h", ".S", ".py", ".json", ".txt", ".gdb"):
                text += p.read_text(errors="replace") + "\n"
    return set(re.findall(r"\w+", text + "".join(f.read_text() for f in [ROOT / "Makefile"] + sorted(ROOT.glob("mk/*.mk")))))


# Named in the book and not ours: QEMU's plugin API.
FOREIGN = {"qemu_plugin_read_register"}


def test_every_identifier_the_book_names_is_in_the_sources():
    """A `snake_case` name (a function, a variable, a field) in the README or docs/ is a word of
    some source file."""
    words = source_words()
    missing = []
    for md in [ROOT / "README.md"] + sorted(ROOT.glob("docs/**/*.md")):
        for m in re.finditer(r"`([A-Za-z_]\w*_\w*)(?:\([^`]*\))?`", md.read_text()):
            if m.group(1) not in words and m.group(1) not in FOREIGN:
                missing.append("%s: %s" % (md.relative_to(ROOT), m.group(1)))
    assert missing == [], missing


def test_the_book_counts_the_mutant_catalog_as_it_is():
    n = len(re.findall(r"^id: ", (ROOT / "tests" / "mutants" / "catalog.txt").read_text(), re.M))
    text = (ROOT / "docs" / "testing.md").read_text()
    said = re.search(r"`tests/mutants/catalog\.txt` holds (\d+) bugs", text)
    assert said and int(said.group(1)) == n, (said and said.group(1), n)


def layout_entries(text):
    """{folder: its text} of docs/using.md's layout block: a line "dir/   what" and the indented
    lines that go on with it."""
    block = text.split("```\nMakefile", 1)[1].split("```", 1)[0]
    entries, cur = {}, None
    for line in block.splitlines():
        m = re.match(r"([\w.-]+/)\s+(.*)", line)
        if m:
            cur = m.group(1).rstrip("/")
            entries[cur] = m.group(2)
        elif cur and line.startswith(" "):
            entries[cur] += " " + line.strip()
        else:
            cur = None
    return entries


def misplaced(entries):
    """The files an entry names (name.c, name.py, ...) that are nowhere under its folder."""
    out = []
    for folder, what in entries.items():
        for name in re.findall(r"(?<![\w/*.])(\w[\w.-]*\.(?:c|h|S|py|sh|in))\b", what):
            if not list((ROOT / folder).rglob(name)):
                out.append("%s/: %s" % (folder, name))
    return out


def test_the_layout_in_using_puts_each_file_in_its_folder():
    entries = layout_entries((ROOT / "docs" / "using.md").read_text())
    assert {"kernel", "vm", "fs", "drivers", "user", "tools"} <= set(entries), entries
    assert misplaced(entries) == []
    # The old map, which put the core map in vm/ and named a vm/page.c, fails.
    assert misplaced({"vm": "core map (coremap.c), page-out and the aging clock (page.c)"}) == \
        ["vm/: coremap.c", "vm/: page.c"]


def lines_of(tops):
    return sum(len(p.read_text(errors="replace").splitlines()) for top in tops
               for p in (ROOT / top).rglob("*") if p.suffix in (".c", ".h", ".S"))


def test_the_reading_path_is_as_long_as_the_architecture_says():
    text = " ".join((ROOT / "docs" / "ARCHITECTURE.md").read_text().split())
    m = re.search(r"is ([\d,]+) lines of C; `scaffold/`, what only the tests, benchmarks and labs use, is another "
                  r"([\d,]+)", text)
    assert m, "docs/ARCHITECTURE.md no longer says how long the reading path is"
    said_path, said_scaffold = (int(x.replace(",", "")) for x in m.groups())
    path, scaffold = lines_of(("kernel", "drivers", "fs", "vm")), lines_of(("scaffold",))
    assert abs(path - said_path) <= 0.05 * path, (said_path, path)
    assert abs(scaffold - said_scaffold) <= 0.05 * scaffold, (said_scaffold, scaffold)
