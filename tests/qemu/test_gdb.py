"""The gdb commands (tools/gdb, `make gdb`) against the kernel they describe, in batch mode.

Each test stops the kernel where it computes an answer itself -- SYS_ps filling its table,
SYS_kstat formatting the counters -- lets that finish, and compares it with what the gdb
command reads from memory at that same instant: the machine is stopped in between, so every
column must agree exactly. Commands whose answer the kernel never prints are checked against
independent counts (the LRU list against fs.cache.blocks, the core map's pools against
mem.frames.*)."""
import re

from gdbsession import session, errors

STATES = {1: "sleep", 2: "runnable", 3: "running", 4: "zombie"}

# Prints the SYS_ps table proc_list just filled ($pout, $pn), one process a line.
DUMP_PROCINFO = ("python exec(\"import gdb\\nn = int(gdb.parse_and_eval('$pn'))\\n"
                 "for i in range(n):\\n p = gdb.parse_and_eval('$pout[%d]' % i)\\n"
                 " print('procinfo', int(p['pid']), int(p['ppid']), int(p['pgid']), int(p['state']), "
                 "int(p['size']), int(p['pageins']), int(p['pageouts']), p['name'].string())\")")


def table_rows(text, first="PID"):
    """The rows of a command's table: lists of cells split on runs of two or more spaces."""
    lines = [l for l in text.splitlines() if l.strip()]
    start = next(i for i, l in enumerate(lines) if l.split()[0] == first)
    head = re.split(r"\s{2,}", lines[start].strip())
    return head, [re.split(r"\s{2,}", l.strip()) for l in lines[start + 1:] if not l.startswith("@@@")]


def test_counters_and_ps_agree_with_the_kernel(disk):
    guest = "corrupt family 2 4 &\nsleep 1\nps\nvmstat\n"
    steps = ['break proc_list if $_streq(current->name, "ps")', "continue", "set $pout = out", "finish", "set $pn = $", DUMP_PROCINFO, "ps",
             "delete", 'break stat_format if $_streq(current->name, "vmstat")', "continue", "set $kbuf = buf", "finish", 'printf "%s", $kbuf',
             "counters", "counters neg.", "help counters", "help ps", "kill"]
    r = session(disk, guest, steps)
    for c in steps:
        assert not errors(r.of(c)), (c, r.of(c), r)

    # ps: every process SYS_ps reported, column for column, and nothing more.
    kernel = {}
    for line in r.of(DUMP_PROCINFO).splitlines():
        if line.startswith("procinfo "):
            pid, ppid, pgid, state, size, pin, pout, name = line.split()[1:9]
            kernel[int(pid)] = [int(ppid), int(pgid), STATES[int(state)], int(size), int(pin), int(pout), name]
    assert len(kernel) >= 12, r          # init, 7 kernel threads, sh, the family of 3, ps
    head, rows = table_rows(r.of("ps"))
    assert head[:10] == ["PID", "PPID", "PGID", "STATE", "SIZE", "PAGEIN", "PAGEOUT", "NAME", "SEGS", "WAITS"], head
    shown = {}
    for row in rows:
        pid = int(row[0])
        state = "runnable" if row[3] == "embryo" else row[3]
        shown[pid] = [int(row[1]), int(row[2]), state, int(row[4]), int(row[5]), int(row[6]), row[7].rstrip("*")]
    assert shown == kernel, (shown, kernel, r)
    current = [row for row in rows if row[7].endswith("*")]
    assert len(current) == 1 and current[0][7] == "ps*", r
    family = [row for row in rows if row[7] == "corrupt"]
    assert len(family) == 3 and all(re.fullmatch(r"code=\d+ heap=\d+ stack=\d+", row[8]) for row in family), r
    # the two children wait for the pipe's lock their parent holds, or on the pipe
    assert any("sleep lock" in " ".join(row[9:]) or "piperead" in " ".join(row[9:]) for row in family), r

    # counters: what stat_format wrote, name for name and value for value.
    def parse(text):
        return [tuple(l.split(" ", 1)) for l in text.splitlines() if re.fullmatch(r"[a-z_.]+ \S+", l)]
    kernel = parse(r.of('printf "%s", $kbuf'))
    ours = parse(r.of("counters"))
    assert len(kernel) > 60, r
    assert ours == kernel, ([(a, b) for a, b in zip(ours, kernel) if a != b], r)
    assert [n for n, _ in parse(r.of("counters neg."))] == [n for n, _ in kernel if n.startswith("neg.")], r
    assert "counters [PREFIX]" in r.of("help counters") and "PAGEIN" in r.of("help ps"), r


def test_make_gdb_without_qemu_says_so_at_once(tmp_path):
    """No QEMU waiting (no port file, or one left by a QEMU that is gone): one line, at once."""
    import os, subprocess, time
    from conftest import ROOT
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    for stale in (None, "27999 999999999 %s\n" % (tmp_path / "kernel.elf")):
        if stale:
            (tmp_path / "gdb.port").write_text(stale)
        t = time.time()
        p = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "gdb", "DB=%s" % tmp_path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=60)
        took = time.time() - t
        out = p.stdout.decode()
        assert p.returncode != 0 and "no QEMU is waiting for gdb" in out and "make qemu-gdb" in out, out
        assert took < 5, took


def test_two_qemus_waiting_for_gdb_get_two_ports(tmp_path):
    """Two `make qemu-gdb` on one machine (runqemu --gdb auto): each its own port, printed."""
    import os, signal, subprocess, sys, time
    from conftest import ROOT
    from gdbsession import DEBUG_KERNEL
    runs = []
    for name in ("a", "b"):
        f = tmp_path / (name + ".port")
        p = subprocess.Popen([sys.executable, str(ROOT / "tools/runqemu.py"), "--kernel", str(DEBUG_KERNEL),
                              "--gdb", "auto", "--gdb-file", str(f), "--timeout", "60"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 20
        while not f.exists() and time.time() < deadline:
            time.sleep(0.05)
        runs.append((p, f))
    try:
        ports = []
        for p, f in runs:
            port, pid, kernel = f.read_text().split()
            ports.append(int(port))
            assert kernel == str(DEBUG_KERNEL)
        assert ports[0] != ports[1], ports
    finally:
        for p, f in runs:
            if f.exists():
                os.kill(int(f.read_text().split()[1]), signal.SIGKILL)     # the QEMU it started
            p.wait(timeout=30)
    for (p, f), port in zip(runs, ports):
        err = p.stderr.read().decode()
        assert "QEMU waits for gdb on localhost:%d" % port in err, err
        assert not f.exists()
