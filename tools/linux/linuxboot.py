#!/usr/bin/env python3
"""Boots Debian's Linux in the same QEMU as our kernel and runs commands in it.

Everything the guest needs is made here on first use under build/linux (fetch_linux.py: the
kernel and busybox; initramfs.py: build/linux/initramfs.cpio; linuxdisk.py: the disk), and
the boot goes through the one launcher of QEMU (tools/runqemu.py, runqemu.command) with the
options our kernel's runs get: the same virtio disk and throttle, -icount with align=on, the
memory given. Only what Linux needs besides differs: -kernel is Debian's vmlinuz, -initrd the
initramfs (with the run's script appended as a second archive), and the kernel's command
line puts the console on the serial port.

A run's script is plain sh (busybox's), run as root once the disk is mounted and the swap is
on; what it prints arrives on the console after /proc/meminfo as it was after boot. The
guest powers off when it ends (runqemu's exit status: 0 when the script's was 0, 1 when not).

    linuxboot.py [--mem MB] [--disk IMG] [-c 'COMMANDS' | SCRIPT]    (prints the console)
"""
import argparse, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import fetch_linux, initramfs, linuxdisk  # noqa: E402
import runqemu  # noqa: E402

ROOT = fetch_linux.ROOT
LINUX_DIR = os.path.join(ROOT, "build", "linux")
# Boot-time work only, none of it in a measured run: the crypto self-tests (cryptomgr.notests)
# and the ISA Plug and Play scan (noisapnp) took 1.5 of a boot's 4 s of guest time under TCG.
APPEND = "console=ttyS0 quiet panic=-1 cryptomgr.notests noisapnp"
MEMINFO_START = "--- /proc/meminfo after boot"
MEMINFO_END = "--- end of /proc/meminfo"
QEMU_LATE = re.compile(r"Warning: The guest is now late by [\d.]+ to [\d.]+ seconds\n")


class BootError(Exception):
    pass


def parse_meminfo(text):
    """{field: KB} of /proc/meminfo's text ("MemFree:   1234 kB"; HugePages_* have no unit)."""
    out = {}
    for m in re.finditer(r"^(\w+(?:\(\w+\))?):\s+(\d+)(?: kB)?\s*$", text, re.M):
        out[m.group(1)] = int(m.group(2))
    return out


def boot_meminfo(console):
    """/proc/meminfo as the guest printed it after boot (init-stage2.sh), or None."""
    a = console.find(MEMINFO_START)
    b = console.find(MEMINFO_END, a)
    if a < 0 or b < 0:
        return None
    return parse_meminfo(console[a + len(MEMINFO_START):b])


def boot_facts(console):
    """{"cmdline", "lru_gen"} as the guest printed them after boot (init-stage2.sh): the
    kernel's command line and /sys/kernel/mm/lru_gen/enabled ("absent" without it); "" for a
    console recorded before they were printed."""
    out = {}
    for key in ("cmdline", "lru_gen"):
        m = re.search(r"^linux-init: %s (.*)$" % key, console, re.M)
        out[key] = m.group(1).strip() if m else ""
    return out


def kernel_hz(linux_dir=LINUX_DIR):
    """CONFIG_HZ of the kernel booted, from the config its package ships (boot/config-*): the
    tick's rate, which no file of /proc says. None when there is no config."""
    try:
        _, _, config = fetch_linux.kernel_files(linux_dir)
        with open(config) as f:
            m = re.search(r"^CONFIG_HZ=(\d+)$", f.read(), re.M)
    except (OSError, IndexError, fetch_linux.FetchError):
        return None
    return int(m.group(1)) if m else None


def ready(linux_dir=LINUX_DIR, quiet=False):
    """(vmlinuz, initramfs) once fetched and made; the initramfs is made again when its
    inputs are newer. Under a lock: two tests or benchmarks starting together on a fresh tree
    would otherwise unpack into the same folder at once."""
    import fcntl
    os.makedirs(linux_dir, exist_ok=True)
    with open(os.path.join(linux_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fetch_linux.fetch(linux_dir, quiet=quiet)
        vmlinuz, _, _ = fetch_linux.kernel_files(linux_dir)
        cpio = os.path.join(linux_dir, "initramfs.cpio")
        inputs = [os.path.join(HERE, f) for f in ("init-stage1.sh", "initramfs.py")] + [vmlinuz]
        if not os.path.exists(cpio) or os.path.getmtime(cpio) < max(os.path.getmtime(p) for p in inputs):
            initramfs.build(cpio, linux_dir)
    return vmlinuz, cpio


def disk(path, fs_mb=96, swap_mb=64, files=()):
    """A fresh disk at path, made again when the programs or init2 are newer than it."""
    progs = linuxdisk.PROGRAMS
    inputs = [os.path.join(HERE, f) for f in ("init-stage2.sh", "linuxdisk.py")]
    inputs += [os.path.join(progs, n) for n in (os.listdir(progs) if os.path.isdir(progs) else [])]
    if not os.path.exists(path) or os.path.getmtime(path) < max(os.path.getmtime(p) for p in inputs) or files:
        linuxdisk.build(path, fs_mb, swap_mb, files)
    return path


def command(vmlinuz, initrd, disk_path, mem, timeout=None, icount=None, align=False, throttle_bps=None,
            throttle_iops=None, append=""):
    """runqemu's command line that boots Linux on disk_path."""
    return runqemu.command(kernel=vmlinuz, append=(APPEND + " " + append).strip(), disk=disk_path, mem=mem,
                           timeout=timeout, icount=icount, icount_align=align and icount is not None,
                           throttle_bps=throttle_bps or None, throttle_iops=throttle_iops or None,
                           no_mem_check=True, extra=["-initrd", initrd])


def run(script, disk_path, mem, log=None, keep=None, copy=True, **options):
    """Boots Linux on a private copy of disk_path (or on it, copy=False), runs script (None:
    none, for cmd= or script= on the kernel's command line, options' append), and returns (runqemu's exit status, the console's text). log gets the console as it arrives;
    keep gets the disk as the run left it. options: command()'s."""
    vmlinuz, base = ready(quiet=True)
    with tempfile.TemporaryDirectory() as d:
        img = disk_path
        if copy:
            img = os.path.join(d, "disk.img")
            subprocess.run(["cp", "--sparse=always", disk_path, img], check=True)
        initrd = os.path.join(d, "initrd")
        with open(base, "rb") as f, open(initrd, "wb") as g:
            shutil.copyfileobj(f, g)
            if script is not None:
                g.write(initramfs.run_cpio(script))
        p = subprocess.Popen(command(vmlinuz, initrd, img, mem, **options), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = bytearray()
        f = open(log, "wb") if log else None
        try:
            for chunk in iter(lambda: p.stdout.read1(65536), b""):
                out += chunk
                if f:
                    f.write(chunk)
                    f.flush()
            p.wait()
        finally:
            if f:
                f.close()
        if keep and p.returncode == 0:
            subprocess.run(["cp", "--sparse=always", img, keep], check=True)
    return p.returncode, console_text(bytes(out))


def console_text(raw):
    """The console's text from its bytes as they came (a run's log holds them so). Linux's tty
    turns each newline into CR LF on the serial port; QEMU's warnings of a late guest clock
    (align=on) come on its standard error, joined to the console's, even inside a line of it."""
    return QEMU_LATE.sub("", raw.decode("utf-8", "replace").replace("\r\n", "\n"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mem", type=int, default=64)
    ap.add_argument("--disk", help="the disk to boot (a private copy of it); default build/linux/disk.img")
    ap.add_argument("-c", dest="commands", help="the commands to run")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--append", default="", help="more of the kernel's command line (loglevel=7: its messages)")
    ap.add_argument("script", nargs="?")
    a = ap.parse_args(argv)
    script = a.commands if a.commands is not None else open(a.script).read() if a.script else "true\n"
    try:
        img = a.disk or disk(os.path.join(LINUX_DIR, "disk.img"))
        rc, _ = run(script + "\n", img, a.mem, log="/dev/stdout", timeout=a.timeout, append=a.append)
    except (fetch_linux.FetchError, initramfs.ModuleError, linuxdisk.DiskError) as e:
        sys.exit("linuxboot: %s" % e)
    sys.exit(rc)


if __name__ == "__main__":
    main()
