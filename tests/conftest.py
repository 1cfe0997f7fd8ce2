"""Shared fixtures: boot the kernel in QEMU with a private copy of the disk image, feed the
shell commands through the serial console, and return what it printed."""
import os, re, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
BOOT_TIMEOUT = float(os.environ.get("BOOT_TIMEOUT", "240"))


class Run:
    def __init__(self, out, rc, disk):
        self.out, self.rc, self.disk = out, rc, disk

    def __repr__(self):
        return "exit status %d; console output:\n%s" % (self.rc, self.out)


def boot(commands="", *, disk=None, mem=64, cmdline="", iso=False, timeout=BOOT_TIMEOUT, icount=False,
         wait_for=None, kill_after=None, keep_input=False, drive=None):
    """Boots once; commands go to the shell after the kernel says it is ready, then end of input
    makes the shell exit and the machine power off.

    wait_for="REGEX": the commands are sent only once the guest's output matches it.
    kill_after="TEXT": QEMU is killed (a power cut: no sync, no poweroff) as soon as the guest
    prints TEXT; the run's rc is then 137. Tests order by what the guest prints, never by host
    sleeps. keep_input: standard input stays open (no end of file), so the shell keeps waiting
    after the commands instead of powering off; use it with kill_after. drive: a raw QEMU
    -drive spec instead of disk (tools/runqemu.py --drive)."""
    args = [sys.executable, str(ROOT / "tools/runqemu.py"), "--mem", str(mem), "--timeout", str(timeout)]
    if disk:
        args += ["--disk", str(disk)]
    if drive:
        args += ["--drive", drive]
    if iso:
        args += ["--iso", str(BUILD / "os.iso")]
    else:
        args += ["--kernel", str(BUILD / "kernel.elf"), "--append", cmdline]
    if icount:
        args += ["--icount"]
    if kill_after:
        args += ["--kill-on", kill_after]
    if keep_input:
        p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        p.stdin.write(commands.encode())
        p.stdin.flush()
        out = p.stdout.read()          # stdin stays open (no end of file) until QEMU is gone
        p.stdin.close()
        p.wait()
        return Run(out.decode("utf-8", "replace"), p.returncode, disk)
    if wait_for is None:
        p = subprocess.run(args, input=commands.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return Run(p.stdout.decode("utf-8", "replace"), p.returncode, disk)
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = b""
    sent = False
    while True:
        b = p.stdout.read1(4096)
        if not b:
            break
        out += b
        if not sent and re.search(wait_for.encode(), out):
            p.stdin.write(commands.encode())
            p.stdin.close()
            sent = True
    p.wait()
    return Run(out.decode("utf-8", "replace"), p.returncode, disk)


def vmstat_snapshots(out):
    """Every full `vmstat` printed in out, as a list of dicts (a snapshot starts at vm.faults)."""
    snaps, cur = [], None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and "." in parts[0]:
            if parts[0] == "vm.faults":
                cur = {}
                snaps.append(cur)
            if cur is not None:
                cur[parts[0]] = int(parts[1])
    return snaps


def fsck(disk, *args):
    """Runs the host-side fsck on an image; returns (status, output)."""
    p = subprocess.run([str(BUILD / "fsck"), str(disk)] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout


@pytest.fixture
def disk(tmp_path):
    """A private, sparse copy of the default image."""
    d = tmp_path / "fs.img"
    subprocess.run(["cp", "--sparse=always", str(BUILD / "fs.img"), str(d)], check=True)
    return d


@pytest.fixture
def make_disk(tmp_path):
    """Builds an image holding extra host files: make_disk(files=[...], size_mb=128)."""
    def make(files=(), size_mb=128, name="fs.img"):
        d = tmp_path / name
        subprocess.run([str(BUILD / "mkfs"), "-o", str(d), "-s", str(size_mb), "-b", str(BUILD / "user/bin")] +
                       [str(f) for f in files], check=True, stdout=subprocess.PIPE)
        return d
    return make


@pytest.fixture
def sh(disk):
    """Runs shell commands on a fresh disk; asserts a clean power-off."""
    def run(commands, **kw):
        r = boot(commands, disk=disk, **kw)
        assert r.rc == 0, r
        return r
    return run
