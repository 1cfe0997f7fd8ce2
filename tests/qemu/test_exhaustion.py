"""Running out of something is an error for the program that asked (or its death, with a
message), never a hang or a panic; the system stays usable, and everything comes back when the
offender is gone: free frames, free disk blocks and descriptors, open-file and inode table
entries, process slots, all checked with the kernel's counters before and after.

`exhaust WHAT` (user/exhaust.c) takes all there is of one resource and reports the error that
stopped it, then gives it back. A small machine (16 MB, 32 MB disk) so that each runs out fast:
memory runs out first (the heap goes on in backing store), then the disk's room for the backing
store (ENOSWAP, "No space left for the backing store (disk full)").
"""
import re
import pytest
from conftest import boot, fsck, vmstat_snapshots

NPROC, NFILE = 64, 128          # kernel/proc.h, fs/file.h
# Every frame the kernel took is back (the cache keeps what it read, the VM only live
# processes' pages: free + cache + VM frames are the same whenever the kernel's are).
BACK = ["fs.disk.blocks.free", "fs.disk.descriptors.free", "proc.slots.used",
        "fs.files.open", "fs.inodes.used", "mem.frames.kernel"]
REPORT = re.compile(r"^exhaust: (\w+): (\d+) (\w+), then (\w+)$", re.M)


@pytest.fixture
def small(make_disk):
    return make_disk(size_mb=32)


def reported(r, line):
    """(what, count, error) from an exhaust run, which must also have given everything back."""
    out = r.printed(line)
    m = REPORT.search(out)
    assert m and re.search(r"^exhaust: %s: released$" % m.group(1), out, re.M), (line, out)
    return int(m.group(2)), m.group(4)


def test_exhaust_each_resource(small):
    cmds = ["sync", "vmstat", "exhaust mem", "exhaust disk", "exhaust inodes", "exhaust fds",
            "exhaust files", "exhaust icache", "exhaust pipes", "exhaust procs", "exhaust bomb 2",
            "fault stack", "sync", "vmstat", "echo survived", "audit"]
    r = boot("\n".join(cmds) + "\n", disk=small, mem=16, status=True)
    assert r.rc == 0 and "panic" not in r.out, r
    before, after = (vmstat_snapshots(r.printed("vmstat", i))[0] for i in (0, 1))
    # Counts a program can rely on: what the tables hold, less what is in use already.
    want = {
        "exhaust mem": "ENOSWAP", "exhaust disk": "ENOSPC", "exhaust inodes": "ENOSPC",
        "exhaust fds": "EMFILE", "exhaust files": "ENFILE", "exhaust icache": "ENFILE",
        "exhaust pipes": "ENFILE", "exhaust procs": "EAGAIN",
    }
    got = {}
    for line, err in want.items():
        n, e = reported(r, line)
        got[line] = n
        assert e == err and r.cmd(line).status == 0, (line, n, e, r.printed(line))
    # The heap went well past memory (16 MB) into backing store, and every page read back;
    # then the disk was full, and the message says it was the backing store, not memory.
    assert got["exhaust mem"] > 20 * 1024, got
    assert re.search(r"^exhaust: mem: sbrk: No space left for the backing store \(disk full\)$",
                     r.printed("exhaust mem"), re.M), r.printed("exhaust mem")
    assert got["exhaust disk"] > 20 * 1024 and got["exhaust inodes"] > 1500, got
    assert got["exhaust fds"] == 16 - 3, got                      # stdin, stdout, stderr
    # Its two pipes hold 4 entries, the console's one is shared by all.
    assert got["exhaust files"] == NFILE - before["fs.files.open"] - 4, (got, before)
    assert got["exhaust pipes"] == (NFILE - before["fs.files.open"] - 4) // 2, got
    # Less each child's backing files, which hold inodes too.
    assert got["exhaust icache"] >= 80, got
    # The slots counted before: vmstat's own, not there any more; then exhaust's.
    assert got["exhaust procs"] == NPROC - (before["proc.slots.used"] - 1) - 1, (got, before)
    assert re.search(r"^exhaust: procs: again %d children, then EAGAIN$" % got["exhaust procs"],
                     r.printed("exhaust procs"), re.M)
    bomb = r.printed("exhaust bomb 2")
    assert re.search(r"^exhaust: bomb: full at %d processes, fork says EAGAIN$" % NPROC, bomb, re.M), bomb
    assert "exhaust: bomb: released" in bomb and r.cmd("exhaust bomb 2").status == 0, bomb
    assert re.search(r"^pid \d+ \(fault\) killed: stack overflow", r.printed("fault stack"), re.M)
    # Nobody else was killed along the way.
    assert len(re.findall(r"killed", r.out)) == 1, r
    for name in BACK:
        assert after[name] == before[name], (name, before[name], after[name])
    assert after["mem.frames.vm"] <= before["mem.frames.vm"], (before, after)
    assert after["vm.segments"] == before["vm.segments"], (before, after)
    assert r.printed("echo survived") == "survived\n" and "audit: ok" in r.printed("audit"), r
    st, out = fsck(small)
    assert st == 0, out


def test_full_disk_still_runs_programs(small):
    """A disk full of files still starts programs (backing store keeps blocks of its own), and a
    stack that cannot grow for want of backing store kills that program alone."""
    cmds = ["sync", "vmstat", "exhaust disk -k", "fault stack", "ls /", "exhaust inodes -k",
            "ls /", "exhaust clean", "sync", "vmstat"]
    r = boot("\n".join(cmds) + "\n", disk=small, mem=16, status=True)
    assert r.rc == 0 and "panic" not in r.out, r
    assert reported_kept(r, "exhaust disk -k") == "ENOSPC"
    assert re.search(r"^pid \d+ \(fault\) killed: out of backing store growing the stack",
                     r.printed("fault stack"), re.M), r.printed("fault stack")
    assert r.cmd("ls /", 0).status == 0 and "bin" in r.printed("ls /", 0).split(), r.printed("ls /", 0)
    assert reported_kept(r, "exhaust inodes -k") == "ENOSPC"
    assert r.cmd("ls /", 1).status == 0 and "bin" in r.printed("ls /", 1).split(), r.printed("ls /", 1)
    assert re.search(r"^exhaust: clean: \d+ files removed$", r.printed("exhaust clean"), re.M)
    before, after = (vmstat_snapshots(r.printed("vmstat", i))[0] for i in (0, 1))
    for name in ("fs.disk.blocks.free", "fs.disk.descriptors.free", "proc.slots.used", "fs.files.open"):
        assert after[name] == before[name], (name, before[name], after[name])
    st, out = fsck(small)
    assert st == 0, out


def reported_kept(r, line):
    m = REPORT.search(r.printed(line))
    assert m, (line, r.printed(line))
    return m.group(4)


def test_system_answers_while_exhausted(small):
    """While a table is held full, the shell says why a command cannot run and its builtins
    work; a bystander forked meanwhile is not killed for it; a fork bomb ends with ^C; then
    everything works again."""
    steps = [
        # Process table full: the shell cannot fork.
        (r"procs: \d+ children, then EAGAIN; holding", "ps\nhelp\n"),
        ("exhaust: procs: released", "ps\nexhaust files -h 1500 &\n"),
        # Open-file table full: programs run, their opens fail.
        ("files: holding", "cat /bin/sh\n"),
        ("exhaust: files: released", "cat /exhaust.none\nexhaust forklater 2000 &\nexhaust icache -h 2000\n"),
        # The inode table full: a child forked meanwhile lives (its backing store waits).
        ("forklater: child status", "exhaust bomb 600\n"),
        ("bomb: full at", "\x03"),
        # The bomb's processes are orphans that init reaps: a sleep lets it run first (a loaded
        # host once had ps list them as zombies, init still runnable behind the shell).
        (r"\$ ", "sleep 1\nps\necho after\n"),
    ]
    r = boot("exhaust procs -h 1500 &\n", disk=small, mem=16, wait_for=steps, timeout=120)
    assert r.rc == 0 and "panic" not in r.out, r
    # Background output lands between a prompt and the echo of the next line: the phases are
    # cut from the transcript by what the guest printed, not by command.
    out = r.out
    i = out.index("holding for 1500 ms")
    procs = out[i:out.index("exhaust: procs: released", i)]
    assert "sh: fork: Resource temporarily unavailable" in procs and "builtins:" in procs, procs
    files = out[out.index("exhaust files -h"):out.index("exhaust: files: released")]
    assert re.search(r"^\s+\d+\s+9\s+\d+ running .* ps$", out[out.index("exhaust: procs: released"):
                     out.index("exhaust files -h")], re.M), out
    assert "cat: /bin/sh: Too many open files in system" in files, files
    assert "cat: /exhaust.none: No such file or directory" in out, out
    # The inode table full: the bystander's child, forked meanwhile, lived.
    assert re.search(r"^exhaust: forklater: child status 0$", out, re.M), r
    assert "vm: no backing store" not in out, r
    # ^C killed the whole bomb, and nothing else; the shell and a new program run.
    bomb = out[out.index("$ exhaust bomb 600"):]
    assert re.search(r"^exhaust: bomb: full at %d processes, fork says EAGAIN$" % NPROC, bomb, re.M), bomb
    killed = re.findall(r"^pid \d+ \((\w+)\) killed: interrupted \(\^C\) \(SIGINT, status 130\)$", bomb, re.M)
    assert len(killed) >= NPROC - 10 and set(killed) == {"exhaust"}, killed
    assert len(re.findall(r"killed", out)) == len(killed), r
    final = bomb[bomb.rindex("$ ps\n") + 5:bomb.index("$ echo after")]
    assert "exhaust" not in final and re.search(r"^\s+\d+\s+9\s+\d+ running .* ps$", final, re.M), final
    assert len(final.splitlines()) == 11, final      # header, init, 7 kernel threads, sh, ps
    assert r.printed("echo after") == "after\n", r
