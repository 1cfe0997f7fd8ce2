"""Messages a student can read: the kernel's own words instead of raw numbers.

  - the ^P dump names each sleeper's wait and kernel call chain by function (kernel/proc.c,
    with the symbol table of kernel/ksyms.c), checked against the ELF's own symbols;
  - negtrace says "free" for a free cache block on offer, where it showed the uptime as its age;
  - a killed program's exit status is 128 + the signal a UNIX shell would report (139 for a
    page fault, not 128 + the vector), and the kernel's line says which (kernel/uapi/signal.h);
  - a heap that cannot grow for want of backing store says so (ENOSWAP, "No space left for the
    backing store (disk full)"), not "Cannot allocate memory": checked where the disk fills, in
    test_vm.py (memhog) and test_exhaustion.py (exhaust mem).
"""
import re
import subprocess
from conftest import BUILD, boot

CROSS = "i686-linux-gnu-"


def kernel_functions():
    """{name: size} of the kernel's functions, from the ELF that was booted."""
    out = subprocess.run([CROSS + "nm", "-S", "--defined-only", str(BUILD / "kernel.elf")],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    funcs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            funcs[parts[3]] = int(parts[1], 16)
        elif len(parts) == 3 and parts[1] in "tT":          # no size (assembly labels)
            funcs.setdefault(parts[2], 1 << 20)
    return funcs


def code_names(text, funcs):
    """The function+offset names in text, each checked to be inside a kernel function."""
    names = re.findall(r"(?<![\w.])([A-Za-z_][\w.]*)\+0x([0-9a-f]+)\b", text)
    bad = [(n, o) for n, o in names if n not in funcs or int(o, 16) >= funcs[n]]
    assert not bad, ("not kernel functions (nm)", bad, text)
    return [n for n, _ in names]


def test_ctrl_p_dump_names_functions(disk):
    # A sleeper (sleep_ms), a pipe reader (wc) behind it, and the shell waiting for neither
    # (both in the background): then ^P.
    # ^P once a foreground sleep 1 is over: by then both jobs sleep and the shell reads.
    steps = [(r"\[\d+\]\n", "sleep 30 | wc &\nsleep 1\n"), (r"\$ sleep 1\n\$ ", "\x10"),
             (r"--- end of \^P dump", "echo done\n")]
    r = boot("sleep 30 &\n", disk=disk, wait_for=steps, timeout=120)
    assert r.rc == 0, r
    dump = r.out[r.out.index("--- ^P dump"):r.out.index("--- end of ^P dump")]
    funcs = kernel_functions()
    procs = re.findall(r"^  (pid \d+ ppid \d+ .*)\n    pcs: (.*)$", dump, re.M)
    assert len(procs) >= 8, dump                   # init, sh, sleep x2, wc, the kernel threads
    for line, pcs in procs:
        assert "0x" not in pcs.replace("+0x", ""), ("a raw address in a call chain", pcs)
        assert len(code_names(pcs, funcs)) == len(pcs.split()), pcs
    lines = {m.group(1): m for m in re.finditer(r"^  pid (\d+) ppid \d+ (\w+) (\w+).*$", dump, re.M)}
    by_name = {}
    for pid, m in lines.items():
        by_name.setdefault(m.group(3), []).append(m.group(0))
    # sleep: on the clock's tick count, called from sleep_ms, the system call under it. Every
    # tick wakes them to look at the time, so on a loaded host either or both may be caught
    # runnable, not yet back asleep: still inside sleep_ms.
    assert len(by_name["sleep"]) == 2, dump
    for l in by_name["sleep"]:
        assert re.search(r" wchan ticks from sleep_ms\+0x[0-9a-f]+$", l) or re.search(r" runnable sleep$", l), l
        chain = dict(procs)[l.strip()]
        names = code_names(chain, funcs)
        assert "sleep" in names and "sleep_ms" in names and "sys_sleep" in names, chain
        assert names.index("sleep") < names.index("sleep_ms") < names.index("sys_sleep"), chain
    # wc: on its pipe, in piperead, with the pipe's address (every pipe's reader sleeps on p->count).
    (wc,) = by_name["wc"]
    assert re.search(r" wchan p->count 0x[0-9a-f]{8} from piperead\+0x[0-9a-f]+$", wc), wc
    assert "piperead" in code_names(dict(procs)[wc.strip()], funcs), dump
    # The shell reads the console; init waits for a child; the page-out daemon on its laundry.
    # (or still running, having just printed its prompt: the ^P's interrupt came in its time,
    # and its chain is the dump's own, from the serial interrupt)
    (sh,) = by_name["sh"]
    assert re.search(r" wchan in\.r from console_read\+0x[0-9a-f]+$", sh) or (
        sh.endswith(" run sh") and "serial_intr" in code_names(dict(procs)[sh.strip()], funcs)), (sh, dump)
    (init,) = by_name["init"]
    assert re.search(r" wchan p 0x[0-9a-f]{8} from wait\+0x[0-9a-f]+ \(a child's exit\)$", init), init
    assert "done" in r.out[r.out.index("--- end of ^P dump"):], r


def test_negtrace_says_free_for_a_free_block(disk):
    # Writing a 20 MB file in 16 MB leaves the cache's recycled blocks on its free list (a
    # dirty block goes there once written): memhog's faults ask the cache, which gives those
    # first, a free block being older than any. Once cksum has read the file, the cache holds
    # it all, clean, with ages, and the next memhog takes its oldest blocks. No bound on dirty
    # blocks (Sprite's way): with one, the cleaners write them early and they stay cached, clean.
    lines = ("sysctl vm.penalty=0\nsysctl fs.dirty_ratio=0\nsysctl fs.dirty_background_ratio=0\n"
             "mklines /tmp/big 20M\nsysctl neg.reset=1\nmemhog 1\nnegtrace -n 16\n"
             "cksum /tmp/big\nsysctl neg.reset=1\nmemhog 2\nnegtrace -n 16\n")
    r = boot(lines, disk=disk, mem=16, status=True, timeout=600)
    assert r.rc == 0, r

    def rows(nth):
        assert r.cmd("memhog %d" % (nth + 1)).status == 0 and r.cmd("negtrace -n 16", nth).status == 0, r
        out = r.printed("negtrace -n 16", nth).splitlines()
        assert out[0] == "seq time_ms asker fs_age_ms vm_age_ms penalty_s gave cache_frames vm_frames free_frames vm_refaults vm_saved evidence_age_ms", out
        got = [row.split()[:7] for row in out[1:]]
        assert len(got) == 16 and all(len(row.split()) == 13 for row in out[1:]), out
        return got
    free, aged = rows(0), rows(1)
    # The last rows may be the kernel's own asks (the page tables and stack of the shell's next
    # program) once memhog is done: those ask the same cache, so only memhog's share is checked
    # to be most of them (three quarters; a window of 16, since three workers' timing once left
    # three of the kernel's asks in a window of 8).
    for got in (free, aged):
        assert [row[2] for row in got].count("vm") >= 12 and {row[2] for row in got} <= {"vm", "kernel"}, got
    # memhog's first or last asks may find the free list spent (how many recycled blocks it
    # holds depends on when the cleaners wrote them): those show an age, and the oldest block
    # may be one still dirty, which the asker waits for (busy; a loaded host's cleaners lag);
    # the rest say free and are given.
    assert [(fs, gave) for _, _, _, fs, _, _, gave in free].count(("free", "fs")) >= 5, free
    for seq, t, asker, fs, vm, pen, gave in free:
        assert (fs == "free" and gave == "fs") or (fs.isdigit() and int(fs) < int(t) and gave in ("fs", "busy")), free
    for seq, t, asker, fs, vm, pen, gave in aged:
        # an ordinary block's age: ms since its last use, less than the uptime
        assert gave == "fs" and fs.isdigit() and int(fs) < int(t), aged


# fault KIND: the signal its trap is reported as, and the words of the kernel's line.
STATUSES = [("null", "SIGSEGV", 139, "page fault"), ("priv", "SIGSEGV", 139, "general protection fault"),
            ("div0", "SIGFPE", 136, "divide error"), ("fpe", "SIGFPE", 136, "x87 floating-point error"),
            ("ud", "SIGILL", 132, "invalid opcode"), ("tf", "SIGTRAP", 133, "debug"),
            ("stack", "SIGSEGV", 139, "stack overflow")]


def test_killed_programs_exit_with_unix_signal_statuses(disk):
    lines = ["fault %s" % kind for kind, _, _, _ in STATUSES] + ["usertests killsleep"]
    r = boot("\n".join(lines) + "\n", disk=disk, status=True, timeout=300)
    assert r.rc == 0, r
    for kind, sig, status, words in STATUSES:
        c = r.cmd("fault " + kind)
        killed = re.findall(r"^pid \d+ \(fault\) killed: (.*)$", c.out, re.M)
        assert len(killed) == 1 and killed[0].startswith(words), (kind, c)
        assert killed[0].endswith(" (%s, status %d)" % (sig, status)), (kind, killed)
        assert c.status == status, (kind, c)
    # kill: SIGKILL, 137, for a sleeper, a pipe reader, a spinner and a waiter alike
    c = r.cmd("usertests killsleep")
    assert "test killsleep: OK" in c.out and c.status == 0, c
