"""`make qemu` boots what its command line says, whatever earlier runs gave (CMDLINE, FILES,
MEM, FSIMG changed between runs), and fails with one clear line when it cannot boot.

Each test gives make a private BOOTDIR (the ISO and the FILES image) and a private disk, so it
never touches build/os.iso or build/fs.img, which other tests boot at the same time."""
import fcntl, os, re, subprocess, sys
import pytest
from conftest import ROOT, BUILD, runqemu

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


@pytest.mark.parametrize("mem", ["2", str(MEM_MIN - 1), "lots", "16x"])
def test_too_little_memory_is_refused_before_booting(tmp_path, disk, mem):
    rc, out, err = make(["qemu", "BOOTDIR=%s" % tmp_path, "FSIMG=%s" % disk, "MEM=%s" % mem], timeout=30)
    assert rc != 0
    lines = nonblank(err)
    want = "at least %d MB" % MEM_MIN if mem.isdigit() else "MEM=%s is not a number" % mem
    assert len(lines) == 1 and want in lines[0], err
    assert "GRUB" not in out and "console: ready" not in out
    assert not (tmp_path / "os.iso").exists()           # refused before anything was built


def test_second_qemu_on_the_same_image_fails_with_one_line(tmp_path, disk):
    """QEMU's own failure (the image locked by the first QEMU) must not pass for a power-off."""
    first = subprocess.Popen(runqemu.command(kernel=BUILD / "kernel.elf", disk=disk, timeout=120),
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
    for line in "".join(f.read_text() for f in [ROOT / "Makefile"] + sorted(ROOT.glob("mk/*.mk"))).splitlines():
        if line.startswith(".PHONY:"):
            phony.update(line.split(":", 1)[1].split())
    phony -= {"FORCE"}
    p = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "help"], stdout=subprocess.PIPE,
                       text=True, env=clean_env(), timeout=60)
    assert p.returncode == 0
    listed = {l.split()[1] if len(l.split()) > 1 and not l.startswith("make  ") else "all"
              for l in p.stdout.splitlines() if l.startswith("make ")}
    assert phony <= listed, "not in make help: %s" % " ".join(sorted(phony - listed))


def make_n(*args):
    """make -n ARGS in the project: what would run, nothing run (stdout and stderr apart)."""
    return subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT)] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(), timeout=120)


@pytest.mark.parametrize("given, named", [("mem=16", "MEM"), ("MEMS=16", "MEM"), ("Cmdline=x", "CMDLINE"),
                                          ("JOB=3", "JOBS"), ("FROB=1", None)])
def test_a_variable_that_is_not_ours_is_named(given, named):
    """mem=16 or MEMS=16 would boot the default 64 MB silently; one warning names it."""
    p = make_n("help", given)
    assert p.returncode == 0, p.stderr
    warn = [l for l in p.stderr.splitlines() if "is not a variable of this Makefile" in l]
    assert len(warn) == 1 and warn[0].split(": ", 1)[1].startswith(given + " is not"), p.stderr
    assert ("(did you mean %s?)" % named in warn[0]) if named else "did you mean" not in warn[0], warn
    for ours in ("MEM=16", "CMDLINE=vm.policy=fifo", "TESTS=tests/host", "V=1", "JOBS=1"):
        p = make_n("help", ours)
        assert "is not a variable" not in p.stderr, (ours, p.stderr)


def test_the_build_prints_one_short_line_a_step_and_v1_the_commands():
    """-W pretends a source changed, -n prints what would run without running it."""
    def dry(*extra):
        p = make_n("-W", "kernel/proc.c", "build/kernel.elf", *extra)
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout
    quiet = dry()
    assert "printf '  %-6s %s\\n' CC kernel/proc.c" in quiet, quiet
    # each command is still there for make -n to show, but behind the short line; V=1: no short lines
    loud = dry("V=1")
    assert "printf '  %-6s" not in loud and "-c kernel/proc.c -o build/k/kernel/proc.c.o" in loud, loud


def test_make_qemu_builds_what_the_next_steps_use():
    """After make qemu, the lab's host-only grading needs build/tracesim and the images."""
    p = make_n("-W", "tools/lab/tracesim/main.c", "-W", "mkfs/fsck.c", "qemu")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "-o build/tracesim" in p.stdout and "-o build/fsck" in p.stdout, p.stdout


def test_one_test_after_make_test_build_has_everything_it_needs():
    """The debug kernel the gdb tests boot is part of what `make test TESTS=...` builds first."""
    p = make_n("-W", "kernel/proc.c", "test", "TESTS=tests/qemu/test_gdb.py")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "build/debug/kernel.elf" in p.stdout, p.stdout
    assert re.search(r"-m pytest -q -n \d+ --maxschedchunk=1 --durations=20 tests/qemu/test_gdb.py", p.stdout), p.stdout


def git_status():
    p = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        pytest.skip("not a git checkout")
    return p.stdout


def test_a_benchmark_leaves_the_tracked_tree_alone(tmp_path):
    """A short boot benchmark, through its make target: CSV and PNG in its own folder, and not
    one tracked file changed (the documented tables change only by make results)."""
    before = git_status()
    env = dict(clean_env(), RUNS="1", BENCH_DIR=str(tmp_path / "bench"))
    p = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "bench-boot"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout
    assert (tmp_path / "bench" / "boot.csv").exists() and (tmp_path / "bench" / "boot.png").exists(), p.stdout
    assert git_status() == before, p.stdout
    # and make results refuses that 1-run table for the docs, writing nothing
    r = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "results",
                        "RESULTS_ARGS=--bench %s" % (tmp_path / "bench")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=clean_env(), timeout=120)
    assert r.returncode != 0 and "boot: a shorter run" in r.stdout, r.stdout
    assert git_status() == before


def test_tests_start_from_a_pristine_disk_whatever_the_student_did(tmp_path):
    """A student's make qemu sessions leave files in /tmp (the names the tests use) and a
    fuller disk on build/fs.img; the file-system tests must pass all the same, the image they
    copy must not change, and make fsimg must give the student a fresh disk. The student's own
    build/fs.img is put back afterwards."""
    img = BUILD / "fs.img"
    pristine = BUILD / "fs-pristine.img"
    keep = tmp_path / "student.img"
    subprocess.run(["cp", "--sparse=always", str(img), str(keep)], check=True)
    was = pristine.read_bytes()
    try:
        session = ("mklines /tmp/in 300K\nmkdir /tmp/d\necho left > /tmp/out\necho left > /tmp/x\n"
                   "cp /bin/sort /tmp/d/sort\nmkdata /tmp/fill 24M\nrm /bin/echo\nsync\n")
        rc, out, err = make(["qemu", "BOOTDIR=%s" % (tmp_path / "boot")], session, timeout=600)
        assert rc == 0 and "console: ready" in out, (out, err)
        code, listing = fsck_ls(img, "/tmp")
        assert code == 0 and "fill" in listing, listing              # the disk is used now
        tests = ["tests/qemu/test_programs.py::test_cp_mv_rm_mkdir_rmdir",
                 "tests/qemu/test_workloads.py::test_sort_matches_host_sort_and_cleans_up",
                 "tests/qemu/test_writeback_timing.py::test_delay_counts_scans_and_descriptors_follow_their_own_delay"]
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"] + tests,
                           cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=clean_env(), timeout=900)
        assert p.returncode == 0 and "3 passed" in p.stdout, p.stdout[-3000:]
        assert pristine.read_bytes() == was
        rc, out, err = make(["fsimg"])
        assert rc == 0 and "fresh disk" in out, (out, err)
        assert img.read_bytes() == was                                 # the student's disk is new
    finally:
        subprocess.run(["cp", "--sparse=always", str(keep), str(img)], check=True)


def fsck_ls(img, path):
    p = subprocess.run([str(BUILD / "fsck"), str(img), "--ls", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout
