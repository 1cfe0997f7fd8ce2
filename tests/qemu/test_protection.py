"""/swap and /bin are the kernel's (fs/protect.c): a user program cannot reach /swap, where the
VM keeps its backing files, by any path, nor change /bin unless fs.bin_writable=1. Each refusal
is the tool's one-line error with its failing status, and afterwards the disk is fsck clean."""
import re
from conftest import boot, fsck

DENIED = "Permission denied"            # EACCES: /swap
FIXED = "Operation not permitted"       # EPERM: a change to /bin

# (command, what it prints): every way in to /swap, each refused.
SWAP_ATTACKS = [
    ("ls /swap", "ls: /swap: " + DENIED + " (ls -ld /swap shows the directory itself)"),
    ("cat /swap/seg1", "cat: /swap/seg1: " + DENIED),
    ("echo x > /swap/seg1", "sh: /swap/seg1: " + DENIED),
    ("echo x >> /swap/seg1", "sh: /swap/seg1: " + DENIED),
    ("cp /bin/echo /swap/seg1", "cp: /swap/seg1: " + DENIED),
    ("cp /bin/echo /swap/new", "cp: /swap/new: " + DENIED),
    ("rm /swap/seg1", "rm: /swap/seg1: " + DENIED),
    ("rm -r /swap", "rm: /swap: " + DENIED),
    ("mv /swap/seg1 /tmp/s", "mv: /swap/seg1 -> /tmp/s: " + DENIED),
    ("mv /tmp/f /swap/seg1", "mv: /tmp/f -> /swap/seg1: " + DENIED),
    ("mv /tmp/f /swap/new", "mv: /tmp/f -> /swap/new: " + DENIED),
    ("mv /swap /tmp/s", "mv: /swap -> /tmp/s: " + DENIED),
    ("mv /tmp/d /swap", "mv: /tmp/d -> /swap/d: " + DENIED),   # into it, as it is a directory
    ("mkdir /swap/d", "mkdir: /swap/d: " + DENIED),
    ("rmdir /swap", "rmdir: /swap: " + DENIED),
    ("cd /swap", "sh: cd: /swap: " + DENIED),
    ("/swap/seg1", "sh: /swap/seg1: " + DENIED),
    ("ls -l /swap/seg1", "ls: /swap/seg1: " + DENIED),
    # Other spellings of the same place.
    ("cat //swap/seg1", "cat: //swap/seg1: " + DENIED),
    ("cat /./swap/../swap/seg1", "cat: /./swap/../swap/seg1: " + DENIED),
    ("cat /tmp/../swap/seg1", "cat: /tmp/../swap/seg1: " + DENIED),
    ("cat /../swap/seg1", "cat: /../swap/seg1: " + DENIED),
    ("ls //swap/", "ls: //swap/: " + DENIED + " (ls -ld //swap/ shows the directory itself)"),
    ("cd /swap/..", "sh: cd: /swap/..: " + DENIED),
    ("cd /tmp; cat ../swap/seg1", "cat: ../swap/seg1: " + DENIED),
    ("cd /; rm swap/seg1", "rm: swap/seg1: " + DENIED),
]

# Changes to /bin, refused while fs.bin_writable is 0.
BIN_ATTACKS = [
    ("rm /bin/ls", "rm: /bin/ls: " + FIXED),
    ("echo x > /bin/ls", "sh: /bin/ls: " + FIXED),
    ("echo x >> /bin/ls", "sh: /bin/ls: " + FIXED),
    ("cp /bin/echo /bin/ls", "cp: /bin/ls: " + FIXED),
    ("cp /bin/echo /bin/new", "cp: /bin/new: " + FIXED),
    ("mv /bin/ls /tmp/ls", "mv: /bin/ls -> /tmp/ls: " + FIXED),
    ("mv /tmp/f /bin/ls", "mv: /tmp/f -> /bin/ls: " + FIXED),
    ("mv /tmp/d /bin/ls", "mv: /tmp/d -> /bin/ls: " + FIXED),        # ls replaced by a directory
    ("mkdir /bin/d", "mkdir: /bin/d: " + FIXED),
    ("rm -r /bin", "rm: /bin/audit: " + FIXED),
    ("rmdir /bin", "rmdir: /bin: " + FIXED),
    ("mv /bin /oldbin", "mv: /bin -> /oldbin: " + FIXED),
    ("mv /tmp/d /bin", "mv: /tmp/d -> /bin/d: " + FIXED),
    ("cat /bin/../bin/./ls > /bin//ls", "sh: /bin//ls: " + FIXED),
    ("cd /bin; rm ls", "rm: ls: " + FIXED),
    ("cd /bin; echo x > cat", "sh: cat: " + FIXED),
    ("cd /bin/..; rmdir bin", "rmdir: bin: " + FIXED),
]


def refused(r, attacks):
    for line, msg in attacks:
        c = r.cmd(line)
        # rm -r goes on after a refused entry: its first line is enough.
        got = c.out.splitlines()[:1] if line.startswith("rm -r") else c.out.splitlines()
        assert got == [msg] and c.status not in (0, None), (c, r)


def test_swap_is_unreachable_for_user_programs(disk):
    cmds = ["echo hi > /tmp/f", "mkdir /tmp/d"] + [a for a, _ in SWAP_ATTACKS] + ["ls -l /", "echo alive"]
    r = boot("\n".join(cmds) + "\n", disk=disk, status=True)
    assert r.rc == 0, r
    refused(r, SWAP_ATTACKS)
    # stat of /swap itself is allowed (ls -l / shows it); nothing beyond it.
    root = r.cmd("ls -l /")
    assert root.status == 0 and re.search(r"^d +\d+ +\d+ +\d+s swap$", root.out, re.M), r     # type links size time
    assert r.printed("echo alive") == "alive\n", r
    rc, out = fsck(disk)
    assert rc == 0, out


def test_bin_is_read_only_unless_asked(disk):
    install = ["sysctl fs.bin_writable=1", "cp /bin/echo /bin/myecho", "myecho installed", "rm /bin/myecho",
               "sysctl fs.bin_writable=0", "cp /bin/echo /bin/myecho"]
    cmds = (["echo hi > /tmp/f", "mkdir /tmp/d", "cksum /bin/ls", "ls /bin | wc -l"] + [a for a, _ in BIN_ATTACKS]
            + ["cd /", "cksum /bin/ls", "ls /bin | wc -l", "ls /", "ls /tmp"] + install)
    r = boot("\n".join(cmds) + "\n", disk=disk, status=True)
    assert r.rc == 0, r
    refused(r, BIN_ATTACKS)
    # Nothing changed: ls is the same program, /bin holds as many, no /oldbin, /tmp as it was.
    assert r.cmd("cksum /bin/ls").status == 0 and r.printed("cksum /bin/ls") == r.printed("cksum /bin/ls", 1), r
    assert r.printed("ls /bin | wc -l") == r.printed("ls /bin | wc -l", 1), r
    assert r.printed("ls /") == "bin\ntmp\nswap\n" and r.printed("ls /tmp") == "f\nd\n", r
    # Asked for, /bin takes a new program, runs it and lets it go; then it is closed again.
    assert all(r.cmd(c).status == 0 for c in install[:-1]), r.cmds
    assert r.printed("myecho installed") == "installed\n", r
    again = r.cmd("cp /bin/echo /bin/myecho", 1)
    assert again.out == "cp: /bin/myecho: %s\n" % FIXED and again.status == 1, r
    rc, out = fsck(disk)
    assert rc == 0, out


def test_attacks_on_backing_files_leave_a_paging_program_intact(disk):
    # memhog fills 24 MB in a 16 MB machine, so its pages go to its backing file, and reads
    # them all back twice, checking every word; meanwhile the other side of the pipe tries to
    # truncate, overwrite, move and remove every backing file there may be, its own included.
    attacks = "; ".join("echo x > /swap/seg%d; cp /bin/sh /swap/seg%d; mv /swap/seg%d /tmp/s%d; rm /swap/seg%d"
                        % ((i,) * 5) for i in range(24))
    line = "memhog 24 | sh -c '%s; cat' 2> /tmp/errors" % attacks
    r = boot(line + "\nwc -l /tmp/errors\nls /tmp\necho alive\n", disk=disk, mem=16, status=True, timeout=300)
    assert r.rc == 0, r
    c = r.cmd(line)
    assert c.out == "memhog: 24 MB ok\n" and c.status == 0, r
    assert r.printed("wc -l /tmp/errors") == "%d /tmp/errors\n" % (24 * 4), r       # every attempt refused
    assert r.printed("ls /tmp") == "errors\n" and r.printed("echo alive") == "alive\n", r
    rc, out = fsck(disk)
    assert rc == 0 and b" ok: " in out, out
