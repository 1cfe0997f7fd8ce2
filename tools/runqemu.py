#!/usr/bin/env python3
"""Runs the kernel in QEMU with the serial console on this terminal or pipe.

Standard input is held back until the kernel prints "console: ready" (GRUB would otherwise
swallow it), then forwarded byte for byte; its end becomes ^D, end of file for the shell.
Exit status: 0 when the kernel powered off cleanly, 1 when it powered off reporting a failure
(a panic, an unusable disk), 2 when QEMU stopped any other way (a triple fault, a crash),
124 on --timeout, 137 when --kill-on saw its text (a hard stop: a power cut, no sync).
"""
import argparse, os, select, shutil, signal, subprocess, sys, termios, threading, time

READY = b"console: ready"
EOT = b"\x04"


def qemu_command(a):
    cmd = ["qemu-system-i386", "-m", str(a.mem), "-display", "none", "-monitor", "none", "-nic", "none",
           "-serial", "stdio", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if a.accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg"]
    if a.icount:
        cmd += ["-icount", "shift=0"]
    if a.disk:
        cmd += ["-drive", "file=%s,if=virtio,format=raw" % a.disk]
    if a.drive:
        cmd += ["-drive", a.drive]
    if a.iso:
        cmd += ["-cdrom", a.iso, "-boot", "d"]
    else:
        cmd += ["-kernel", a.kernel]
        if a.append:
            cmd += ["-append", a.append]
    if a.gdb:
        cmd += ["-S", "-gdb", "tcp:127.0.0.1:%d" % a.gdb]
    return cmd + a.extra


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--iso", help="boot this GRUB ISO")
    g.add_argument("--kernel", help="load this Multiboot kernel directly (QEMU -kernel)")
    p.add_argument("--append", default="", help="kernel command line (with --kernel)")
    p.add_argument("--disk", help="raw disk image for the virtio-blk disk")
    p.add_argument("--drive", help="a QEMU -drive spec for the disk instead of --disk (e.g. an NBD "
                   "server: file=nbd+unix:///?socket=SOCK,if=virtio,format=raw)")
    p.add_argument("--mem", type=int, default=64, help="guest memory in MB")
    p.add_argument("--accel", default="tcg", choices=["tcg", "kvm"])
    p.add_argument("--icount", action="store_true", help="exact guest time: -icount shift=0")
    p.add_argument("--gdb", type=int, help="wait for gdb on this TCP port")
    p.add_argument("--timeout", type=float, help="kill QEMU after this many seconds")
    p.add_argument("--kill-on", help="kill QEMU (SIGKILL: a power cut) as soon as the guest prints this text")
    p.add_argument("extra", nargs="*", help="more QEMU arguments (after --)")
    a = p.parse_args()

    if not shutil.which("qemu-system-i386"):
        sys.exit("runqemu: qemu-system-i386 not found (apt-get install qemu-system-x86)")
    for f in (a.iso, a.kernel, a.disk):
        if f and not os.path.exists(f):
            sys.exit("runqemu: %s does not exist (run make first)" % f)

    tty = os.isatty(0)
    saved = None
    if tty:
        saved = termios.tcgetattr(0)
        raw = termios.tcgetattr(0)
        raw[3] &= ~(termios.ICANON | termios.ECHO)   # the kernel edits lines and echoes; ^C still quits
        raw[6][termios.VMIN], raw[6][termios.VTIME] = 1, 0
        termios.tcsetattr(0, termios.TCSANOW, raw)

    q = subprocess.Popen(qemu_command(a), stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    ready = threading.Event()
    killed = threading.Event()
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
            if not ready.is_set():
                seen = (seen + data)[-4096:]
                if READY in seen:
                    ready.set()
        ready.set()

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
                q.stdin.write(data)
                q.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    out_t = threading.Thread(target=pump_output, daemon=True)
    in_t = threading.Thread(target=pump_input, daemon=True)
    out_t.start()
    in_t.start()
    timed_out = False
    try:
        q.wait(timeout=a.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        q.kill()
        q.wait()
    except KeyboardInterrupt:
        q.kill()
        q.wait()
    finally:
        if saved:
            termios.tcsetattr(0, termios.TCSANOW, saved)
    out_t.join(2)
    if killed.is_set():
        sys.stderr.write("\nrunqemu: killed QEMU on %r\n" % a.kill_on)
        return 137
    if timed_out:
        sys.stderr.write("\nrunqemu: timed out after %g s\n" % a.timeout)
        return 124
    # isa-debug-exit: QEMU exits with (value << 1) | 1.
    if q.returncode == 1:
        return 0
    if q.returncode == 3:
        sys.stderr.write("\nrunqemu: the kernel powered off reporting a failure\n")
        return 1
    sys.stderr.write("\nrunqemu: QEMU stopped without a power-off (status %d)\n" % q.returncode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
