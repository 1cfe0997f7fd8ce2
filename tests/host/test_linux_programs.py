"""The user library's Linux backend (user/lib/linux/): the very programs of user/, built as
32-bit static Linux programs (make linux-programs, build/linux/bin), run on this host, which is
x86-64 Linux and runs i386 programs when its kernel allows IA32 (if it does not, these skip
and tests/qemu/test_linux.py still runs sort in the Linux guest).

Each test goes through one part of the bridge between this kernel's calls and Linux's: sort
(open's flags, read, write, unlink of its runs, exit), the shell (fork, exec with the
environment, wait's status made this kernel's: the exit code, 128 + the signal of a killed
process), ls (getdents64 and stat64 made readdir and stat), ps and the toucher (/proc/PID/stat
read as a process's row: its name and its major faults as page-ins), errno and its messages."""
import os
import random
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "linux", "bin")
sys.path.insert(0, os.path.join(ROOT, "tools", "linux"))
from linuxdisk import HOST_ONLY as EXTRA      # noqa: E402  built here on demand: not on the guest's disk


def prog(name):
    """The program built for Linux; made (or brought up to date) under a lock, as two test
    workers asking make for the same program at once would compile it twice into one file."""
    import fcntl
    path = os.path.join(BIN, name)
    if not os.path.exists(path) or name in EXTRA:
        os.makedirs(BIN, exist_ok=True)
        with open(os.path.join(BIN, "..", ".make-lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            subprocess.run(["make", "-s", "-C", ROOT, "build/linux/bin/" + name], check=True, capture_output=True)
    return path


@pytest.fixture(scope="module")
def ia32():
    try:
        p = subprocess.run([prog("toucher"), "-h"], capture_output=True)
    except OSError as e:
        pytest.skip("this host's kernel runs no i386 programs (%s): tests/qemu/test_linux.py runs them" % e)
    assert p.returncode == 0, p.stderr


def run(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)


def test_sort_sorts_as_the_c_locale_through_runs_and_merges(ia32, tmp_path):
    rnd = random.Random(7)
    lines = [("".join(rnd.choice("abcxyz ") for _ in range(rnd.randint(0, 30)))).encode() for _ in range(6000)]
    inp = tmp_path / "in"
    inp.write_bytes(b"\n".join(lines) + b"\n")
    tmp = tmp_path / "t"
    tmp.mkdir()
    p = run([prog("sort"), "-v", "-m", "8", "-T", str(tmp), "-o", str(tmp_path / "out"), str(inp)])
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out").read_bytes() == b"".join(sorted(l + b"\n" for l in lines))
    assert b"merge passes" in p.stderr and b" 0 runs" not in p.stderr
    assert os.listdir(tmp) == []                        # every run unlinked


def test_mklines_and_cksum_agree_with_the_hosts_cksum(ia32, tmp_path):
    f = tmp_path / "in"
    assert run([prog("mklines"), str(f), "64K", "3"]).returncode == 0
    assert f.stat().st_size == 64 * 1024
    ours = run([prog("cksum"), str(f)]).stdout.split()[:2]
    assert ours == run(["cksum", str(f)]).stdout.split()[:2]


def test_errors_keep_their_numbers_and_messages(ia32, tmp_path):
    p = run([prog("sort"), "-o", str(tmp_path / "out"), str(tmp_path / "missing")])
    assert p.returncode == 2
    assert b"No such file or directory" in p.stderr
    (tmp_path / "in").write_text("b\na\n")
    p = run([prog("sort"), "-o", str(tmp_path / "nodir" / "out"), str(tmp_path / "in")])
    assert p.returncode == 2 and b"create" in p.stderr and b"No such file or directory" in p.stderr
    (tmp_path / "dir").mkdir()
    p = run([prog("sort"), "-o", str(tmp_path / "dir"), str(tmp_path / "in")])
    assert p.returncode == 2 and b"Is a directory" in p.stderr


def test_the_shell_forks_execs_and_reads_exit_statuses_as_this_kernel_gives_them(ia32, tmp_path):
    script = "%s %s\necho \"?=$?\"\n%s null\necho \"?=$?\"\n%s div0\necho \"?=$?\"\n" % (
        prog("cat"), tmp_path / "missing", prog("fault"), prog("fault"))
    p = run([prog("sh")], input=script.encode(), env={"PATH": "/bin"})
    out = p.stdout.decode()
    assert "?=1\n" in out                       # cat's own status
    assert "?=139\n" in out and "?=136\n" in out   # killed by SIGSEGV and SIGFPE: 128 + the signal


def test_ls_reads_directories_and_sizes(ia32, tmp_path):
    names = ["f%03d" % i for i in range(150)]           # more than one getdents64 buffer
    for i, n in enumerate(names):
        (tmp_path / n).write_bytes(b"x" * i)
    (tmp_path / "sub").mkdir()
    p = run([prog("ls"), "-l", str(tmp_path)])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert lines[0].startswith("total ")
    rows = {l.split()[-1]: l.split() for l in lines[1:]}      # type, links, size, time, name
    assert sorted(rows) == sorted(names + ["sub"])
    assert rows["sub"][0] == "d" and rows["f149"][0] == "-" and rows["f149"][2] == "149"


def test_ps_and_the_toucher_read_proc(ia32):
    p = run([prog("ps")])
    rows = [l.split() for l in p.stdout.decode().splitlines()[1:]]
    me = [r for r in rows if r[-1] == "ps"]
    assert len(me) == 1 and me[0][3] == "running" and int(me[0][4]) > 0      # its pid, state, size
    assert any(r[0] == "1" for r in rows)
    p = run([prog("toucher"), "-m", "1", "-s", "0.05", "-n", "2", "-t"])
    out = p.stdout.decode()
    assert p.returncode == 0 and "toucher: 2 rounds" in out and "toucher: own page-ins" in out
    assert out.count(", at ") == 2


def resident_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB$", f.read(), re.M).group(1))


@pytest.mark.parametrize("fill", [False, True])
def test_the_toucher_holds_its_memory_on_linux_only_when_filled(ia32, fill):
    """Linux maps a page that is read but never written to its one shared zero page: a 16 MB
    toucher that only reads (-d 0) is resident in a few KB, unless -f wrote every page first
    (the benchmarks beside Linux use -f, as this kernel gives every page a frame)."""
    args = [prog("toucher"), "-i", "-m", "16", "-d", "0"] + (["-f"] if fill else [])
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert p.stdout.readline().startswith(b"toucher: 16 MB ready")
        kb = resident_kb(p.pid)
    finally:
        out, _ = p.communicate(b"")
    assert p.returncode == 0 and b"toucher: 0 rounds" in out
    assert kb >= 16 * 1024 if fill else kb < 1024, kb
