"""Booting: through GRUB's ISO and QEMU -kernel, the ready line, power-off and exit codes."""
import subprocess
from conftest import boot, BUILD


def test_grub_iso_boots_to_shell_and_powers_off(disk):
    r = boot("echo hello from grub\n", disk=disk, iso=True)
    assert r.rc == 0, r
    assert "GNU GRUB" in r.out or "Booting" in r.out, r     # the menu shows on the serial line
    assert "console: ready" in r.out, r
    assert "\nhello from grub\n" in r.out, r


def test_kernel_boot_reports_memory_and_disk(disk):
    r = boot("", disk=disk, mem=48)
    assert r.rc == 0, r
    assert "memory: 47 MB" in r.out or "memory: 48 MB" in r.out, r
    assert "virtio-blk: 128 MB" in r.out, r


def test_poweroff_command_exits_zero(disk):
    r = boot("poweroff\necho not reached\n", disk=disk)
    assert r.rc == 0, r
    assert "not reached" not in r.out, r      # the shell never read the line after poweroff


def test_unknown_cmdline_key_is_reported_not_fatal(disk):
    r = boot("echo still here\n", disk=disk, cmdline="bogus.key=1")
    assert r.rc == 0, r
    assert "unknown setting 'bogus.key'" in r.out, r
    assert "\nstill here\n" in r.out, r


def test_missing_init_powers_off_with_failure(disk):
    r = boot("", disk=disk, cmdline="init=/bin/nosuch")
    assert r.rc != 0, r
    assert "init: cannot run /bin/nosuch" in r.out, r


def test_no_disk_says_why_and_fails():
    r = boot("")
    assert r.rc != 0, r
    assert "no disk" in r.out.lower(), r


def test_foreign_disk_is_refused(tmp_path):
    img = tmp_path / "zero.img"
    with open(img, "wb") as f:
        f.truncate(8 << 20)
    r = boot("", disk=img)
    assert r.rc not in (0, 124), r
    assert "not a sprite file system" in r.out.lower() or "bad magic" in r.out.lower(), r


def test_corrupt_superblock_is_refused(disk):
    with open(disk, "r+b") as f:
        f.seek(4096 + 12)           # inside the superblock, past the magic
        f.write(b"\xff" * 16)
    r = boot("", disk=disk)
    assert r.rc not in (0, 124), r
    assert "fs:" in r.out, r
