"""Settings are one list: every setting `sysctl -a` shows is also a boot key, taken on the
command line and shown by `sysctl` afterwards; a refused value (out of range, not a number, not
a choice) gets the same message at boot ("cmdline: ...") as at run time ("sysctl: ...") and the
default stays."""
import re
import pytest
import shutil
from conftest import BUILD, PRISTINE, boot

ROW = re.compile(r"^([a-z]+\.[a-z_.]+)=(\S*) +(.*)$")
BOUNDS = re.compile(r"\[(\d+)\.\.(\d+)\]$")

# Settings that are not numbers: another accepted value and a refused one. A new text
# setting must be added here (the test says so).
TEXT = {
    "vm.policy": ("fifo", "nosuch"),
    "vm.fork": ("copy", "nosuch"),
    "fs.write_policy": ("through", "sometimes"),
    "vm.pageout": ("0", "99999"),     # an action: 0 pushes every process's pages (none at boot)
    "vm.trace_epoch_ms": ("0", "50"), # an action: starts a reference trace (0 stops; 100.. ms)
    "vm.penalty_mode": ("stepped", "nosuch"),
    "vm.arbiter": ("reference", "nosuch"),   # the arbiter lab's (kernel/arbiters.c); none by default
    "neg.arbiter_record": ("1", "2"),   # 0 or 1: records to QEMU's debug console (nowhere without -debugcon)
    "disk.ceiling_kb": ("0", "100"),  # an action: measures the disk's ceiling (0: nothing; 64 KB steps)
    "kernel.clock": ("tsc", "nosuch"),   # ticks by default (kernel/time.c)
}


def settings(out):
    """{name: (value, min, max or None)} from `sysctl -a` output."""
    got = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        b = BOUNDS.search(m.group(3))
        got[m.group(1)] = (m.group(2), int(b.group(1)) if b else None, int(b.group(2)) if b else None)
    return got


@pytest.fixture(scope="module")
def defaults(tmp_path_factory):
    disk = tmp_path_factory.mktemp("settings") / "fs.img"
    import shutil
    shutil.copy(PRISTINE, disk)
    r = boot("sysctl -a\n", disk=disk, status=True)
    assert r.rc == 0 and r.cmd("sysctl -a").status == 0, r
    s = settings(r.printed("sysctl -a"))
    assert len(s) == len(r.printed("sysctl -a").splitlines()), r     # every line a setting
    assert len(s) >= 13 and "vm.penalty" in s and "vm.clock_rate" in s and "vm.audit" in s, r
    for name, (value, lo, hi) in s.items():
        assert lo is not None or name in TEXT, "%s: a text setting the test does not know" % name
    return s


def test_every_setting_is_a_boot_key(defaults, disk):
    want = {}
    for name, (value, lo, hi) in defaults.items():
        if lo is None:
            want[name] = TEXT[name][0]
        else:
            want[name] = str(int(value) + 1 if int(value) + 1 <= hi else int(value) - 1)
    cmdline = " ".join("%s=%s" % kv for kv in sorted(want.items()))
    r = boot("sysctl -a\n", disk=disk, cmdline=cmdline, status=True)
    assert r.rc == 0 and r.cmd("sysctl -a").status == 0, r
    assert "cmdline:" not in r.out, r                      # nothing refused, nothing unknown
    got = settings(r.printed("sysctl -a"))
    for name, value in want.items():
        assert got[name][0] == value, (name, value, got[name], cmdline)


@pytest.fixture(params=["here", "deep"])
def kernel(request, tmp_path):
    """The kernel as built, or a copy of it deep in folders: QEMU puts the kernel's path first
    on the command line, and a clone in a deep folder must not push the last setting out of it."""
    if request.param == "here":
        return None
    deep = tmp_path.joinpath(*["a-folder-named-at-length-%02d" % i for i in range(12)])
    deep.mkdir(parents=True)
    shutil.copy(BUILD / "kernel.elf", deep / "kernel.elf")
    return deep / "kernel.elf"


def test_refused_values_say_the_same_at_boot_and_at_run_time(defaults, disk, kernel):
    bad = {}
    for name, (value, lo, hi) in defaults.items():
        bad[name] = TEXT[name][1] if lo is None else str(hi + 1)
    bad["vm.cluster"] = "0"                                  # below the range
    bad["fs.scan_interval"] = "abc"                          # not a number
    cmdline = " ".join("%s=%s" % kv for kv in sorted(bad.items()))
    cmds = "sysctl -a\n" + "".join("sysctl %s=%s\n" % kv for kv in sorted(bad.items()))
    r = boot(cmds, disk=disk, cmdline=cmdline, status=True, kernel=kernel)
    assert r.rc == 0, r
    booted = r.out[:r.out.index("\nconsole: ready\n")]
    at_boot = {l[len("cmdline: "):] for l in booted.splitlines() if l.startswith("cmdline: ")}
    at_run = set()
    for name, value in bad.items():
        c = r.cmd("sysctl %s=%s" % (name, value))
        assert c.status != 0 and c.out.startswith("sysctl: ") and c.out.count("\n") == 1, c
        at_run.add(c.out[len("sysctl: "):-1])
    for name, value in bad.items():
        line = [l for l in at_boot if l.startswith("%s=%s: " % (name, value))]
        assert len(line) == 1, (name, value, r)
        assert line[0].endswith("; keeping %s" % defaults[name][0]), (line, r)
        assert line[0] in at_run, (line, r)                  # word for word the same
    assert at_boot == at_run, r
    got = settings(r.printed("sysctl -a"))
    for name in bad:
        assert got[name][0] == defaults[name][0], (name, got[name], r)   # the default kept
    assert "range [0..1]" in "".join(l for l in at_boot if l.startswith("vm.audit=")), r


def test_a_command_line_too_long_or_of_too_many_words_is_reported(disk):
    many = " ".join("x%d=1" % i for i in range(100))                 # 100 words: 4 past the limit
    r = boot("", disk=disk, cmdline=many)
    assert r.rc == 0, r
    assert re.search(r"^cmdline: more than 96 words: the last 4 were ignored$", r.out, re.M), r
    long = "vm.penalty=7 " + "y=" + "z" * 4200                        # past 4 KB
    r = boot("sysctl vm.penalty\n", disk=disk, cmdline=long, status=True)
    assert r.rc == 0, r
    assert re.search(r"^cmdline: longer than 4095 bytes: the rest was ignored$", r.out, re.M), r
    assert r.printed("sysctl vm.penalty") == "vm.penalty = 7\n", r     # what fitted was taken
