"""tools/runqemu.py's QEMU command line, read from a stand-in qemu-system-i386 on PATH that
writes its arguments to a file and exits as a guest that powered off cleanly."""
import os
import subprocess
import sys

from conftest import ROOT

FAKE = """#!/bin/sh
echo "$@" > "$FAKE_QEMU_ARGS"
exit 33
"""


def qemu_args(tmp_path, *options):
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    fake = bindir / "qemu-system-i386"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    disk = tmp_path / "d.img"
    disk.write_bytes(bytes(4096))
    out = tmp_path / "args"
    env = dict(os.environ, PATH="%s:%s" % (bindir, os.environ["PATH"]), FAKE_QEMU_ARGS=str(out))
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "runqemu.py"), "--kernel", str(ROOT / "build" / "kernel.elf"),
                        "--disk", str(disk), "--timeout", "60"] + list(options),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    args = out.read_text().split()
    return args[args.index("-drive") + 1]


def test_the_disk_keeps_the_hosts_flushes_unless_told(tmp_path):
    """Benchmarks boot with the host's flushes (a guest's flush is an fdatasync of the image);
    tests with --no-host-flush (cache.no-flush=on), and the throttle is kept beside it."""
    assert "no-flush" not in qemu_args(tmp_path)
    drive = qemu_args(tmp_path, "--no-host-flush", "--throttle-iops", "50")
    assert drive.endswith(",throttling.iops-total=50,cache.no-flush=on"), drive
    # The cache mode is named on every disk, the same for both kernels (bench_linux.py).
    assert ",cache=writeback," in drive and ",cache=writeback" in qemu_args(tmp_path)
