"""The IFS benchmark's programs: sort (an external merge sort through temporary files) and
toucher (the interactive page toucher)."""
from conftest import boot, fsck


def test_sort_matches_host_sort_and_cleans_up(disk):
    # 300 KB with a 16 KB budget: about 20 runs, so two merge passes.
    r = boot("mklines /tmp/in 300K 5\nsort -m 16 -o /tmp/out /tmp/in\nls /tmp\n", disk=disk)
    assert r.rc == 0, r
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
    r = sh("sort /nosuch\nsort -x\necho a | sort -m 1\n")
    assert "sort: open /nosuch: No such file or directory" in r.out, r
    assert "usage: sort" in r.out, r
    assert "at least 5 KB" in r.out, r


def test_toucher_reports_rounds(sh):
    r = sh("toucher -m 1 -s 0.05 -n 3\ntoucher -x\n")
    assert [l.split()[1] for l in r.out.splitlines() if l.startswith("touch ")] == ["1", "2", "3"], r
    assert "toucher: 3 rounds, response min" in r.out, r
    assert "usage: toucher" in r.out, r
