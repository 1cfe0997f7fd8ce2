#!/usr/bin/env python3
"""`make gdb`: attaches gdb to the QEMU that `make qemu-gdb` started, with the kernel's symbols
and the project's commands (tools/gdb/), leaving the user's own gdb settings alone.

make qemu-gdb (tools/runqemu.py --gdb auto --gdb-file FILE) writes "PORT PID KERNEL" to FILE
while its QEMU runs. Without that file, or when the QEMU it names has gone, there is nothing to
attach to, and this says so at once instead of letting gdb retry the port for seconds.

  tools/gdb/rungdb.py PORTFILE [GDB ARGUMENTS...]     e.g. -batch -ex 'counters vm.' (the tests)

Exit status: gdb's, or 1 with one line when no QEMU is waiting.
"""
import os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def waiting_qemu(portfile):
    """(port, kernel) of the QEMU named by portfile, or None when it is not running."""
    try:
        port, pid, kernel = open(portfile).read().split(None, 2)
        port, pid, kernel = int(port), int(pid), kernel.strip()
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass                    # someone else's process took the pid: no QEMU of ours
    return port, kernel


def gdbinit(port, kernel):
    """The commands gdb runs at start: symbols, the target, the project's commands."""
    return "\n".join([
        "set confirm off",
        "set pagination off",
        "set architecture i386",
        # A QEMU that died since we looked: fail in a second, not after gdb's 15 s of retries.
        "set tcp connect-timeout 3",
        # A reply QEMU is slow to send (a loaded host leaves its gdb stub unscheduled for seconds)
        # must not be given up on: after gdb's default 2 s it gives up on the reply and reads it
        # late as the answer to its next packet ("Invalid hex digit", garbage memory; most likely
        # also a stop reported as SIGINT). A QEMU that dies closes the connection, which gdb sees at once.
        "set remotetimeout 60",
        "file %s" % kernel,
        "source %s" % os.path.join(ROOT, "tools", "gdb", "kernel.py"),
        "target remote localhost:%d" % port,
        "",
    ])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    portfile, extra = sys.argv[1], sys.argv[2:]
    found = waiting_qemu(portfile)
    if not found:
        sys.stderr.write("make gdb: no QEMU is waiting for gdb: start one with 'make qemu-gdb' "
                         "in another terminal first\n")
        return 1
    port, kernel = found
    # Next to the port file and named after it: tests run several sessions side by side.
    init = os.path.splitext(os.path.abspath(portfile))[0] + ".gdbinit"
    with open(init, "w") as f:
        f.write(gdbinit(port, kernel))
    if "-batch" not in extra:
        sys.stderr.write("make gdb: attaching to localhost:%d (%s)\n" % (port, os.path.relpath(kernel)))
    # -nx: the user's ~/.gdbinit is neither needed nor changed. -x runs before extra's -ex.
    os.execvp("gdb", ["gdb", "-q", "-nx", "-x", init] + extra)


if __name__ == "__main__":
    sys.exit(main())
