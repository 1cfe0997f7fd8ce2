"""The README is one screen a newcomer can trust: at most 60 lines, every link resolves (in it
and in the docs/ book, as a code-hosting site's viewer would follow them), every `make` target
it names exists, the time it gives `make paper` is the one `make help` prints (paper.py's own
estimate), and every row of the book's "where is" table (docs/README.md) names a file that
exists and a function or variable defined in that file. A moved function fails here, not in a
student's first minute."""
import re
import subprocess
import sys

import pytest

from conftest import ROOT

README = ROOT / "README.md"
BOOK = ROOT / "docs" / "README.md"        # the book's front page: the "where is" table
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def links(md):
    """(file, anchor or None) of every link that is not a web address."""
    for target in LINK.findall(md.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        yield path or md.name, anchor or None


def anchors(md):
    """The anchors a code-hosting site's viewer gives a page's headings: lower case, spaces to
    hyphens, punctuation dropped; a repeated heading gets -1, -2, ..."""
    seen, out = {}, set()
    for line in md.read_text().splitlines():
        m = re.match(r"#+\s+(.*)", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().replace("`", "").lower()).replace(" ", "-")
        out.add(slug if slug not in seen else "%s-%d" % (slug, seen[slug]))
        seen[slug] = seen.get(slug, 0) + 1
    return out


@pytest.mark.parametrize("md", [README] + DOCS, ids=lambda p: p.name)
def test_every_link_resolves(md):
    broken = [p for p, _ in links(md) if not (md.parent / p).exists()]
    assert broken == [], "%s: links to nothing: %s" % (md.relative_to(ROOT), broken)
    lost = ["%s#%s" % (p, a) for p, a in links(md) if a and p.endswith(".md") and a not in anchors(md.parent / p)]
    assert lost == [], "%s: links to headings that are not there: %s" % (md.relative_to(ROOT), lost)


def test_the_readme_is_one_screen_and_no_heading_names_an_issue():
    text = README.read_text()
    assert len(text.splitlines()) <= 60, "the README is %d lines, not one screen" % len(text.splitlines())
    for md in [README] + DOCS:
        heads = [l for l in md.read_text().splitlines() if l.startswith("#") and re.search(r"\(issue \d+\)", l)]
        assert heads == [], (md.name, heads)


def make_targets():
    p = subprocess.run(["make", "-pRrq", "-C", str(ROOT), "-f", "Makefile", ":"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return set(re.findall(r"^([a-zA-Z][\w.-]*):", p.stdout, re.M))


def test_every_make_target_the_readme_names_exists():
    named = set(re.findall(r"(?:`|^)make ([a-z][\w-]*)", README.read_text(), re.M))
    assert named, "the README names no make target?"
    missing = named - make_targets()
    assert missing == set(), "the README names make targets that do not exist: %s" % sorted(missing)


def where_is_rows():
    """(what, file, name) of each row of the book's "where is" table: | what | `file` | `name` |."""
    text = BOOK.read_text()
    part = text.split("## Where is", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`"):
            rows.append((cells[0], cells[1].strip("`"), cells[2].strip("`").rstrip("()")))
    return rows


def test_where_is_names_real_files_and_definitions():
    rows = where_is_rows()
    assert len(rows) >= 10, rows
    wrong = []
    for what, path, name in rows:
        f = ROOT / path
        if not f.exists():
            wrong.append("%s: %s does not exist" % (what, path))
            continue
        # defined at file level (a line that starts the declaration: not indented, not a
        # comment or a directive): a function, a variable or list, or a struct
        defined = re.compile(r"^(?![\s#/*])[^\n]*\b%s\b\s*(\(|\[|=|;|\{)" % re.escape(name), re.M)
        if not defined.search(f.read_text()):
            wrong.append("%s: %s defines no %s" % (what, path, name))
    assert wrong == [], wrong


def test_make_paper_takes_as_long_in_the_readme_as_in_make_help():
    """One figure, paper.py's first estimates (not a run's times): make help prints it, the
    README quotes it."""
    sys.path.insert(0, str(ROOT / "tools" / "bench"))
    import paper
    short = paper.rough(paper.estimate("short"))
    m = re.search(r"`make paper`[^`]*?\(its short preset:\s+about\s+([^)]+?)\s+on\s+2\s+cores\)", README.read_text())
    assert m, "the README gives make paper no time"
    assert " ".join(m.group(1).split()) == short, (m.group(1), short)
    p = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "help"], stdout=subprocess.PIPE,
                       text=True, timeout=60)
    assert paper.estimates_text() in p.stdout and ("about %s on 2 cores" % short) in p.stdout, p.stdout
