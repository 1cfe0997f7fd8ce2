#!/usr/bin/env python3
"""Runs the kernel in QEMU with the serial console on this terminal or pipe.

Standard input is held back until the kernel prints "console: ready" (GRUB would otherwise
swallow it), then forwarded byte for byte; its end becomes ^D, end of file for the shell.
On a terminal every key goes to the guest, Ctrl-C too (the guest's shell interrupts its
foreground job); QEMU's escape is ours, since its serial mux never sees the terminal:
Ctrl-A X quits, Ctrl-A Ctrl-A types a literal ^A.

Exit status:
  0    the kernel powered off cleanly
  1    the kernel powered off reporting a failure (a panic, an unusable disk, too little memory)
  2    anything else: QEMU could not start (a bad option, the disk image locked by another
       QEMU), stopped without the kernel powering off (a triple fault, a crash, quit from its
       monitor), or this script refused to start it (a missing file, too little memory);
       one line on standard error says what happened and what to do
  124  --timeout expired (the guest is sent ^P first, and its state dump, kernel/dump.c, is
       given a few seconds to arrive; its call chains are then shown as function names)
  125  --cpu-limit spent: QEMU used that much CPU time and the guest had not powered off (a
       guest that loops, or a workload far longer than it should be; ^P first, as for 124)
  137  --kill-on saw its text (a hard stop: a power cut, no sync)
  130  quit with Ctrl-A X (no sync either)
The kernel powers off through QEMU's isa-debug-exit device, which makes QEMU exit with
(value << 1) | 1: 33 for a clean power-off and 35 for a failure (kernel/power.h). QEMU's own
statuses (0, 1) never mean either, so a QEMU that fails to start is never taken for a clean
power-off.

--cpu-limit is the hang watch that a loaded machine does not trip: under TCG every guest
instruction is QEMU's work, so QEMU's CPU time (user and system, all its threads, from /proc)
counts what the guest did, however slowly the host let it run, where --timeout counts the
host's wall clock. A guest that waits (idle, a timer) costs QEMU little CPU: --timeout remains
the backstop for that.

From Python (the tests, the benchmarks, the tools that boot the kernel): command(...) gives the
command line that runs this launcher with the options named, so that every boot goes through
here and only this file knows the options' spelling.
"""
import argparse, os, re, select, shutil, signal, subprocess, sys, termios, threading, time

READY = b"console: ready"
EOT = b"\x04"
ESC = 0x01          # Ctrl-A, as in QEMU's mux
DUMP_KEY = b"\x10"  # ^P: the kernel prints its state (kernel/dump.c)
DUMP_END = b"--- end of ^P dump"
DUMP_WAIT = 15      # seconds a timed-out guest gets to print it (a loaded host is slow)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXIT_CLEAN, EXIT_FAILURE = (0x10 << 1) | 1, (0x11 << 1) | 1    # kernel/power.h


def mem_min_mb():
    """The least memory the kernel runs in: MEM_MIN_MB of kernel/memlayout.h, which the kernel
    itself checks at boot. Below it GRUB would hang and the kernel refuse to start."""
    with open(os.path.join(ROOT, "kernel", "memlayout.h")) as f:
        return int(re.search(r"#define\s+MEM_MIN_MB\s+(\d+)", f.read()).group(1))


def qemu_command(a):
    cmd = ["qemu-system-i386", "-m", str(a.mem), "-display", "none", "-monitor", "none", "-nic", "none",
           "-serial", "stdio", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if a.accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg"]
    if a.icount is not None:
        cmd += ["-icount", "shift=%s%s%s" % (a.icount, ",align=on" if a.icount_align else "",
                                             ",sleep=off" if a.icount_sleep_off else "")]
    if a.disk:
        # The cache mode named, not left to QEMU's default, so that both kernels' disks are the
        # same by construction (bench_linux.py boots Linux through here too): writeback, the
        # host's page cache under the image, a guest's flush an fdatasync of it (unless
        # --no-host-flush).
        cmd += ["-drive", "file=%s,if=virtio,format=raw,cache=%s%s%s" % (
            a.disk, DISK_CACHE, throttling(a), ",cache.no-flush=on" if a.no_host_flush else "")]
    if a.drive:
        cmd += ["-drive", a.drive]
    if a.iso:
        cmd += ["-cdrom", a.iso, "-boot", "d"]
    else:
        cmd += ["-kernel", a.kernel]
        if a.append:
            cmd += ["-append", a.append]
    if a.gdb:
        cmd += ["-S", "-gdb", "tcp:127.0.0.1:%d" % a.gdb_port]
    return cmd + a.extra


def command(kernel=None, iso=None, append=None, disk=None, drive=None, mem=None, timeout=None,
            icount=None, icount_align=False, icount_sleep_off=False, throttle_bps=None, throttle_iops=None, gdb=None,
            gdb_file=None, kill_on=None, accel=None, no_mem_check=False, cpu_limit=None, no_host_flush=False,
            extra=()):
    """The argument list that runs this launcher, for subprocess: [python, runqemu.py, OPTIONS].
    Each keyword is the option of the same name (kill_on is --kill-on, and so on); None (or
    False) leaves the option out, so runqemu's own default holds. Without iso, kernel defaults
    to build/kernel.elf. icount=True is --icount alone (shift 0); any other value is its SHIFT.
    extra: QEMU's own arguments, after --."""
    args = [sys.executable, os.path.abspath(__file__)]
    if iso is not None:
        args += ["--iso", str(iso)]
    else:
        args += ["--kernel", str(kernel if kernel is not None else os.path.join(ROOT, "build", "kernel.elf"))]
    for opt, val in (("--append", append), ("--disk", disk), ("--drive", drive), ("--mem", mem),
                     ("--accel", accel), ("--timeout", timeout), ("--throttle-bps", throttle_bps),
                     ("--throttle-iops", throttle_iops), ("--gdb", gdb), ("--gdb-file", gdb_file),
                     ("--kill-on", kill_on), ("--cpu-limit", cpu_limit)):
        if val is not None:
            args += [opt, str(val)]
    if icount is True:
        args += ["--icount"]
    elif icount is not None and icount is not False:
        args += ["--icount", str(icount)]
    if icount_align:
        args += ["--icount-align"]
    if icount_sleep_off:
        args += ["--icount-sleep-off"]
    if no_mem_check:
        args += ["--no-mem-check"]
    if no_host_flush:
        args += ["--no-host-flush"]
    if extra:
        args += ["--"] + [str(e) for e in extra]
    return args


def icount_shift(text):
    if text != "auto" and not (text.isdigit() and int(text) <= 10):
        raise argparse.ArgumentTypeError("SHIFT is 0 to 10, or auto")
    return text


DISK_CACHE = "writeback"


def throttling(a):
    """QEMU's throttling options for the disk: one budget for reads and writes, as a disk arm
    serves both. No burst above the rate is set beyond QEMU's default (a tenth of a second's)."""
    out = ""
    if a.throttle_bps:
        out += ",throttling.bps-total=%d" % a.throttle_bps
    if a.throttle_iops:
        out += ",throttling.iops-total=%d" % a.throttle_iops
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--iso", help="boot this GRUB ISO")
    g.add_argument("--kernel", help="load this Multiboot kernel directly (QEMU -kernel)")
    p.add_argument("--append", default="", help="kernel command line (with --kernel)")
    p.add_argument("--disk", help="raw disk image for the virtio-blk disk")
    p.add_argument("--drive", help="a QEMU -drive spec for the disk instead of --disk (e.g. an NBD "
                   "server: file=nbd+unix:///?socket=SOCK,if=virtio,format=raw)")
    p.add_argument("--mem", type=int, default=64, help="guest memory in MB (at least MEM_MIN_MB of kernel/memlayout.h)")
    p.add_argument("--no-mem-check", action="store_true",
                   help="boot even with less memory than the kernel needs (to test the kernel's own check)")
    p.add_argument("--accel", default="tcg", choices=["tcg", "kvm"])
    p.add_argument("--icount", nargs="?", const="0", metavar="SHIFT", type=icount_shift,
                   help="exact guest time: -icount shift=SHIFT (0 if not given: 1 ns a guest "
                   "instruction; 8: 256 ns, a CPU of 4 MIPS in the guest's clock; auto: QEMU keeps "
                   "the guest's clock near the host's, and no timer tick is lost on a busy host)")
    p.add_argument("--icount-align", action="store_true", help="with --icount: QEMU holds the guest's clock "
                   "to the host's (align=on), so that its CPU runs no faster than SHIFT says, in real time too")
    p.add_argument("--icount-sleep-off", action="store_true", help="with --icount: an idle guest's clock "
                   "jumps to its next timer at once (sleep=off) instead of waiting for it in real time, so "
                   "that a guest that mostly sleeps runs faster than its clock says, and a busy host changes "
                   "nothing the guest's clock measures but a disk request's length (not with --icount-align)")
    p.add_argument("--no-host-flush", action="store_true",
                   help="the --disk's flushes end in QEMU (cache.no-flush=on): the guest still sends them and "
                        "waits for their answer, but the host does not sync the image file. For tests: a power "
                        "cut here is QEMU killed, and what it wrote is in the host's page cache either way; a "
                        "test's fdatasyncs only slow the guests beside it. Benchmarks keep the host's flushes.")
    p.add_argument("--throttle-bps", type=int, help="the --disk at most this many bytes a second "
                   "(QEMU's throttling.bps-total), reads and writes together")
    p.add_argument("--throttle-iops", type=int, help="the --disk at most this many requests a second "
                   "(throttling.iops-total)")
    p.add_argument("--gdb", help="wait for gdb on this TCP port, or 'auto': the first free one from "
                   "26000 + uid %% 5000 (printed), so that two users of one machine do not clash")
    p.add_argument("--gdb-file", help="with --gdb: write 'PORT PID KERNEL' here while QEMU runs (make gdb reads it)")
    p.add_argument("--timeout", type=float, help="kill QEMU after this many seconds")
    p.add_argument("--cpu-limit", type=float, help="stop QEMU (status 125) once it has used this many "
                   "seconds of CPU time: the guest's work, which a loaded host does not shrink")
    p.add_argument("--kill-on", help="kill QEMU (SIGKILL: a power cut) as soon as the guest prints this text")
    p.add_argument("extra", nargs="*", help="more QEMU arguments (after --)")
    a = p.parse_args()

    if not shutil.which("qemu-system-i386"):
        return refuse("qemu-system-i386 not found: run make (it installs it) or apt-get install qemu-system-x86")
    for f in (a.iso, a.kernel, a.disk):
        if f and not os.path.exists(f):
            return refuse("%s does not exist (run make first)" % f)
    if a.mem < mem_min_mb() and not a.no_mem_check:
        return refuse("%d MB of memory is too little: the kernel needs at least %d MB (MEM=%d or more)"
                      % (a.mem, mem_min_mb(), mem_min_mb()))

    if a.gdb:
        a.gdb_port = gdb_port(a.gdb)
        if a.gdb_port is None:
            return refuse("--gdb %s: no free TCP port for gdb (give one: --gdb PORT)" % a.gdb)

    tty = os.isatty(0)
    saved = None
    if tty:
        saved = termios.tcgetattr(0)
        raw = termios.tcgetattr(0)
        raw[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG)   # the kernel edits lines, echoes, takes ^C
        raw[6][termios.VMIN], raw[6][termios.VTIME] = 1, 0
        termios.tcsetattr(0, termios.TCSANOW, raw)

    if tty:
        sys.stderr.write("runqemu: Ctrl-C goes to the guest; Ctrl-A X quits QEMU\r\n")
    try:
        q = start_qemu(a)
    except OSError as e:
        if saved:
            termios.tcsetattr(0, termios.TCSANOW, saved)
        return refuse("QEMU could not be started: %s" % e)
    if a.gdb and a.gdb_file:
        write_gdb_file(a, q.pid)
    ready = threading.Event()
    dumped = threading.Event()
    dump = bytearray()          # the output after ^P was sent on a timeout
    dumping = threading.Event()
    killed = threading.Event()
    quit_key = threading.Event()
    kill_on = a.kill_on.encode() if a.kill_on else None

    def pump_output():
        seen = b""
        tail = b""
        out = sys.stdout.buffer
        while True:
            data = q.stdout.read1(4096) if hasattr(q.stdout, "read1") else os.read(q.stdout.fileno(), 4096)
            if not data:
                break
            if kill_on and not killed.is_set():
                tail = (tail + data)[-(len(kill_on) + 4096):]
                if kill_on in tail:
                    q.kill()            # first, so the guest runs no further than it must
                    killed.set()
            out.write(data)
            out.flush()
            if dumping.is_set():
                dump.extend(data)
                if DUMP_END in dump:
                    dumped.set()
            if not ready.is_set():
                seen = (seen + data)[-4096:]
                if READY in seen:
                    ready.set()
        ready.set()

    escaped = False

    def from_terminal(data):
        """The bytes to send for keys typed; Ctrl-A X quits (sets quit_key)."""
        nonlocal escaped
        out = bytearray()
        for b in data:
            if escaped:
                escaped = False
                if b in (ord("x"), ord("X")):
                    quit_key.set()
                    break
                if b != ESC:
                    out.append(ESC)     # not an escape after all: both keys go through
                out.append(b)
            elif b == ESC:
                escaped = True
            else:
                out.append(b)
        return bytes(out)

    def pump_input():
        ready.wait()
        try:
            while q.poll() is None:
                r, _, _ = select.select([0], [], [], 0.2)
                if not r:
                    continue
                data = os.read(0, 4096)
                if not data:
                    q.stdin.write(EOT)
                    q.stdin.flush()
                    return
                if tty:
                    data = from_terminal(data)
                    if quit_key.is_set():
                        q.terminate()
                        return
                q.stdin.write(data)
                q.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    errors = []

    def pump_errors():
        # QEMU's own messages pass through at once; the last ones explain a failure to start.
        for line in iter(q.stderr.readline, b""):
            errors.append(line.decode("utf-8", "replace").strip())
            del errors[:-20]
            sys.stderr.buffer.write(line)
            sys.stderr.flush()

    out_t = threading.Thread(target=pump_output, daemon=True)
    in_t = threading.Thread(target=pump_input, daemon=True)
    err_t = threading.Thread(target=pump_errors, daemon=True)
    out_t.start()
    in_t.start()
    err_t.start()
    timed_out = spent = False
    try:
        spent = not wait_within(q, a.timeout, a.cpu_limit)
        if spent or q.poll() is None:
            timed_out = not spent
            ask_for_dump(q, dumping, dumped)
            q.kill()
            q.wait()
    except KeyboardInterrupt:
        q.kill()
        q.wait()
    finally:
        if saved:
            termios.tcsetattr(0, termios.TCSANOW, saved)
    if a.gdb and a.gdb_file:
        try:
            os.unlink(a.gdb_file)
        except OSError:
            pass
    out_t.join()        # QEMU is gone, so its output ends; a bounded wait could cut it on a busy machine
    err_t.join()
    if quit_key.is_set():
        sys.stderr.write("\nrunqemu: quit with Ctrl-A X (the guest's disk was not synced)\n")
        return 130
    if killed.is_set():
        sys.stderr.write("\nrunqemu: killed QEMU on %r\n" % a.kill_on)
        return 137
    if spent:
        sys.stderr.write("\nrunqemu: the guest used its %g s of CPU time (--cpu-limit) without powering off: "
                         "it loops, or its work is far longer than it should be (the ^P dump above says where "
                         "it was)\n" % a.cpu_limit)
        if not dumped.is_set():
            sys.stderr.write("runqemu: no ^P dump from the guest (interrupts off, or its input buffer full)\n")
        return 125
    if timed_out:
        sys.stderr.write("\nrunqemu: timed out after %g s\n" % a.timeout)
        if not dumped.is_set():     # the dump itself is above, its call chains named by the kernel
            sys.stderr.write("runqemu: no ^P dump from the guest (interrupts off, or its input buffer full)\n")
        return 124
    if q.returncode == EXIT_CLEAN:
        return 0
    if q.returncode == EXIT_FAILURE:
        sys.stderr.write("\nrunqemu: the kernel powered off reporting a failure (its message is above)\n")
        return 1
    return refuse(qemu_failure(q.returncode, errors, a))


def cpu_seconds(pid):
    """User and system CPU time of process pid and all its threads (/proc/PID/stat's utime and
    stime, in clock ticks), or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()     # the name, in parentheses, may hold spaces
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_within(q, timeout, cpu_limit, poll=0.5):
    """Waits for QEMU to exit: True when it did, or when timeout (wall-clock seconds) expired;
    False when it used cpu_limit seconds of CPU time first."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return True
        try:
            q.wait(timeout=(poll if left is None else min(poll, left)) if cpu_limit else left)
            return True
        except subprocess.TimeoutExpired:
            pass
        used = cpu_seconds(q.pid) if cpu_limit else None
        if used is not None and used >= cpu_limit:
            return False


def start_qemu(a):
    """Starts QEMU. With --gdb, returns once its gdb stub listens, and says on which port; with
    --gdb auto, starts it again on the next free port when another QEMU took the one we picked
    between our look and its bind (two make qemu-gdb started together)."""
    import io
    tries = 10 if a.gdb == "auto" else 1
    for attempt in range(tries):
        q = subprocess.Popen(qemu_command(a), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, bufsize=0)
        if not a.gdb:
            return q
        if gdb_listening(q, a.gdb_port):
            sys.stderr.write("runqemu: QEMU waits for gdb on localhost:%d: run 'make gdb' in another "
                             "terminal\n" % a.gdb_port)
            sys.stderr.flush()
            return q
        if q.poll() is None:
            return q                # slow to listen, but running: gdb retries its connection
        err = q.stderr.read()
        q.stderr = io.BytesIO(err)  # shown as usual if it failed for another reason
        nxt = gdb_port("auto", a.gdb_port + 1) if attempt + 1 < tries else None
        if b"Address already in use" not in err or nxt is None:
            return q
        a.gdb_port = nxt
    return q


def gdb_listening(q, port, wait=10.0):
    """Whether QEMU q listens on its gdb port: a listening socket on it among q's open files
    (/proc). Binding the port ourselves cannot tell: it fails as well when another QEMU holds
    it, and connecting would open a gdb session."""
    deadline = time.time() + wait
    while q.poll() is None and time.time() < deadline:
        if process_listens(q.pid, port):
            return True
        time.sleep(0.02)
    return False


def process_listens(pid, port):
    want = ":%04X" % port
    inodes = set()
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            col = row.split()
            if len(col) > 9 and col[1].endswith(want) and col[3] == "0A":     # 0A: LISTEN
                inodes.add(col[9])
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


def gdb_port(spec, start=None):
    """The port QEMU's gdb stub listens on: as given, or the first one free from a base that
    depends on the user (two students on one machine start apart, and a port taken by another
    program or another QEMU of one's own is skipped). None when nothing is free."""
    if spec != "auto":
        try:
            return int(spec)
        except ValueError:
            return None
    import socket
    base = 26000 + os.getuid() % 5000
    for port in range(start or base, base + 200):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    return None


def write_gdb_file(a, pid):
    """What make gdb needs to attach (tools/gdb/rungdb.py): the port, QEMU's pid (a file left by a
    QEMU that died is recognised as stale) and the kernel it boots, for the symbols."""
    kernel = os.path.abspath(a.kernel) if a.kernel else os.path.join(ROOT, "build", "kernel.elf")
    tmp = a.gdb_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d %s\n" % (a.gdb_port, pid, kernel))
    os.replace(tmp, a.gdb_file)


def ask_for_dump(q, dumping, dumped):
    """Sends ^P to a guest that ran out of time and waits a while for its state dump. From a
    thread of its own: a guest whose input buffer is full takes no byte, the pipe to QEMU fills,
    and the input pump blocks writing to it (holding the pipe's lock): sending ^P from here
    blocked the timeout itself forever (a console flood into a hung guest)."""
    dumping.set()

    def send():
        try:
            q.stdin.write(DUMP_KEY)
            q.stdin.flush()
        except (OSError, ValueError):
            pass
    threading.Thread(target=send, daemon=True).start()
    deadline = time.time() + DUMP_WAIT
    while not dumped.is_set() and q.poll() is None and time.time() < deadline:
        dumped.wait(0.2)
    time.sleep(0.2)             # the last bytes after the end line


def qemu_failure(rc, errors, a):
    """One line for a QEMU that stopped without the kernel powering off."""
    text = " ".join(errors)
    said = next((e for e in reversed(errors) if e.startswith("qemu-system")), errors[-1] if errors else "")
    if 'Failed to get "write" lock' in text or "another process using the image" in text:
        return ("the disk image %s is in use by another QEMU: stop that one, or boot a copy "
                "(make qemu FSIMG=COPY)" % a.disk)
    if "Address already in use" in text and a.gdb:
        return ("the gdb port %d was taken meanwhile by another program: run again (or give "
                "another: --gdb PORT)" % a.gdb_port)
    if rc == 1 and said:
        return "QEMU could not start (%s); fix what it names" % said
    if rc < 0:
        return "QEMU was killed by signal %d before the kernel powered off" % -rc
    return "QEMU stopped without the kernel powering off (status %d%s)" % (rc, "; " + said if said else "")


def refuse(why):
    sys.stderr.write("\nrunqemu: %s\n" % why)
    return 2


if __name__ == "__main__":
    sys.exit(main())
