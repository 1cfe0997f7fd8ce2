"""Runs the real gdb in batch mode against the real QEMU, as `make qemu-gdb` and `make gdb` do.

QEMU boots the kernel waiting for gdb (tools/runqemu.py --gdb PORT --gdb-file F) with the
guest's commands on its standard input (forwarded once the kernel is ready); gdb attaches
through tools/gdb/rungdb.py F, the very launcher of `make gdb`, and runs the test's gdb commands
one after the other. Each command's output is cut out by a marker echoed before it, so a test
reads what one command printed. Ports are picked free by the system, so parallel test
workers never share one.

Logs: build/test-logs/TEST.log (the console) and TEST.gdb.log (gdb's whole output)."""
import os, re, subprocess, sys, threading, time
from pathlib import Path

from conftest import BUILD, ROOT, _new_log, runqemu

DEBUG_KERNEL = BUILD / "debug" / "kernel.elf"
KERNEL = BUILD / "kernel.elf"
MARK = "@@@gdbtest "


class GdbRun:
    def __init__(self, steps, out, console, qemu_rc, gdb_rc, log, gdb_log):
        self.steps, self.out, self.console = steps, out, console
        self.qemu_rc, self.gdb_rc, self.log, self.gdb_log = qemu_rc, gdb_rc, log, gdb_log
        self.outputs = {}
        parts = re.split(r"^%s(\d+)\n" % re.escape(MARK), out, flags=re.M)
        for i in range(1, len(parts) - 1, 2):
            self.outputs[int(parts[i])] = parts[i + 1]

    def of(self, command, nth=0):
        """What the nth run of a gdb command printed (stdout and stderr, in order)."""
        hits = [i for i, c in enumerate(self.steps) if c == command]
        assert len(hits) > nth, ("never sent: %r" % command, self)
        assert hits[nth] in self.outputs, ("gdb never ran %r (it stopped before)" % command, self)
        return self.outputs[hits[nth]]

    def __repr__(self):
        tail = "\n".join(self.out.splitlines()[-30:])
        return ("gdb log %s, console %s; qemu exit %s, gdb exit %s; gdb's last lines:\n%s"
                % (os.path.relpath(self.gdb_log), os.path.relpath(self.log), self.qemu_rc, self.gdb_rc, tail))


def feed(qemu, log, guest):
    """Writes the guest's input: a string at once, or [(REGEX, TEXT), ...] each TEXT once the
    console (the log) matches REGEX after the previous one; TEXT may be a function of the match."""
    steps = [(None, guest)] if isinstance(guest, str) else list(guest)
    pos = 0
    try:
        for rx, text in steps:
            m = None
            while rx is not None and m is None:
                console = log.read_text("utf-8", "replace")
                m = re.compile(rx, re.M).search(console, pos)
                if m is None:
                    if qemu.poll() is not None:
                        return
                    time.sleep(0.1)
            if m is not None:
                pos = m.end()
            qemu.stdin.write((text(m) if callable(text) else text).encode())
            qemu.stdin.flush()
        qemu.stdin.close()
    except (OSError, ValueError):
        pass


def session(disk, guest, steps, *, mem=16, cmdline="", kernel=DEBUG_KERNEL, timeout=150):
    """Boots kernel waiting for gdb, the guest's shell fed `guest` (see feed), and runs `steps`
    (gdb commands) in `gdb -batch`. The last step usually kills QEMU ('kill') or lets it go on
    ('detach'); QEMU is killed at the end in any case."""
    log = _new_log()
    gdb_log = Path(str(log)[:-len(".log")] + ".gdb.log")
    portfile = Path(str(log)[:-len(".log")] + ".port")
    # --gdb auto: runqemu picks a free port, and another when a QEMU started alongside took it
    qemu = subprocess.Popen(
        runqemu.command(kernel=kernel, append=cmdline, disk=disk, mem=mem, gdb="auto", gdb_file=portfile,
                        timeout=timeout),
        stdin=subprocess.PIPE, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while not portfile.exists() and qemu.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    feeder = threading.Thread(target=feed, args=(qemu, log, guest), daemon=True)
    feeder.start()
    args = [sys.executable, str(ROOT / "tools/gdb/rungdb.py"), str(portfile), "-batch"]
    for i, c in enumerate(steps):
        args += ["-ex", "echo %s%d\\n" % (MARK, i), "-ex", c]
    try:
        g = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout + 30,
                           cwd=str(ROOT))
        out, grc = g.stdout.decode("utf-8", "replace"), g.returncode
    except subprocess.TimeoutExpired as e:
        out, grc = (e.stdout or b"").decode("utf-8", "replace") + "\n[gdb timed out]\n", None
    try:
        qemu.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        qemu.kill()
        qemu.wait()
    gdb_log.write_text(out)
    return GdbRun(list(steps), out, log.read_text("utf-8", "replace"), qemu.returncode, grc, log, gdb_log)


def errors(text):
    """gdb's error lines in a command's output (a Python exception, a failed command)."""
    return [l for l in text.splitlines()
            if l.startswith(("Python Exception", "Error occurred", "Traceback")) or "Error while" in l]
