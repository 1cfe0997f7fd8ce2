"""docs/gdb.md against its generator (tools/gdb/gdb_walkthrough.py, `make gdb-walkthrough`): the
commands each transcript shows are the generator's steps for that block, in order; no
transcript is a session that went wrong (a symbol gone, the machine no longer there); the
document says how to make the files its walkthrough reads, with the generator's own command,
and types in the guest what the generator types. A renamed variable or a changed workload
fails here, not in a student's session."""
import os
import re
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools" / "gdb"))
import gdb_walkthrough as walk  # noqa: E402

DOC = (ROOT / "docs" / "gdb.md").read_text()
# What gdb says when a step did not do what the prose around it says it did.
WRONG = ["No symbol", "The program is not being run", "Remote connection closed", "No stack.", "(not run)",
         "counters: none starts with", "Cannot access memory", "Undefined command"]


def block(name):
    m = re.search(r"<!-- gdb:%s -->\n(.*?)<!-- /gdb:%s -->" % (re.escape(name), re.escape(name)), DOC, re.S)
    assert m, "docs/gdb.md has no block %s" % name
    return m.group(1)


def test_each_transcript_shows_the_generators_steps_in_order():
    for sc in walk.SCENARIOS.values():
        want = {}
        for name, cmd, _ in sc["steps"]:
            if name:
                want.setdefault(name, []).append(cmd)
        for name, cmds in want.items():
            shown = [l[len("(gdb) "):] for l in block(name).splitlines() if l.startswith("(gdb) ")]
            assert shown == cmds, (name, shown, cmds)


def test_no_transcript_is_a_session_gone_wrong():
    names = re.findall(r"<!-- gdb:([\w-]+) -->", DOC)
    assert len(names) >= 10, names
    bad = [(n, w) for n in names for w in WRONG if w in block(n)]
    assert bad == [], "regenerate with make gdb-walkthrough, after fixing the step: %s" % bad


def test_the_doc_says_how_to_make_its_files_and_boot_them(tmp_path):
    # The document's own command, run: it writes the file the walkthrough puts on its disk and
    # prints the very make command the document gives for each scenario.
    m = re.search(r"^python3 %s --files (\S+)" % re.escape("tools/gdb/gdb_walkthrough.py"), DOC, re.M)
    assert m, "docs/gdb.md does not say how to make big"
    where = m.group(1)
    for name in walk.SCENARIOS:
        assert re.search(r"(^|`)%s(\s|`)" % re.escape(walk.by_hand(name, where)), DOC, re.M), walk.by_hand(name, where)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gdb", "gdb_walkthrough.py"), "--files",
                          str(tmp_path / "w")], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    big = tmp_path / "w" / "big"
    assert big.stat().st_size == walk.SCENARIOS["ifs"]["big"] == 12 << 20, out.stdout
    assert walk.by_hand("ifs", str(tmp_path / "w")) in out.stdout, out.stdout
    # The size the prose gives is the file's.
    assert "`big`, a 12 MB file" in DOC


def test_the_doc_types_in_the_guest_what_the_generator_types():
    typed = [l for _, text in walk.SCENARIOS["ifs"]["guest"] for l in text.splitlines()]
    m = re.search(r"```\n((?:\$ [^\n]*\n)+)```", DOC[DOC.index("## The IFS workload"):])
    assert m and [l[2:] for l in m.group(1).splitlines()] == typed, (m and m.group(1), typed)
    (cow,) = [text.strip() for _, text in walk.SCENARIOS["cow"]["guest"]]
    assert "`%s`" % cow in DOC[DOC.index("## A copy-on-write fault"):], cow
