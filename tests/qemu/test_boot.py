"""Booting: through GRUB's ISO and QEMU -kernel, the ready line, power-off and exit codes."""
import re, subprocess
import pytest
from conftest import boot, fsck, BUILD, ROOT
from conftest import runqemu as runqemu_launcher


def test_grub_iso_boots_to_shell_and_powers_off(disk):
    r = boot("echo hello from grub\n", disk=disk, iso=True)
    assert r.rc == 0, r
    assert "GNU GRUB" in r.out or "Booting" in r.out, r     # the menu shows on the serial line
    assert "\nconsole: ready\n" in r.out, r
    assert r.printed("echo hello from grub") == "hello from grub\n", r


def test_kernel_boot_reports_memory_and_disk(disk):
    r = boot("", disk=disk, mem=48)
    assert r.rc == 0, r
    assert re.search(r"^memory: 4[78] MB, [1-9]\d* frames free$", r.out, re.M), r
    assert re.search(r"^virtio-blk: 128 MB ", r.out, re.M), r


def test_poweroff_command_exits_zero(disk):
    r = boot("poweroff\necho not reached\n", disk=disk)
    assert r.rc == 0, r
    assert "not reached" not in r.out, r      # the shell never read the line after poweroff
    assert r.cmd("poweroff").out is not None, r


def test_unknown_cmdline_key_is_reported_not_fatal(disk):
    r = boot("echo still here\n", disk=disk, cmdline="bogus.key=1")
    assert r.rc == 0, r
    assert re.search(r"^cmdline: unknown setting 'bogus\.key'", r.out, re.M), r
    assert r.printed("echo still here") == "still here\n", r


def test_missing_init_powers_off_with_failure(disk):
    r = boot("", disk=disk, cmdline="init=/bin/nosuch")
    assert r.rc != 0, r
    assert re.search(r"^init: cannot run /bin/nosuch\b", r.out, re.M), r


def test_no_disk_says_why_and_fails():
    r = boot("")
    assert r.rc != 0, r
    assert re.search(r"^fs: no disk\b", r.out, re.M), r
    assert "console: ready" not in r.out, r


def test_foreign_disk_is_refused(tmp_path):
    img = tmp_path / "zero.img"
    with open(img, "wb") as f:
        f.truncate(8 << 20)
    r = boot("", disk=img)
    assert r.rc not in (0, 124), r
    assert re.search(r"^fs: disk is not a Sprite file system: bad magic", r.out, re.M), r
    assert "console: ready" not in r.out, r


def test_corrupt_superblock_is_refused(disk):
    with open(disk, "r+b") as f:
        f.seek(4096 + 12)           # inside the superblock, past the magic
        f.write(b"\xff" * 16)
    r = boot("", disk=disk)
    assert r.rc not in (0, 124), r
    # Named as damaged, not just any "fs:" line (a good disk prints "fs: mounted").
    assert re.search(r"^fs: disk is not a Sprite file system: superblock checksum", r.out, re.M), r
    assert "console: ready" not in r.out, r


# --- exit statuses and the memory minimum (tools/runqemu.py, kernel/power.h, kernel/main.c) ---
MEM_MIN = int(re.search(r"#define\s+MEM_MIN_MB\s+(\d+)", (ROOT / "kernel/memlayout.h").read_text()).group(1))


def runqemu(*args, commands=""):
    p = subprocess.run(runqemu_launcher.command(kernel=BUILD / "kernel.elf", timeout=120) + [str(a) for a in args],
                       input=commands.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def runqemu_lines(err):
    return [l for l in err.splitlines() if l.startswith("runqemu:")]


def test_clean_and_failed_power_off_are_told_apart(disk):
    assert boot("poweroff\n", disk=disk).rc == 0
    r = boot("", disk=disk, cmdline="init=/bin/nosuch")
    assert r.rc == 1, r                   # the kernel powered off reporting a failure


def test_qemu_failing_to_start_is_not_a_power_off(disk):
    rc, out, err = runqemu("--disk", disk, "--", "-no-such-option")
    assert rc == 2, (rc, out, err)
    lines = runqemu_lines(err)
    assert len(lines) == 1 and "QEMU could not start" in lines[0] and "no-such-option" in lines[0], err


@pytest.mark.parametrize("mem", [2, MEM_MIN - 1])
def test_runqemu_refuses_too_little_memory(disk, mem):
    rc, out, err = runqemu("--disk", disk, "--mem", mem)
    assert rc == 2, (rc, out, err)
    assert "booting" not in out                           # refused before QEMU started
    lines = runqemu_lines(err)
    assert len(lines) == 1 and "at least %d MB" % MEM_MIN in lines[0], err


@pytest.mark.parametrize("mem", [2, MEM_MIN - 1])
def test_kernel_refuses_too_little_memory(disk, mem):
    """Started with too little anyway (runqemu's check bypassed), the kernel names the minimum
    and powers off reporting a failure: never a panic, never a hang."""
    rc, out, err = runqemu("--disk", disk, "--mem", mem, "--no-mem-check")
    assert rc == 1, (rc, out, err)
    assert "memory: %d MB is too little: the kernel needs at least %d MB" % (mem, MEM_MIN) in out, out
    assert "panic" not in out and "console: ready" not in out, out


def test_the_minimum_memory_is_enough(disk):
    """MEM_MIN_MB is real: GRUB boots the ISO in it (below, it hangs), and the kernel forks until
    fork fails and pages out and back in (manyforks failed with 4 MB)."""
    r = boot("echo grub fits\n", disk=disk, iso=True, mem=MEM_MIN)
    assert r.rc == 0 and r.printed("echo grub fits") == "grub fits\n", r
    r = boot("usertests manyforks\nmemhog 2\n", disk=disk, mem=MEM_MIN, status=True)
    assert r.rc == 0, r
    u = r.cmd("usertests manyforks")
    assert u.status == 0 and re.search(r"^usertests: [1-9]\d* passed, 0 failed$", u.out, re.M), r.cmds
    assert r.cmd("memhog 2").status == 0 and r.printed("memhog 2") == "memhog: 2 MB ok\n", r.cmds


def test_init_exiting_powers_off_with_failure(disk):
    """init is the first process and the reaper of orphans: when it ends, the machine says so
    and powers off reporting failure (it panicked before)."""
    r = boot("", disk=disk, cmdline="init=/bin/echo")
    assert r.rc != 0, r
    assert re.search(r"^init exited \(status 0\): the system cannot go on; powering off$", r.out, re.M), r
    assert "panic" not in r.out, r


def free_blocks(disk):
    rc, out = fsck(disk)
    assert rc == 0, out
    return int(re.search(rb" (\d+) of \d+ blocks free", out).group(1))


def image_with_free_blocks(make_disk, tmp_path, free):
    """An 8 MB image with exactly `free` blocks free, a file filling the rest: its size found
    by trying, since /bin's programs change size as they change."""
    big = tmp_path / "big"
    big.write_bytes(b"")
    n = free_blocks(make_disk([big], size_mb=8)) - free
    for _ in range(4):
        big.write_bytes(bytes(n * 4096))
        disk = make_disk([big], size_mb=8)
        got = free_blocks(disk)
        if got == free:
            return disk
        n += got - free             # its indirect blocks take some too
    raise AssertionError("no image with %d free blocks" % free)


def test_a_full_disk_at_boot_ends_in_a_message_not_a_panic(make_disk, tmp_path):
    """An 8 MB image with 3 free blocks: init's exec cannot reserve backing store. init says
    why and the machine powers off reporting failure. (The bug this guards against: the failed
    exec freeing the new code segment with the program's inode locked, a panic on that lock.)"""
    disk = image_with_free_blocks(make_disk, tmp_path, 3)
    r = boot("", disk=disk)
    assert r.rc != 0, r
    assert re.search(r"^fs: mounted 8 MB: 3 of \d+ blocks free", r.out, re.M), r
    assert re.search(r"^init: cannot run /bin/init \(error 134\)$", r.out, re.M), r        # ENOSWAP
    assert "panic" not in r.out, r
