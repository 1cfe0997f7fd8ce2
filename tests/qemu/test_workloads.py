"""The IFS benchmark's programs: sort (an external merge sort through temporary files) and
toucher (the interactive page toucher)."""
from conftest import boot, fsck


def test_sort_matches_host_sort_and_cleans_up(disk):
    # 300 KB with a 16 KB budget: about 20 runs, so two merge passes.
    r = boot("mklines /tmp/in 300K 5\nsort -m 16 -o /tmp/out /tmp/in\nls /tmp\n", disk=disk, status=True)
    assert r.rc == 0, r
    assert [c.status for c in r.cmds] == [0, 0, 0], r.cmds
    assert r.printed("sort -m 16 -o /tmp/out /tmp/in") == "", r
    assert r.printed("ls /tmp") == "in\nout\n", r         # no temporary file left
    rc, data = fsck(disk, "--cat", "/tmp/in")
    assert rc == 0 and len(data) == 300 * 1024, len(data)
    rc, out = fsck(disk, "--cat", "/tmp/out")
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    assert out == b"".join(l + b"\n" for l in sorted(lines)), "sorted output differs"
    rc, listing = fsck(disk, "--ls", "/tmp")
    assert b"sort." not in listing, listing          # every temporary file was deleted
    rc, out = fsck(disk)
    assert rc == 0, out


def test_sort_errors(sh):
    r = sh("sort /nosuch\nsort -x\necho a | sort -m 1\n", status=True)
    assert r.printed("sort /nosuch") == "sort: open /nosuch: No such file or directory\n", r
    assert r.printed("sort -x").startswith("usage: sort"), r
    assert r.printed("echo a | sort -m 1") == "sort: -m must be at least 5 KB\n", r
    assert all(c.status != 0 for c in r.cmds), r.cmds


def test_toucher_reports_rounds(sh):
    r = sh("toucher -m 1 -s 0.05 -n 3\ntoucher -x\n", status=True)
    t = r.cmd("toucher -m 1 -s 0.05 -n 3")
    out = t.out.splitlines()
    assert t.status == 0 and [l.split()[:2] for l in out[:3]] == [["touch", "1"], ["touch", "2"], ["touch", "3"]], r
    assert len(out) == 4 and out[3].startswith("toucher: 3 rounds, response min"), r
    assert r.printed("toucher -x").startswith("usage: toucher") and r.cmd("toucher -x").status != 0, r.cmds
