"""The in-guest test suite: every system call's behaviour and error cases, each test in a
child process, with a check that no frames or disk blocks leaked."""
import re
from conftest import boot, fsck


def test_usertests_all_pass_without_leaks(disk):
    r = boot("usertests\n", disk=disk, timeout=600, status=True)
    assert r.rc == 0, r
    m = re.search(r"^usertests: (\d+) passed, (\d+) failed$", r.printed("usertests"), re.M)
    assert m and r.cmd("usertests").status == 0, r
    assert int(m.group(2)) == 0 and int(m.group(1)) >= 20, r
    assert "FAILED" not in r.out, r
    rc, out = fsck(disk)
    assert rc == 0, out
