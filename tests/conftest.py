"""Shared fixtures: boot the kernel in QEMU with a private copy of the disk image, feed the
shell commands through the serial console, and return what it printed.

Every boot also writes its whole console, as it arrives, to build/test-logs/TEST.log (TEST.boot2.log
for a test's second boot, and so on). pytest cuts an assertion message after 8 lines or 640
characters, so a failure names that file first and its report ends with each log's last lines."""
import glob, os, queue, re, struct, subprocess, sys, threading
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
# The one launcher of QEMU (make qemu's), which the benchmarks and tools boot through too.
sys.path.insert(0, str(ROOT / "tools"))
import runqemu  # noqa: E402
# The image every test copies: made by mkfs for the tests and never booted itself, so that what
# a student did at `make qemu` (which boots build/fs.img) never reaches a test.
PRISTINE = BUILD / "fs-pristine.img"
BOOT_TIMEOUT = float(os.environ.get("BOOT_TIMEOUT", "240"))
LOGS = Path(os.environ.get("TEST_LOGS") or BUILD / "test-logs")     # tools/fuzz/repeat_test.py sets it per run
TAIL_LINES = 40


STATUS = 'echo "?=$?"'          # sent after each command by boot(status=True); prints "?=N"


class Cmd:
    """One typed line and what the guest printed for it: out is the text between the console's
    echo of the line and the next prompt's echo (None if the line was never read), status its
    exit status (boot(status=True); None otherwise)."""
    def __init__(self, line, out=None, status=None):
        self.line, self.out, self.status = line, out, status

    def __repr__(self):
        return "Cmd(%r, status=%r, out=%r)" % (self.line, self.status, self.out)


def split_commands(out, lines, status=False):
    """Splits a console transcript into the output of each typed line, in order.

    The console echoes a typed line when the shell reads it, right after the prompt, so the
    transcript is "$ LINE\n" then what LINE's programs printed, up to the next "$ NEXT\n".
    Tests read a command's output from here, never the whole transcript, where the echo of a
    typed line (vmstat -w fs.cache.dirty 0 30) would match what they look for."""
    cmds, pos = [], 0
    found = []                          # (where its output starts, where its echo starts), or None
    for line in lines:
        echo = "$ " + line + "\n"
        i = out.find(echo, pos)
        if i < 0:
            found.append(None)
            continue
        found.append((i + len(echo), i))
        pos = i + len(echo)
    for k, line in enumerate(lines):
        if found[k] is None:
            cmds.append(Cmd(line))
            continue
        start = found[k][0]
        nxt = next((f[1] for f in found[k + 1:] if f is not None), None)
        if nxt is None:                 # the last line: up to the shell's exit (poweroff's prompt)
            j = out.find("\n$ ", start - 1)
            nxt = j + 1 if j >= 0 else len(out)
        cmds.append(Cmd(line, out[start:nxt]))
    if not status:
        return cmds
    # Every other line is the status echo that boot(status=True) sent after a command. A
    # background program's line (the toucher's "touch 7 ...") may land inside its output.
    paired = []
    for c, s in zip(cmds[0::2], cmds[1::2]):
        m = re.search(r"^\?=(\d+)$", s.out or "", re.M)
        c.status = int(m.group(1)) if m else None
        paired.append(c)
    return paired


class Run:
    def __init__(self, out, rc, disk, log=None, sent=(), status=False, background=None):
        self.out, self.rc, self.disk, self.log = out, rc, disk, log
        # What a program left running prints can land anywhere, even between the prompt and
        # the echo of a typed line, or inside the echo: the commands are cut from the
        # transcript without it (out keeps it).
        cut = re.sub(background, "", out) if background else out
        self.cmds = split_commands(cut, list(sent), status) if sent else []

    def cmd(self, line, nth=0):
        """The nth (0 = first) Cmd typed as exactly line; fails the test if it never ran."""
        hits = [c for c in self.cmds if c.line == line]
        assert len(hits) > nth and hits[nth].out is not None, ("never ran: %r" % line, self)
        return hits[nth]

    def printed(self, line, nth=0):
        """What the nth run of line printed (its echo excluded)."""
        return self.cmd(line, nth).out

    def __repr__(self):
        if self.log is None:
            return "exit status %d; console output:\n%s" % (self.rc, self.out)
        # The log's name first: pytest's one-line summary keeps only the start.
        return "console in %s, exit status %d; its last lines:\n%s" % (
            _shown(self.log), self.rc, _tail(self.out, 20))


# --- console logs ---------------------------------------------------------------------------
_logs = {}      # test node id -> the log files of its boots, in order


def _shown(path):
    return os.path.relpath(path)


def _tail(text, n):
    lines = text.splitlines()
    return "\n".join((["[... %d lines before]" % (len(lines) - n)] if len(lines) > n else []) + lines[-n:])


def _test_id():
    cur = os.environ.get("PYTEST_CURRENT_TEST")       # "dir/test_x.py::test_y[param] (call)"
    return cur.rsplit(" ", 1)[0] if cur else "boot"


def _new_log():
    """The file for this boot's console; a test's first boot removes what an earlier run left."""
    node = _test_id()
    # test_x.test_y-param.log: no brackets, spaces or slashes, so the name pastes into a shell.
    name = re.sub(r"[^\w.+=-]", "_", node.split("/")[-1].replace(".py::", ".").replace("[", "-").rstrip("]"))
    logs = _logs.setdefault(node, [])
    if not logs:
        for old in [LOGS / (name + ".log")] + glob.glob(glob.escape(str(LOGS / name)) + ".boot*.log"):
            if os.path.exists(old):
                os.unlink(old)
    path = LOGS / ("%s.log" % name if not logs else "%s.boot%d.log" % (name, len(logs) + 1))
    logs.append(path)
    LOGS.mkdir(parents=True, exist_ok=True)
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    rep = (yield).get_result()
    if rep.failed and rep.when in ("setup", "call"):
        for path in _logs.get(item.nodeid, []):
            try:
                text = Path(path).read_text("utf-8", "replace")
            except OSError:
                continue
            rep.sections.append(("console %s (last %d lines)" % (_shown(path), TAIL_LINES), _tail(text, TAIL_LINES)))


def boot(commands="", *, disk=None, mem=64, cmdline="", iso=False, timeout=BOOT_TIMEOUT, icount=False,
         sleep_off=False, wait_for=None, kill_after=None, keep_input=False, drive=None, status=False, kernel=None,
         cpu_limit=None, throttle_bps=None, extra=(), background=None):
    """Boots once; commands go to the shell after the kernel says it is ready, then end of input
    makes the shell exit and the machine power off. kernel: another ELF than build/kernel.elf
    (build/debug/kernel.elf, the one make qemu-gdb boots). cpu_limit: runqemu's --cpu-limit (seconds
    of QEMU's CPU time; rc 125 when spent). throttle_bps: runqemu's --throttle-bps (the disk at
    most this many bytes a second, so its time outweighs the guest's own on a loaded host). extra:
    QEMU's own arguments (runqemu's after --), e.g. a -debugcon file. background: a regex for
    what a program left running prints (the toucher's rounds, with their newline); each
    command's output is read without it, wherever it landed (Run).

    icount=True runs the guest under -icount shift=0 (its clock counts its instructions);
    icount=N under shift=N (2**N ns an instruction). sleep_off=True (with icount) skips the
    guest's idle time: while every process sleeps, its clock jumps to the next timer at once
    instead of waiting for it in real time. A test whose guest mostly sleeps then takes a
    fraction of its guest time, and a loaded host changes nothing the guest's clock measures
    (but how long the disk takes to answer).

    wait_for="REGEX": the commands are sent only once the guest's output matches it.
    wait_for=[(REGEX, TEXT), ...]: the commands are sent at once, then each TEXT once the
    output since the previous sending matches its REGEX (input ordered by what the guest did).
    kill_after="TEXT": QEMU is killed (a power cut: no sync, no poweroff) as soon as the guest
    prints TEXT; the run's rc is then 137. Tests order by what the guest prints, never by host
    sleeps. keep_input: standard input stays open (no end of file), so the shell keeps waiting
    after the commands instead of powering off; use it with kill_after. drive: a raw QEMU
    -drive spec instead of disk (tools/runqemu.py --drive). A disk's flushes end in QEMU
    (runqemu --no-host-flush): the guest's flushes are still sent and answered, and a power cut
    (QEMU killed) keeps what QEMU wrote, in the host's page cache, either way; the host syncing
    the image at each of them only slowed every guest beside a test that syncs often.

    The result's cmds holds each typed line with what it printed (split_commands); status=True
    also sends `echo "?=$?"` after every line, so each Cmd has its exit status.

    commands may be bytes (any byte values, sent as they are: console floods); the result then
    has no cmds, and the test reads out itself."""
    if status:
        commands = _with_status(commands)
        if wait_for is not None and not isinstance(wait_for, str):
            wait_for = [(rx, _with_status(text)) for rx, text in wait_for]
    args = runqemu.command(mem=mem, timeout=timeout, disk=disk or None, drive=drive or None,
                           iso=BUILD / "os.iso" if iso else None,
                           kernel=None if iso else kernel or BUILD / "kernel.elf", append=None if iso else cmdline,
                           icount=icount if icount else None,
                           icount_sleep_off=sleep_off, kill_on=kill_after or None, cpu_limit=cpu_limit,
                           throttle_bps=throttle_bps, no_host_flush=True, extra=extra)
    log = _new_log()
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # wait_for: one regex before the commands, or a list of (regex, text) steps after them.
    steps = [(wait_for, commands)] if isinstance(wait_for, str) or wait_for is None \
        else [(None, commands)] + list(wait_for)
    outbox = queue.Queue()

    def send():
        try:
            while True:
                text = outbox.get()
                if text is None:
                    break
                p.stdin.write(text if isinstance(text, bytes) else text.encode())
                p.stdin.flush()
            if not keep_input:
                p.stdin.close()
        except OSError:
            pass                        # runqemu is gone (QEMU stopped) before taking it all

    # A thread sends, so a long input cannot block us while the console waits to be read.
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    out = bytearray()
    mark = 0
    with open(log, "wb") as f:
        shown = [(rx, "%r... (%d bytes)" % (t[:200], len(t)) if isinstance(t, bytes) else t) for rx, t in steps]
        f.write(("# %s\n# input: %r\n" % (" ".join(args), shown)).encode())
        while True:
            while steps and (steps[0][0] is None or re.search(steps[0][0].encode(), bytes(out[mark:]))):
                outbox.put(steps.pop(0)[1])
                mark = len(out)
                if not steps:
                    outbox.put(None)
            b = p.stdout.read1(65536)
            if not b:
                break
            out += b
            f.write(b)
            f.flush()
        p.wait()
        f.write(b"\n# exit status %d\n" % p.returncode)
    outbox.put(None)
    sender.join()
    try:
        p.stdin.close()                 # keep_input, or wait_for never matched
    except OSError:
        pass
    # A sleep lock taken out of order (kernel/sleeplock.c) is a deadlock waiting for its
    # moment, whatever the test looks at: the poweroff's sync is after any audit.
    assert b"\nlock order: " not in out, ("a lock taken out of order", _shown(log) if log else out[-2000:])
    if isinstance(commands, bytes):
        return Run(out.decode("utf-8", "replace"), p.returncode, disk, log)
    sent = "".join(text for _, text in ([(None, commands)] + (list(wait_for) if wait_for is not None
                                                                 and not isinstance(wait_for, str) else [])))
    # ^C discards what was typed before it on its line: the shell reads only what follows.
    lines = [l.rsplit("\x03", 1)[-1] for l in sent.splitlines()]
    return Run(out.decode("utf-8", "replace"), p.returncode, disk, log, lines, status, background)


def _with_status(text):
    return "".join(line + "\n" + STATUS + "\n" for line in text.splitlines())


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


def mkdata_content(size, seed):
    """What `mkdata FILE SIZE SEED` writes (user/mkdata.c): successive xorshift32 states."""
    x, words = seed or 1, []
    for _ in range((size + 3) // 4):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        words.append(x)
    return struct.pack("<%dI" % len(words), *words)[:size]


def fsck(disk, *args):
    """Runs the host-side fsck on an image; returns (status, output)."""
    p = subprocess.run([str(BUILD / "fsck"), str(disk)] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout


@pytest.fixture
def disk(tmp_path):
    """A private, sparse copy of the pristine image."""
    d = tmp_path / "fs.img"
    subprocess.run(["cp", "--sparse=always", str(PRISTINE), str(d)], check=True)
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


# The suite's long poles (make test's --durations), started first: with every worker busy a 2-minute
# test dealt out last runs alone at the end while the others idle. Order only: every
# test still runs, and a test missing from this list runs after them in its usual order.
LONG_FIRST = (
    "tests/qemu/test_crash.py::test_crash_states",
    "tests/qemu/test_lab_compare.py",
    "tests/host/test_grade.py",
    "tests/host/test_grade_dir.py",
    "tests/host/test_setup.py",
    "tests/qemu/test_linux.py",
    "tests/qemu/test_dirty_bound.py",
    "tests/qemu/test_gdb.py",
    "tests/qemu/test_arbiter.py",
    "tests/host/test_arbiter_grade.py",
    "tests/host/test_lab_release.py",
    "tests/qemu/test_console.py::test_a_guest_that_keeps_computing_is_stopped_by_its_cpu_budget",
    "tests/qemu/test_console.py::test_a_megabyte_flood_arrives_whole_and_the_shell_answers",
    "tests/qemu/test_soak.py",
)


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        for i, prefix in enumerate(LONG_FIRST):
            if item.nodeid.startswith(prefix):
                return i
        return len(LONG_FIRST)
    items.sort(key=rank)         # stable: the rest keep their order
