"""The in-guest test suite: every system call's behaviour and error cases, each test in a
child process, with a check that no frames or disk blocks leaked."""
import re
from conftest import boot, fsck


def failures(out):
    """'NAME (reason)' for each case usertests printed as FAILED, in its order (not anchored
    at a line's start: a kernel message may have come first on the line)."""
    return ["%s%s" % (name, rest) for name, rest in re.findall(r"test (\S+): FAILED(.*)", out)]


def test_usertests_all_pass_without_leaks(disk):
    r = boot("usertests\n", disk=disk, timeout=600, status=True)
    # The failing cases first: pytest cuts a long message, and the console's tail, which the
    # Run shows, may no longer hold their lines.
    failed = failures(r.out)
    said = "usertests FAILED: %s; " % ", ".join(failed) if failed else ""
    assert r.rc == 0, "%s%r" % (said, r)
    m = re.search(r"^usertests: (\d+) passed, (\d+) failed$", r.printed("usertests"), re.M)
    assert m, "%sno summary line; %r" % (said, r)
    assert not failed and int(m.group(2)) == 0, "%s%r" % (said or "%s failed; " % m.group(2), r)
    assert r.cmd("usertests").status == 0, r
    assert int(m.group(1)) >= 20, r
    rc, out = fsck(disk)
    assert rc == 0, out
