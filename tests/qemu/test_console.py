"""Console input loses nothing: everything piped in runs, in order."""
import random, re, subprocess
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
    # for and its kernel call chain, both as function names: a hang says where it is.
    r = boot("sleep 600\n", disk=disk, timeout=10)     # an idle boot reaches the sleep in 0.6 s
    assert r.rc == 124, r
    dump = r.out[r.out.find("--- ^P dump"):]
    assert "--- ^P dump" in r.out and "--- end of ^P dump" in dump, r
    # sleep_ms wakes on every tick to look at the time, so a loaded host may catch the
    # sleeper runnable between two of its sleeps: its call chain below still says where it is.
    m = re.search(r"^  pid (\d+) ppid (\d+) (?:sleep sleep wchan ticks from sleep_ms\+0x[0-9a-f]+|runnable sleep)\n"
                  r"    pcs: (.*)$", dump, re.M)
    assert m, r
    sh = re.search(r"^  pid %s ppid \d+ sleep sh wchan .* \(a child's exit\)$" % m.group(2), dump, re.M)
    assert sh, r
    assert re.search(r"^  vm\.faults=\d+ ", dump, re.M), r
    assert re.search(r"\bsleep_ms\+0x[0-9a-f]+ sys_sleep\+0x[0-9a-f]+ ", m.group(3)), r


def test_a_guest_that_keeps_computing_is_stopped_by_its_cpu_budget(disk):
    """runqemu --cpu-limit, the hang watch a loaded host does not trip: QEMU's CPU time is the
    guest's work. A guest that only sleeps uses little of it and finishes; one that computes far
    longer than its budget is stopped with status 125, its ^P dump and a line saying why. The
    wall-clock limits are ten times over anything here."""
    # (a boot costs QEMU about 0.3 s of CPU; the sleep is longer than the budget in wall time)
    r = boot("sleep 6\necho slept\n", disk=disk, cpu_limit=4, timeout=1200)
    assert r.rc == 0 and r.printed("echo slept") == "slept\n", r
    r = boot("forkbench -n 100000000 4\n", disk=disk, cpu_limit=4, timeout=1200)
    assert r.rc == 125, r
    assert "--- ^P dump" in r.out and "--- end of ^P dump" in r.out, r
    assert re.search(r"^runqemu: the guest used its 4 s of CPU time \(--cpu-limit\) without powering off", r.out,
                     re.M), r


# --- floods (docs/reliability.md, "Console floods") -------------------------------------------------------
# The console's own keys: \r (a newline), \b and 0x7f (erase), ^U (kill the line), ^C
# (interrupt), ^D (end of file), ^P (dump). Every other byte is data, NUL and 0x80-0xff too.
KEYS = {ord("\r"), 8, 0x7F, 0x15, 0x03, 0x04, 0x10}
FLOOD = 1 << 20


def flood_data(seed):
    """1 MB of what a paste can hold: random binary (NUL, 0xff, controls, escape sequences), lines
    far longer than the console's 1 KB buffer, and short lines; no console key."""
    rnd = random.Random(seed)
    parts, n = [], 0
    while n < FLOOD - 200000:
        kind = rnd.randrange(4)
        if kind == 0:
            p = bytes(b for b in rnd.randbytes(rnd.randrange(1, 20000)) if b not in KEYS)
        elif kind == 1:
            p = bytes([rnd.randrange(32, 127)]) * rnd.randrange(1025, 40000) + b"\n"
        elif kind == 2:
            p = b"".join(b"\x1b[%dm\x1b[2J\x1b[H\x00\xff\xfe line %d\n" % (i % 50, i) for i in range(rnd.randrange(1, 300)))
        else:
            p = b"\n" * rnd.randrange(1, 50)
        parts.append(p)
        n += len(p)
    data = b"".join(parts)
    return data + b"y" * (FLOOD - 1 - len(data)) + b"\n"


def test_a_megabyte_flood_arrives_whole_and_the_shell_answers(disk):
    data = flood_data(15)
    assert len(data) == FLOOD and not KEYS & set(data)
    crc = subprocess.run(["cksum"], input=data, stdout=subprocess.PIPE, check=True).stdout.split()[0].decode()
    long_line = b"z" * 200000               # no newline: handed over a buffer at a time, then ^D
    r = boot(b"cksum\n" + data + b"\x04" + b"wc -c\n" + long_line + b"\x04" + b"echo alive\n", disk=disk,
             timeout=300)
    assert r.rc == 0, r
    # Every byte, in order: the checksum and the count of the whole megabyte, then all of the line.
    assert re.search(r"^%s %d$" % (crc, FLOOD), r.out, re.M), r
    assert re.search(r"z{1000}200000\n\$ ", r.out), r
    assert re.search(r"^\$ echo alive\nalive\n", r.out, re.M), r


def test_binary_bytes_and_long_lines_to_the_shell(disk):
    # The shell itself reads garbage (its keys too, but ^D, which would end its input), long
    # lines, and the editing keys; it refuses what it cannot run and answers afterwards. ^C
    # acts as it arrives (typed ahead, it would kill the command then running), so the line
    # holding one is sent once the shell waits at its prompt.
    garbage = bytes(b for b in random.Random(7).randbytes(70000) if b not in (0x04, 0x10))
    edits = b"echo a\x00b\n" b"echo abx\x7fc\n" b"echo abx\x08c\n" b"junk\x15echo killed\n" b"echo x\x1b[31mred\x1b[0m | wc -c\n"
    first = garbage + b"\n" + b"echo " + b"y" * 100000 + b"\n" + b"echo " + b"w" * 3000 + b" | wc -c\n" + edits
    r = boot(first + b"echo ready\n", wait_for=[(r"\nready\n\$ ", b"junk\x03echo after\necho alive\n")], disk=disk,
             timeout=300)
    assert r.rc == 0, r
    out = r.out[r.out.find("$ echo yyyy"):]
    assert re.search(r"^\$ echo y+\nsh: line too long\n", out, re.M), r               # over 4 KB: refused
    assert re.search(r"^\$ echo w{3000} \| wc -c\n3001\n", out, re.M), r             # 3 KB: whole
    assert "\n$ echo a\x00b\na\n" in out, r                                          # NUL ends the word
    assert out.splitlines().count("abc") == 2, r                                  # both erase keys
    assert "\n$ echo killed\nkilled\n" in out and "\n$ junk^C\n$ echo after\nafter\n" in out, r
    assert "| wc -c\n14\n" in out, r                                                  # escapes are data
    assert re.search(r"^\$ echo alive\nalive\n", out, re.M), r


def test_a_line_typed_behind_a_full_buffer_stays_whole_and_editable(disk):
    # While sleep runs nobody reads: the bytes after "sleep 1\n" fill the 1 KB buffer and stop
    # there. Here 1016 bytes of complete lines (comments) and "echo abx" fill it exactly; the
    # erase key after it must still erase the x once the shell reads on. The same for ^U.
    def behind_a_full_buffer(start, rest):
        filler, n = "", 1024 - len(start)
        while n > 0:
            m = min(n, 127)
            filler += "#" + "f" * (m - 2) + "\n" if m >= 2 else "\n"
            n -= m
        assert len(filler + start) == 1024
        return "sleep 1\n" + filler + start + rest

    r = boot(behind_a_full_buffer("echo abx", "\x7fc\n") + behind_a_full_buffer("echo ab", "x\x15echo killed\n")
             + "echo alive\n", disk=disk)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert "abc" in lines and "abx" not in lines and "abxc" not in lines, r
    assert "killed" in lines and not any("abx" in l and "killed" in l for l in lines), r
    assert re.search(r"^\$ echo alive\nalive\n", r.out, re.M), r
