"""`make qemu` boots what its command line says, whatever earlier runs gave (CMDLINE, FILES,
MEM, FSIMG changed between runs), and fails with one clear line when it cannot boot.

Each test gives make a private BOOTDIR (the ISO and the FILES image) and a private disk, so it
never touches build/os.iso or build/fs.img, which other tests boot at the same time."""
import fcntl, os, re, subprocess, sys
import pytest
from conftest import ROOT, BUILD

MEM_MIN = int(re.search(r"#define\s+MEM_MIN_MB\s+(\d+)", (ROOT / "kernel/memlayout.h").read_text()).group(1))


def clean_env():
    """The environment without what a surrounding `make test` passes down: its command-line
    variables (MAKEFLAGS) and exported CMDLINE would otherwise become this make's."""
    drop = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "CMDLINE", "FILES", "FSIMG", "MEM", "BOOTDIR"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def make(args, commands="", timeout=180):
    """Runs make in the project; returns (status, stdout, stderr). What the run shares with
    other tests (the kernel, mkfs, the programs) is brought up to date first with a lock held,
    so that two runs never rebuild it at once; the run itself then builds only in its BOOTDIR."""
    BUILD.mkdir(exist_ok=True)
    base = ["make", "--no-print-directory", "-C", str(ROOT)]
    with open(BUILD / ".make-test.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shared = subprocess.run(base + ["-s", "programs", str(BUILD / "kernel.elf"), str(BUILD / "mkfs")],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=clean_env())
    assert shared.returncode == 0, shared.stdout.decode("utf-8", "replace")
    p = subprocess.run(base + args, input=commands.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=clean_env())
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


@pytest.fixture
def qemu(tmp_path, disk):
    """make qemu with a private BOOTDIR; FSIMG is the test's own disk unless given or FILES is."""
    def run(commands, *variables):
        args = ["qemu", "BOOTDIR=%s" % (tmp_path / "boot")] + list(variables)
        if not any(v.startswith(("FSIMG=", "FILES=")) for v in variables):
            args.append("FSIMG=%s" % disk)
        rc, out, err = make(args, commands)
        assert rc == 0, "make %s: status %d\n%s\n%s" % (" ".join(variables), rc, out, err)
        assert "console: ready" in out, out
        return out
    return run


def printed(out, pattern):
    """The lines the guest printed that match pattern in full (never the echo of a typed
    command, which starts with the prompt)."""
    return [m.group(1) if m.groups() else m.group(0)
            for m in (re.fullmatch(pattern, l.rstrip("\r")) for l in out.splitlines()) if m]


def test_cmdline_given_is_what_boots_each_time(qemu):
    assert printed(qemu("sysctl vm.policy\n", "CMDLINE=vm.policy=fifo"), r"vm\.policy = (\w+)") == ["fifo"]
    assert printed(qemu("sysctl vm.policy\n"), r"vm\.policy = (\w+)") == ["clock"]
    assert printed(qemu("sysctl vm.policy\n", "CMDLINE=vm.policy=lru"), r"vm\.policy = (\w+)") == ["lru"]
    assert printed(qemu("sysctl vm.policy\n", "MEM=32"), r"vm\.policy = (\w+)") == ["clock"]


def test_files_given_are_what_the_guest_sees_each_time(qemu, tmp_path):
    note = tmp_path / "note.txt"
    other = tmp_path / "other.txt"
    note.write_text("first contents\n")
    other.write_text("another file\n")
    out = qemu("cat /note.txt\n", "FILES=%s" % note)
    assert printed(out, r"first contents") == ["first contents"], out
    note.write_text("second contents\n")
    out = qemu("cat /note.txt\n", "FILES=%s" % note)
    assert printed(out, r"(first|second) contents") == ["second"], out
    out = qemu("ls /\n", "FILES=%s" % other)
    assert printed(out, r"(note|other)\.txt") == ["other"], out


def test_mem_given_is_what_boots_each_time(qemu):
    assert printed(qemu("", "MEM=16"), r"memory: (\d+) MB, \d+ frames free") == ["16"]
    assert printed(qemu("", "MEM=24"), r"memory: (\d+) MB, \d+ frames free") == ["24"]
    assert printed(qemu(""), r"memory: (\d+) MB, \d+ frames free") == ["64"]


def test_fsimg_given_is_what_boots_in_any_order(qemu, make_disk, tmp_path):
    for name in ("alpha", "beta", "gamma"):
        (tmp_path / name).write_text(name + "\n")
    a = make_disk(files=[tmp_path / "alpha"], name="a.img")
    b = make_disk(files=[tmp_path / "beta"], name="b.img")
    names = r"(alpha|beta|gamma)"
    assert printed(qemu("ls /\n", "FSIMG=%s" % a), names) == ["alpha"]
    assert printed(qemu("ls /\n", "FSIMG=%s" % b), names) == ["beta"]
    assert printed(qemu("ls /\n", "FILES=%s" % (tmp_path / "gamma")), names) == ["gamma"]
    assert printed(qemu("ls /\n", "FSIMG=%s" % a), names) == ["alpha"]


def nonblank(err):
    return [l for l in err.splitlines() if l.strip()]


def test_missing_fsimg_is_one_clear_line(tmp_path):
    rc, out, err = make(["qemu", "BOOTDIR=%s" % tmp_path, "FSIMG=%s" % (tmp_path / "nonexistent.img")])
    assert rc != 0
    lines = nonblank(err)
    assert len(lines) == 1 and "nonexistent.img does not exist" in lines[0], err
    assert "No rule" not in err


def test_files_and_fsimg_together_are_refused(tmp_path, disk):
    rc, out, err = make(["qemu", "BOOTDIR=%s" % tmp_path, "FSIMG=%s" % disk, "FILES=README.md"])
    assert rc != 0
    assert "FILES and FSIMG together" in err, err


@pytest.mark.parametrize("mem", ["2", str(MEM_MIN - 1), "lots"])
def test_too_little_memory_is_refused_before_booting(tmp_path, disk, mem):
    rc, out, err = make(["qemu", "BOOTDIR=%s" % tmp_path, "FSIMG=%s" % disk, "MEM=%s" % mem], timeout=30)
    assert rc != 0
    lines = nonblank(err)
    assert len(lines) == 1 and "at least %d MB" % MEM_MIN in lines[0], err
    assert "GRUB" not in out and "console: ready" not in out
    assert not (tmp_path / "os.iso").exists()           # refused before anything was built


def test_second_qemu_on_the_same_image_fails_with_one_line(tmp_path, disk):
    """QEMU's own failure (the image locked by the first QEMU) must not pass for a power-off."""
    first = subprocess.Popen([sys.executable, str(ROOT / "tools/runqemu.py"), "--kernel", str(BUILD / "kernel.elf"),
                              "--disk", str(disk), "--timeout", "120"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        seen = b""
        while b"console: ready" not in seen:
            b = first.stdout.read1(4096)
            assert b, seen.decode("utf-8", "replace")
            seen += b
        rc, out, err = make(["qemu", "BOOTDIR=%s" % tmp_path, "FSIMG=%s" % disk], "poweroff\n")
        assert rc != 0, (out, err)
        assert "console: ready" not in out
        assert "in use by another QEMU" in err, err
        runqemu_lines = [l for l in err.splitlines() if l.startswith("runqemu:")]
        assert len(runqemu_lines) == 1, err
    finally:
        first.stdin.close()                   # end of input: the first guest powers off
        rest = first.stdout.read()
        first.wait()
    assert first.returncode == 0, (seen + rest).decode("utf-8", "replace")


def test_make_help_lists_every_target():
    phony = set()
    for line in (ROOT / "Makefile").read_text().splitlines():
        if line.startswith(".PHONY:"):
            phony.update(line.split(":", 1)[1].split())
    phony -= {"FORCE"}
    p = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "help"], stdout=subprocess.PIPE,
                       text=True, env=clean_env(), timeout=60)
    assert p.returncode == 0
    listed = {l.split()[1] if len(l.split()) > 1 and not l.startswith("make  ") else "all"
              for l in p.stdout.splitlines() if l.startswith("make ")}
    assert phony <= listed, "not in make help: %s" % " ".join(sorted(phony - listed))
