"""Console input loses nothing: everything piped in runs, in order."""
from conftest import boot


def test_many_commands_piped_run_in_order(disk):
    n = 300
    cmds = "".join("echo line%04d\n" % i for i in range(n))
    r = boot(cmds, disk=disk)
    assert r.rc == 0, r
    got = [l for l in r.out.splitlines() if l.startswith("line")]
    assert got == ["line%04d" % i for i in range(n)], r


def test_long_line_is_not_truncated(disk):
    word = "x" * 900
    r = boot("echo %s | wc -c\n" % word, disk=disk)
    assert r.rc == 0, r
    assert "901" in r.out, r


def test_end_of_input_shuts_down_cleanly(disk):
    r = boot("echo bye\n", disk=disk)
    assert r.rc == 0, r
    assert "poweroff" in r.out or "halted" in r.out, r
