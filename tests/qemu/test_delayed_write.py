"""The delayed-write cache seen from outside: counters, and the disk image after a hard stop of
QEMU (killed the moment the guest prints a marker: a power cut, no sync, no poweroff).

Nothing here waits on the host's clock: a boot with long delays shows nothing written, one
with short delays waits in the guest (vmstat -w) until the cleaners report the work done.
Markers are printed with a quote inside the typed command (echo DO''NE) so that the shell's
echo of the typed line cannot match them: the kill happens on the raw console. Everything else
is read from each command's own output (Run.printed), with its exit status.
"""
import random
import re
import subprocess

import pytest

from conftest import boot, fsck, mkdata_content, BUILD

LONG = "fs.writeback_delay=3600 fs.desc_delay=3600"
SHORT = "fs.writeback_delay=1 fs.desc_delay=1 fs.scan_interval=1"


def values(r, line, nth=0):
    """The numbers `vmstat -n NAME...` (typed as line) printed, one per name; it exited 0."""
    c = r.cmd(line, nth)
    names = line.split()[2:]           # after "vmstat -n"
    assert c.status == 0 and len(c.out.splitlines()) == len(names), (c, r)
    return [int(v) for v in c.out.split()]


def ran(r, *lines):
    """Each of these commands (every command if none named) exited 0."""
    cmds = [r.cmd(l) for l in lines] or r.cmds
    assert [c.status for c in cmds] == [0] * len(cmds), r.cmds


def killed(r):
    assert r.rc == 137, r       # killed on the marker, not powered off
    return r


def fsck_cat(disk, path):
    rc, out = fsck(disk, "--cat", path)
    return out if rc == 0 else None


def host_cksum(data):
    p = subprocess.run(["cksum"], input=data, stdout=subprocess.PIPE, check=True)
    return p.stdout.split()[:2]


def test_write_waits_in_memory_until_the_delay(disk):
    r = killed(boot("echo delayed data > /dw\nvmstat -n fs.cache.dirty fs.disk.writes.data\n"
                    "echo WRI''TTEN\n", disk=disk, cmdline=LONG, kill_after="WRITTEN",
                    keep_input=True, status=True))
    ran(r, "echo delayed data > /dw")
    dirty, data_writes = values(r, "vmstat -n fs.cache.dirty fs.disk.writes.data")
    assert dirty >= 2 and data_writes == 0, r
    # Nothing of the file reached the disk: not its entry, descriptor or data.
    assert fsck_cat(disk, "/dw") is None


def test_write_reaches_the_disk_after_the_delay(disk):
    r = killed(boot("echo delayed data > /dw\nvmstat -w fs.cache.dirty 0 60\n"
                    "vmstat -n fs.writebacks.delayed\necho WRI''TTEN\n", disk=disk, cmdline=SHORT,
                    kill_after="WRITTEN", keep_input=True, status=True))
    ran(r, "echo delayed data > /dw", "vmstat -w fs.cache.dirty 0 60")
    assert r.printed("vmstat -w fs.cache.dirty 0 60") == "fs.cache.dirty 0\n", r
    assert values(r, "vmstat -n fs.writebacks.delayed")[0] > 0, r        # delayed
    assert fsck_cat(disk, "/dw") == b"delayed data\n"
    rc, out = fsck(disk)
    assert rc == 0, out                     # consistent, though not marked clean
    assert b"not cleanly unmounted" in out


def test_short_lived_file_costs_no_data_write(sh):
    r = sh("sync\nvmstat -n fs.disk.writes.data\nmkdata /tmp/short 200000 3\nrm /tmp/short\n"
           "sync\nvmstat -n fs.disk.writes.data\n", status=True)
    ran(r)
    (before,), (after,) = values(r, "vmstat -n fs.disk.writes.data"), values(r, "vmstat -n fs.disk.writes.data", 1)
    # 49 data blocks were written to the cache and dropped; /tmp's own block may go out, and
    # /swap's, whose entries change as each program's backing files come and go.
    assert after - before <= 2, r


@pytest.mark.parametrize("size,seed", [(5000, 1), (300000, 2), (4300000, 3)])
def test_fsync_data_survives_a_hard_stop(disk, size, seed):
    r = killed(boot("vmstat -n fs.disk.flushes\nmkdata -s /f %d %d\ncksum /f\nvmstat -n fs.disk.flushes\n"
                    "echo SY''NCED\n" % (size, seed), disk=disk, cmdline=LONG, kill_after="SYNCED",
                    keep_input=True, status=True))
    ran(r, "mkdata -s /f %d %d" % (size, seed), "cksum /f")
    (f0,), (f1,) = values(r, "vmstat -n fs.disk.flushes"), values(r, "vmstat -n fs.disk.flushes", 1)
    assert f1 > f0, r                       # fsync sent the disk a flush
    data = fsck_cat(disk, "/f")
    assert data is not None and len(data) == size
    want = host_cksum(data)
    assert r.printed("cksum /f") == "%s %s /f\n" % (want[0].decode(), want[1].decode()), r


def version_of(data, size=20000):
    """The round whose content data is, or None for anything else (a mix, a torn file)."""
    if not data.startswith(b"version "):
        return None
    n = int(data[8:data.index(b"\n")])
    line = b"version %d\n" % n
    want = (line * (size // len(line) + 1))[:size]
    return n if data == want else None


@pytest.mark.parametrize("seed", range(4))
def test_rename_is_atomic_across_hard_stops(disk, seed):
    k = random.Random(seed).randrange(1, 12)
    r = killed(boot("renamer /target 1000\n", disk=disk, cmdline="fs.writeback_delay=2 "
                    "fs.desc_delay=1 fs.scan_interval=1", kill_after="renamed %d\n" % k,
                    keep_input=True))
    # The repairing mount, then a clean power-off.
    r2 = boot("cat /target | wc -c\nls /\n", disk=disk, status=True)
    assert r2.rc == 0, r2
    ran(r2)
    assert re.search(r"^fs: repaired after an unclean shutdown: ", r2.out, re.M), r2
    assert r2.printed("cat /target | wc -c").strip() == "20000", r2
    assert "target" in r2.printed("ls /").split(), r2
    rc, out = fsck(disk)
    assert rc == 0, out
    v = version_of(fsck_cat(disk, "/target") or b"")
    assert v is not None and v >= k, (k, v)


def test_full_disk_gives_enospc_and_keeps_what_was_written(make_disk):
    # Room for /bin and about 2 MB more: /keep fits, the 8 MB /fill does not. (Sized from /bin:
    # a fixed size fills up before /keep as /bin grows, and the test compares two empty checksums.)
    binmb = sum(f.stat().st_size for f in (BUILD / "user/bin").iterdir()) >> 20
    disk = make_disk(size_mb=binmb + 3)
    r = boot("mkdata /keep 150000 4\ncksum /keep\nmkdata /fill 8M 5\n"
             "cksum /keep\nls -l /fill\nrm /fill\nmkdata /after 10000 6\ncksum /after\n", disk=disk,
             status=True)
    assert r.rc == 0, r
    fill = r.cmd("mkdata /fill 8M 5")
    assert fill.out == "mkdata: /fill: No space left on device\n" and fill.status != 0, r.cmds
    ran(r, *[c.line for c in r.cmds if c is not fill])
    sums = [r.printed("cksum /keep", i) for i in (0, 1)]
    assert sums[0] == sums[1], r
    rc, out = fsck(disk)
    assert rc == 0, out
    keep = fsck_cat(disk, "/keep")
    assert keep is not None and len(keep) == 150000
    want = host_cksum(keep)
    assert sums[0] == "%s %s /keep\n" % (want[0].decode(), want[1].decode()), r
    after = fsck_cat(disk, "/after")
    assert after is not None and len(after) == 10000
    want = host_cksum(after)
    assert r.printed("cksum /after") == "%s %s /after\n" % (want[0].decode(), want[1].decode()), r


def expected_stress(seed, i):
    size = (seed * 7919 + i * 1237) % 30000
    salt = seed + i
    return bytes((salt + k * 7) % 251 for k in range(size))


def test_many_files_from_several_processes(disk):
    n = 25
    cmd = " | ".join("fsstress /s%d %d %d" % (s, n, s) for s in range(1, 5))
    r = killed(boot(cmd + "\nls /s1 | wc -l\nsync\necho SY''NCED\n", disk=disk,
                    kill_after="SYNCED", keep_input=True, status=True))
    ran(r, cmd, "ls /s1 | wc -l", "sync")
    assert r.printed("ls /s1 | wc -l").strip() == str(n), r     # the temporaries are gone
    rc, out = fsck(disk)
    assert rc == 0, out
    for s in range(1, 5):
        for i in range(n):
            assert fsck_cat(disk, "/s%d/f%d" % (s, i)) == expected_stress(s, i), (s, i)
        rc, out = fsck(disk, "--ls", "/s%d" % s)
        assert b" t" not in out, out        # the temporaries are gone


def test_write_policies(sh):
    r = sh("sysctl fs.write_policy=through\necho through > /p1\nvmstat -n fs.cache.dirty\n"
           "sysctl fs.write_policy=asap\necho asap > /p2\nvmstat -w fs.cache.dirty 0 30\n"
           "sysctl fs.write_policy=delay\necho delay > /p3\nvmstat -n fs.cache.dirty\n", status=True)
    ran(r)
    for p in ("through", "asap", "delay"):
        assert r.printed("sysctl fs.write_policy=" + p) == "fs.write_policy = %s\n" % p, r
    assert values(r, "vmstat -n fs.cache.dirty") == [0] and values(r, "vmstat -n fs.cache.dirty", 1)[0] > 0, r
    assert r.printed("vmstat -w fs.cache.dirty 0 30") == "fs.cache.dirty 0\n", r


def test_sysctl_program(sh):
    # Alone in its boot: typed input echoed meanwhile cannot cut its lines.
    a = sh("sysctl -a\n", status=True)
    ran(a)
    for name in ("fs.writeback_delay=30", "fs.desc_delay=5", "fs.scan_interval=5",
                 "fs.write_policy=delay", "fs.cache_min_kb=64"):
        line = [l for l in a.printed("sysctl -a").splitlines() if l.split()[0] == name]
        assert len(line) == 1 and len(line[0].split()) > 2, (name, a)   # with a description
    r = sh("sysctl fs.writeback_delay\nsysctl fs.writeback_delay=12\n"
           "sysctl fs.writeback_delay\nsysctl fs.nonsense\nsysctl fs.writeback_delay=abc\n"
           "sysctl fs.write_policy=sometimes\nsysctl fs.write_policy\n"
           "sysctl fs.writeback_delay\n", status=True)
    said = lambda line, nth=0: (r.printed(line, nth), r.cmd(line, nth).status)
    assert said("sysctl fs.writeback_delay") == ("fs.writeback_delay = 30\n", 0), r
    # set, read, and unchanged by "abc"
    assert said("sysctl fs.writeback_delay=12") == ("fs.writeback_delay = 12\n", 0), r
    assert said("sysctl fs.writeback_delay", 1) == said("sysctl fs.writeback_delay", 2) \
        == ("fs.writeback_delay = 12\n", 0), r
    assert said("sysctl fs.nonsense")[0].startswith("sysctl: fs.nonsense: no such setting"), r
    assert said("sysctl fs.writeback_delay=abc") == ("sysctl: fs.writeback_delay=abc: not a number; keeping 12\n", 1), r
    assert said("sysctl fs.write_policy=sometimes")[0].startswith("sysctl: fs.write_policy=sometimes: not a valid value"), r
    assert all(said(l)[1] != 0 for l in ("sysctl fs.nonsense", "sysctl fs.write_policy=sometimes")), r.cmds
    assert said("sysctl fs.write_policy") == ("fs.write_policy = delay\n", 0), r


def test_lowering_cache_size_gives_frames_back(sh):
    r = sh("cat /bin/sh /bin/usertests /bin/cat > /tmp/junk\nvmstat -n fs.cache.blocks\n"
           "sysctl fs.cache_max_kb=64\nsync\nvmstat -n fs.cache.blocks mem.frames.cache\n"
           "sysctl fs.cache_max_kb=0\n", status=True)
    ran(r)
    assert r.printed("sysctl fs.cache_max_kb=64") == "fs.cache_max_kb = 64\n", r
    (before,), (blocks, frames) = values(r, "vmstat -n fs.cache.blocks"), values(r, "vmstat -n fs.cache.blocks mem.frames.cache")
    assert before > 16 and blocks <= 16 and frames <= 16, r


def test_counters_are_listed(sh):
    r = sh("vmstat\n", status=True)
    ran(r)
    names = [l.split()[0] for l in r.printed("vmstat").splitlines() if re.fullmatch(r"\S+ \d+", l)]
    for name in ("fs.cache.blocks", "fs.cache.dirty", "fs.cache.hits", "fs.cache.misses",
                 "fs.disk.reads", "fs.disk.writes", "fs.disk.flushes", "fs.writebacks.delayed",
                 "fs.writebacks.recycled", "fs.writebacks.fsync"):
        assert name in names, (name, r)


def test_small_cache_recycles_dirty_blocks(disk):
    r = boot("mkdata /big 2M 9\ncksum /big\nvmstat -n fs.writebacks.recycled\n", disk=disk,
             cmdline="fs.cache_max_kb=64 " + LONG, status=True)
    assert r.rc == 0, r
    ran(r)
    assert values(r, "vmstat -n fs.writebacks.recycled")[0] > 0, r
    data = fsck_cat(disk, "/big")
    assert data is not None and len(data) == 2 << 20
    want = host_cksum(data)
    assert r.printed("cksum /big") == "%s %s /big\n" % (want[0].decode(), want[1].decode()), r


def test_small_cache_recycling_for_two_writers_loses_nothing(disk):
    """Two writers share a 64 KB cache. While one waits for the cleaners to write the dirty
    blocks it scheduled for recycling, the other looks for a block too and meets them: a block
    scheduled but not written yet is still dirty, and taken then its data would be lost
    (the bug this guards against: a recycled block taken on the next pass without its write)."""
    r = boot("mkdata /a 1M 3 | mkdata /b 1M 5\ncksum /a\ncksum /b\nvmstat -n fs.writebacks.recycled\n",
             disk=disk, cmdline="fs.cache_max_kb=64 " + LONG, status=True)
    assert r.rc == 0, r
    ran(r)
    assert values(r, "vmstat -n fs.writebacks.recycled")[0] > 0, r
    for name, seed in (("a", 3), ("b", 5)):
        want = host_cksum(mkdata_content(1 << 20, seed))
        assert r.printed("cksum /" + name) == "%s %s /%s\n" % (want[0].decode(), want[1].decode(), name), r
        assert fsck_cat(disk, "/" + name) == mkdata_content(1 << 20, seed), name


def test_sync_program_marks_the_disk_clean(disk):
    # The marker is a comment: the console echoes it when the shell reads it, after sync has
    # finished, and no further program runs (starting one changes its backing file).
    r = killed(boot("echo x > /y\nsync\n#SYNCED\n", disk=disk, cmdline=LONG,
                    kill_after="SYNCED", keep_input=True))
    rc, out = fsck(disk)
    assert rc == 0 and b"not cleanly" not in out, out
    assert fsck_cat(disk, "/y") == b"x\n"


def test_sync_waits_for_a_block_someone_holds(disk):
    """A sync writes every block dirty when it was called, also one that someone holds at that
    moment (a reader copying it to a page that must come back from the backing store holds it
    for a disk read): it waits for the holder, then writes it. Here gdb is the holder: stopped
    at the sync's first file, it raises the refcount of the file's oldest dirty block, lets the
    sync run to the end of that file (finish), and looks: the block must be clean. Then the
    power is cut at the shutdown (gdb kills QEMU there, before its own sync), and the file
    must be whole on the disk. With the delays at an hour nothing else writes it.
    (cache.sync-skips-held-blocks leaves the block dirty: both checks fail.)"""
    from gdbsession import KERNEL, errors, session
    # The breakpoint goes before finish: a loaded run once had finish stop at it again (another
    # call of clean_file, while the sync waited for the held block), not at this one's return.
    steps = ["break clean_file if sync && cf->ndirty > 0", "continue", "set $b = cf->dhead",
             "print $b->flags & 2", "set var $b->refcnt = $b->refcnt + 1", "delete", "finish",
             "print $b->flags & 2", "set var $b->refcnt = $b->refcnt - 1",
             "break sys_shutdown", "continue", "kill"]
    r = session(disk, "mkdata /f 9000 7\nsync\nincore /f\n", steps, cmdline=LONG, kernel=KERNEL)
    for c in steps[:-1]:
        assert not errors(r.of(c)), (c, r.of(c), r)
    assert re.search(r"= 2$", r.of("print $b->flags & 2", 0), re.M), ("the block was not dirty", r)
    assert re.search(r"= 0$", r.of("print $b->flags & 2", 1), re.M), \
        ("the sync left a held block dirty", r.of("finish"), r)
    assert "sys_shutdown" in r.of("continue", 1), r
    assert re.search(r"^/f: 3 of 3 blocks cached: 0-2$", r.console, re.M), r.console[-2000:]
    assert fsck_cat(disk, "/f") == mkdata_content(9000, 7), r
