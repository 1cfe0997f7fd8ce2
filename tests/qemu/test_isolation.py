"""User code cannot get around the kernel: every way a program may try (kernel memory, kernel
text, privileged instructions, kernel selectors, every `int N` but the system call's) kills that
program alone, with one line naming what it did, and the system goes on with its audit clean
and its frames all back. One boot runs them all, each attempt in a child of `fault` (user/fault.c):

  fault -a   about 60 kinds (fault -l lists each with the CPU vector that must kill it)
  fault -v   int N for the 255 vectors N != 0x80: each a general protection fault naming N
             (the gates are of privilege 0, so the IRQ vectors 0x20-0x2f cannot be raised as
             if the device had interrupted: no timer tick, no EOI to the PIC)
  fault -m   a read and a write at 68 kernel addresses (every 16 MB from 0xC0000000, the last
             word of memory, a word straddling the top of user space, VGA memory, kernel text)
  fault -f   the x87 registers are each process's own (inherited at fork, never shared)
"""
import re
from conftest import boot, vmstat_snapshots

KILLED = re.compile(r"^pid (\d+) \(fault\) killed: (.*)$", re.M)
CHILD = re.compile(r"^fault: (.+) pid (\d+) status (-?\d+)$", re.M)
# The exit status of a process killed for each vector: 128 + the signal a UNIX shell would
# report (kernel/uapi/signal.h): SIGFPE 8, SIGTRAP 5, SIGILL 4, SIGBUS 7; SIGSEGV 11 otherwise.
SIGNAL = {0: 8, 1: 5, 3: 5, 6: 4, 9: 8, 11: 7, 12: 7, 16: 8, 17: 7, 18: 7, 19: 8}
SEGV = 128 + 11


def status_for(vec):
    return 128 + SIGNAL.get(vec, 11)


WORDS = {0: "divide error", 1: "debug", 5: "bound range exceeded", 6: "invalid opcode",
         10: "invalid TSS", 13: "general protection fault", 14: ("page fault", "stack overflow"),
         16: "x87 floating-point error"}


def children(out):
    """[(what, pid, status)] of a loop mode, and its summary counts."""
    kids = [(w, int(p), int(s)) for w, p, s in CHILD.findall(out)]
    m = re.search(r"^fault: (\d+) tried, (\d+) killed, (\d+) alive$", out, re.M)
    return kids, tuple(int(x) for x in m.groups()) if m else None


def test_isolation(disk):
    cmds = "fault -l\nvmstat\nfault -a\nfault -v\nfault -m\nfault -f\necho survived\nvmstat\naudit\n"
    r = boot(cmds, disk=disk, status=True)
    assert r.rc == 0, r
    bad = []
    killed_lines = {int(p): why for p, why in KILLED.findall(r.out)}
    assert len(killed_lines) == len(KILLED.findall(r.out)), "a pid killed twice"
    accounted = set()

    # Every kind: killed by the trap the table names, and the kernel says so in one line.
    kinds = {}
    for line in r.printed("fault -l").splitlines():
        name, vec = line.split()
        kinds[name] = int(vec)
    assert len(kinds) >= 60 and {"kernel", "jump", "port", "cr3", "lgdt", "wrmsr", "ds", "farjmp",
                                 "iret0", "int20", "tfsys", "fpe"} <= set(kinds), kinds
    kids, summary = children(r.printed("fault -a"))
    assert [k[0] for k in kids] == list(kinds), kids
    for what, pid, status in kids:
        vec = kinds[what]
        accounted.add(pid)
        if vec == -2:                         # must survive (popf cannot clear IF)
            if status != 0 or pid in killed_lines:
                bad.append("%s: status %d, %r" % (what, status, killed_lines.get(pid)))
            continue
        why = killed_lines.get(pid)
        if why is None or (vec >= 0 and status != status_for(vec)) or \
                (vec < 0 and status not in {128 + s for s in (4, 5, 7, 8, 11)}):
            bad.append("%s: status %d, kernel said %r" % (what, status, why))
        elif vec >= 0 and not why.startswith(WORDS[vec]):
            bad.append("%s: killed for %r, expected %s" % (what, why, WORDS.get(vec)))
    assert summary == (len(kinds), len(kinds) - 1, 1), summary

    # Every vector but 0x80: refused by the gate's privilege, and the kernel names the vector.
    kids, summary = children(r.printed("fault -v"))
    assert [k[0] for k in kids] == ["int 0x%02x" % n for n in range(256) if n != 0x80], kids
    assert summary == (255, 255, 0), summary
    for what, pid, status in kids:
        accounted.add(pid)
        why = killed_lines.get(pid, "")
        want = "general protection fault (%s)" % what
        if status != SEGV or not why.startswith(want):
            bad.append("%s: status %d, kernel said %r" % (what, status, why))

    # Kernel addresses: a page fault naming the address (the straddling word faults on its
    # kernel half).
    kids, summary = children(r.printed("fault -m"))
    assert len(kids) == 136 and summary == (136, 136, 0), (summary, kids[:3])
    for what, pid, status in kids:
        accounted.add(pid)
        op, addr = what.split()
        addr = max(int(addr, 16), 0xC0000000)
        why = killed_lines.get(pid, "")
        want = "page fault: %s kernel address 0x%08x" % ("reading" if op == "read" else "writing", addr)
        if status != SEGV or not why.startswith(want):
            bad.append("%s: status %d, kernel said %r" % (what, status, why))
    assert not bad, "%d wrong:\n%s" % (len(bad), "\n".join(bad[:20]))

    assert re.search(r"^fault: fpu: parent ok \(0x400921fb54442d18\), child ok \(status 0\)$",
                     r.printed("fault -f"), re.M), r.printed("fault -f")
    # Nothing but the children was killed, the system goes on, nothing leaked.
    assert set(killed_lines) == accounted - {p for w, p, s in children(r.printed("fault -a"))[0]
                                              if kinds[w] == -2}, set(killed_lines) ^ accounted
    assert "panic" not in r.out, r
    assert r.printed("echo survived") == "survived\n", r
    assert r.cmd("audit").status == 0 and "audit: ok" in r.printed("audit"), r.printed("audit")
    snaps = [vmstat_snapshots(r.printed("vmstat", i))[0] for i in (0, 1)]
    frames = [s["mem.frames.free"] + s["mem.frames.cache"] for s in snaps]
    assert frames[0] == frames[1], frames
