"""The catalog of planted bugs (tests/mutants/catalog.txt) still fits the sources: every
entry's text occurs exactly once in its function (in:, wherever that is defined) or its file, so `make mutants` plants what each entry says.
A change to the code that moves such text fails here, at once, instead of hours into a run.
(tools/fuzz/mutants.py leaves this file out of the suite it runs on a mutant: there the text is
gone on purpose.)"""
import sys
import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import mutants  # noqa: E402


def test_every_entry_applies_exactly_once():
    entries = mutants.parse_catalog()
    assert len(entries) >= 60
    bad = mutants.problems(entries)
    assert not bad, "catalog entries that no longer fit the sources (fix the entry, or the code moved):\n" + "\n".join(bad)


def test_every_area_has_tests_to_run_first():
    areas = {m.area for m in mutants.parse_catalog()}
    assert areas <= set(mutants.AREA_TESTS), "areas without tests to run first: %s" % (areas - set(mutants.AREA_TESTS))


def test_every_entrys_tests_to_run_first_exist():
    """A file the entry names that is not there is skipped quietly, and the whole suite runs
    first instead (as a comma-joined list did): named here instead."""
    gone = ["%s: %s" % (m.id, t) for m in mutants.parse_catalog() for t in m.tests
            if not (ROOT / t.split("::")[0]).is_file()]
    assert gone == [], "tests: that name no file (space-separated paths or node ids):\n" + "\n".join(gone)


def test_a_stale_or_ambiguous_entry_is_named(tmp_path):
    (tmp_path / "f.c").write_text("a();\nb();\nb();\n")
    cat = tmp_path / "catalog.txt"
    cat.write_text("# two entries that cannot be planted\n"
                   "id: x.gone\narea: x\nfile: f.c\nbug: its text is no longer there\nfind:\n|c();\nreplace:\n\n"
                   "id: x.twice\narea: x\nfile: f.c\nbug: its text is there twice\nfind:\n|b();\nreplace:\n|c();\n\n"
                   "id: x.fine\narea: x\nfile: f.c\nbug: a good one\nfind:\n|a();\n|b();\nreplace:\n|a();\n")
    entries = mutants.parse_catalog(cat)
    assert [m.id for m in entries] == ["x.gone", "x.twice", "x.fine"]
    bad = mutants.problems(entries, root=tmp_path)
    assert len(bad) == 2
    assert "x.gone" in bad[0] and "occurs 0 times" in bad[0]
    assert "x.twice" in bad[1] and "occurs 2 times" in bad[1]
    with pytest.raises(ValueError, match="occurs 2 times"):
        mutants.apply(entries[1], tmp_path)
    mutants.apply(entries[2], tmp_path)
    assert (tmp_path / "f.c").read_text() == "a();\nb();\n"


def test_malformed_entries_name_their_line(tmp_path):
    cat = tmp_path / "catalog.txt"
    cat.write_text("id: x.a\narea: x\nfile: f.c\nsmell: bad\n")
    with pytest.raises(ValueError, match=r"catalog.txt:4: unknown key 'smell'"):
        mutants.parse_catalog(cat)
    cat.write_text("|orphan\n")
    with pytest.raises(ValueError, match=r"catalog.txt:1: a '\|' line outside"):
        mutants.parse_catalog(cat)


def test_an_entry_anchored_in_a_function_follows_it_to_another_file(tmp_path):
    """in: finds the function wherever it is defined: moved from kernel/a.c to vm/b.c, its bug
    is planted there; text outside the function, or a second definition holding it, is named."""
    (tmp_path / "kernel").mkdir()
    (tmp_path / "vm").mkdir()
    (tmp_path / "kernel" / "a.c").write_text("int x = 1;\n\nstatic int other(void)\n{\n  return 1;\n}\n")
    (tmp_path / "vm" / "b.c").write_text("int f(int a,\n      int b)\n{\n  return 1;\n}\n\nint g(void)\n{\n  return 2;\n}\n")
    cat = tmp_path / "catalog.txt"
    cat.write_text("id: x.moved\narea: x\nin: f\nbug: f answers 0\nfind:\n|return 1;\nreplace:\n|return 0;\n\n"
                   "id: x.outside\narea: x\nin: g\nbug: not in g\nfind:\n|int x = 1;\nreplace:\n|int x = 2;\n\n"
                   "id: x.both\narea: x\nin: f\nfile: vm/b.c\nbug: two anchors\nfind:\n|return 1;\nreplace:\n|return 3;\n")
    moved, outside, both = mutants.parse_catalog(cat)
    assert moved.function == "f" and moved.file is None
    bad = mutants.problems([moved, outside, both], root=tmp_path)
    assert moved.file == "vm/b.c"
    assert len(bad) == 2 and "x.outside" in bad[0] and "occurs 0 times in the definitions of g()" in bad[0], bad
    assert "x.both" in bad[1] and "one of in:" in bad[1], bad
    # A second definition of f that also holds the text: ambiguous, named.
    (tmp_path / "kernel" / "c.c").write_text("static int f(void)\n{\n  return 1;\n}\n")
    with pytest.raises(ValueError, match=r"occurs 2 times in the definitions of f\(\), not once in one"):
        mutants.locate(moved, tmp_path)
    (tmp_path / "kernel" / "c.c").unlink()
    mutants.apply(moved, tmp_path)
    assert (tmp_path / "vm" / "b.c").read_text().startswith("int f(int a,\n      int b)\n{\n  return 0;")
    assert "return 1;" in (tmp_path / "kernel" / "a.c").read_text()      # other()'s, outside f
