"""Console input loses nothing: everything piped in runs, in order."""
import re
from conftest import boot


def test_many_commands_piped_run_in_order(disk):
    n = 300
    cmds = "".join("echo line%04d\n" % i for i in range(n))
    r = boot(cmds, disk=disk)
    assert r.rc == 0, r
    got = [l for l in r.out.splitlines() if l.startswith("line")]
    assert got == ["line%04d" % i for i in range(n)], r
    assert [c.out for c in r.cmds] == ["line%04d\n" % i for i in range(n)], r


def test_long_line_is_not_truncated(disk):
    word = "x" * 900
    r = boot("echo %s | wc -c\n" % word, disk=disk, status=True)
    assert r.rc == 0, r
    c = r.cmd("echo %s | wc -c" % word)
    assert c.out.strip() == "901" and c.status == 0, r.cmds


def test_end_of_input_shuts_down_cleanly(disk):
    r = boot("echo bye\n", disk=disk)
    assert r.rc == 0, r
    assert r.printed("echo bye") == "bye\n", r
    assert re.search(r"^poweroff: halted$", r.out, re.M), r


def test_lines_typed_ahead_are_echoed_just_before_their_output(disk):
    # Sent once the shell waits at its prompt: the UART hands over 14 bytes at once, so the
    # second line starts arriving while the shell, woken by the first, has not yet run. Its
    # echo must wait for the shell's next read, not land before the first command's output.
    r = boot("fault null\necho survived\n", disk=disk, wait_for=r"\n\$ ")
    assert r.rc == 0, r
    out = r.out.splitlines()
    assert "$ fault null" in out and "$ echo survived" in out, r
    assert out[out.index("$ fault null") + 1] == "fault: null", r
    assert out[out.index("$ echo survived") + 1] == "survived", r


def test_a_timed_out_run_ends_with_the_guests_state(disk):
    # runqemu sends ^P when time runs out; the kernel prints every process with what it waits
    # for, and runqemu names each kernel call chain's functions: a hang says where it is.
    r = boot("sleep 600\n", disk=disk, timeout=20)
    assert r.rc == 124, r
    dump = r.out[r.out.find("--- ^P dump"):]
    assert "--- ^P dump" in r.out and "--- end of ^P dump" in dump, r
    # sleep_ms wakes on every tick to look at the time, so a loaded host may catch the
    # sleeper runnable between two of its sleeps: its call chain below still says where it is.
    m = re.search(r"^  pid (\d+) ppid (\d+) (?:sleep sleep wchan 0x[0-9a-f]+ from 0x[0-9a-f]+|runnable sleep)$",
                  dump, re.M)
    assert m, r
    sh = re.search(r"^  pid %s ppid \d+ sleep sh wchan .* \(a child's exit\)$" % m.group(2), dump, re.M)
    assert sh, r
    assert re.search(r"^  vm\.faults=\d+ ", dump, re.M), r
    chain = re.search(r"^  pid %s: (.*)$" % m.group(1), dump, re.M)
    assert chain and re.search(r"sleep_ms\(time\.c:\d+\) < sys_sleep\(sysproc\.c:\d+\)", chain.group(1)), r
