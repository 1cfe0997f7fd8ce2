"""The delayed-write cache seen from outside: counters, and the disk image after a hard stop of
QEMU (killed the moment the guest prints a marker: a power cut, no sync, no poweroff).

Nothing here waits on the host's clock: a boot with long delays shows nothing written, one
with short delays waits in the guest (vmstat -w) until the cleaners report the work done.
Markers are printed with a quote inside the typed command (echo DO''NE) so that the shell's
echo of the typed line cannot match them.
"""
import random
import subprocess

import pytest

from conftest import boot, fsck

LONG = "fs.writeback_delay=3600 fs.desc_delay=3600"
SHORT = "fs.writeback_delay=1 fs.desc_delay=1 fs.scan_interval=1"


def counters(out, name):
    """Every value printed for `name` (vmstat lines "name value")."""
    vals = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == name and parts[1].isdigit():
            vals.append(int(parts[1]))
    return vals


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
    r = killed(boot("echo delayed data > /dw\nvmstat fs.cache.dirty fs.disk.writes.data\n"
                    "echo WRI''TTEN\n", disk=disk, cmdline=LONG, kill_after="WRITTEN",
                    keep_input=True))
    dirty, data_writes = [int(l) for l in r.out.splitlines() if l.strip().isdigit()][:2]
    assert dirty >= 2 and data_writes == 0, r
    # Nothing of the file reached the disk: not its entry, descriptor or data.
    assert fsck_cat(disk, "/dw") is None


def test_write_reaches_the_disk_after_the_delay(disk):
    r = killed(boot("echo delayed data > /dw\nvmstat -w fs.cache.dirty 0 60\n"
                    "vmstat fs.writebacks.delayed\necho WRI''TTEN\n", disk=disk, cmdline=SHORT,
                    kill_after="WRITTEN", keep_input=True))
    assert "fs.cache.dirty 0" in r.out.splitlines(), r       # vmstat -w's line, not the echo of its command
    assert int([l for l in r.out.splitlines() if l.strip().isdigit()][0]) > 0, r   # delayed
    assert fsck_cat(disk, "/dw") == b"delayed data\n"
    rc, out = fsck(disk)
    assert rc == 0, out                     # consistent, though not marked clean
    assert b"not cleanly unmounted" in out


def test_short_lived_file_costs_no_data_write(sh):
    r = sh("sync\nvmstat fs.disk.writes.data\nmkdata /tmp/short 200000 3\nrm /tmp/short\n"
           "sync\nvmstat fs.disk.writes.data\n")
    before, after = [int(l) for l in r.out.splitlines() if l.strip().isdigit()][:2]
    # 49 data blocks were written to the cache and dropped; /tmp's own block may go out, and
    # /swap's, whose entries change as each program's backing files come and go.
    assert after - before <= 2, r


@pytest.mark.parametrize("size,seed", [(5000, 1), (300000, 2), (4300000, 3)])
def test_fsync_data_survives_a_hard_stop(disk, size, seed):
    r = killed(boot("vmstat fs.disk.flushes\nmkdata -s /f %d %d\ncksum /f\nvmstat fs.disk.flushes\n"
                    "echo SY''NCED\n" % (size, seed), disk=disk, cmdline=LONG, kill_after="SYNCED",
                    keep_input=True))
    f0, f1 = [int(l) for l in r.out.splitlines() if l.strip().isdigit()][:2]
    assert f1 > f0, r                       # fsync sent the disk a flush
    data = fsck_cat(disk, "/f")
    assert data is not None and len(data) == size
    want = host_cksum(data)
    assert "%s %s /f" % (want[0].decode(), want[1].decode()) in r.out, r


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
    r2 = boot("cat /target | wc -c\nls /\n", disk=disk)
    assert r2.rc == 0, r2
    assert "repaired" in r2.out, r2
    rc, out = fsck(disk)
    assert rc == 0, out
    v = version_of(fsck_cat(disk, "/target") or b"")
    assert v is not None and v >= k, (k, v)


def test_full_disk_gives_enospc_and_keeps_what_was_written(make_disk):
    disk = make_disk(size_mb=4)
    r = boot("mkdata /keep 150000 4\ncksum /keep\nmkdata /fill 8M 5\n"
             "cksum /keep\nls -l /fill\nrm /fill\nmkdata /after 10000 6\ncksum /after\n", disk=disk)
    assert r.rc == 0, r
    assert "mkdata: /fill: No space left on device" in r.out, r
    sums = [l.lstrip("$ ") for l in r.out.splitlines() if l.endswith(" /keep") and "cksum" not in l]
    assert len(sums) == 2 and sums[0] == sums[1], r
    rc, out = fsck(disk)
    assert rc == 0, out
    keep = fsck_cat(disk, "/keep")
    want = host_cksum(keep)
    assert sums[0].split()[:2] == [want[0].decode(), want[1].decode()]
    assert fsck_cat(disk, "/after") is not None


def expected_stress(seed, i):
    size = (seed * 7919 + i * 1237) % 30000
    salt = seed + i
    return bytes((salt + k * 7) % 251 for k in range(size))


def test_many_files_from_several_processes(disk):
    n = 25
    cmd = " | ".join("fsstress /s%d %d %d" % (s, n, s) for s in range(1, 5))
    r = killed(boot(cmd + "\nls /s1 | wc -l\nsync\necho SY''NCED\n", disk=disk,
                    kill_after="SYNCED", keep_input=True))
    rc, out = fsck(disk)
    assert rc == 0, out
    for s in range(1, 5):
        for i in range(n):
            assert fsck_cat(disk, "/s%d/f%d" % (s, i)) == expected_stress(s, i), (s, i)
        rc, out = fsck(disk, "--ls", "/s%d" % s)
        assert b" t" not in out, out        # the temporaries are gone


def test_write_policies(sh):
    r = sh("sysctl fs.write_policy=through\necho through > /p1\nvmstat fs.cache.dirty\n"
           "sysctl fs.write_policy=asap\necho asap > /p2\nvmstat -w fs.cache.dirty 0 30\n"
           "sysctl fs.write_policy=delay\necho delay > /p3\nvmstat fs.cache.dirty\n")
    assert "fs.write_policy = through" in r.out and "fs.write_policy = asap" in r.out, r
    dirty = [int(l) for l in r.out.splitlines() if l.strip().isdigit()]
    assert dirty[0] == 0 and dirty[-1] > 0, r
    assert "fs.cache.dirty 0" in r.out.splitlines(), r


def test_sysctl_program(sh):
    # Alone in its boot: typed input echoed meanwhile cannot cut its lines.
    a = sh("sysctl -a\n")
    for name in ("fs.writeback_delay=30", "fs.desc_delay=5", "fs.scan_interval=5",
                 "fs.write_policy=delay", "fs.cache_min_kb=64"):
        line = [l.lstrip("$ ") for l in a.out.splitlines() if l.lstrip("$ ").startswith(name)]
        assert line and len(line[0].split()) > 2, (name, a)   # with a description
    r = sh("sysctl fs.writeback_delay\nsysctl fs.writeback_delay=12\n"
           "sysctl fs.writeback_delay\nsysctl fs.nonsense\nsysctl fs.writeback_delay=abc\n"
           "sysctl fs.write_policy=sometimes\nsysctl fs.write_policy\n"
           "sysctl fs.writeback_delay\n")
    assert "fs.writeback_delay = 30" in r.out and "fs.writeback_delay = 12" in r.out, r
    assert "fs.nonsense: no such setting" in r.out, r
    assert "sysctl: fs.writeback_delay=abc: not a number; keeping 12" in r.out, r
    assert "sysctl: fs.write_policy=sometimes: not a valid value" in r.out, r
    assert r.out.count("fs.writeback_delay = 12") == 3, r      # set, read, and unchanged by "abc"
    assert "fs.write_policy = delay" in r.out, r


def test_lowering_cache_size_gives_frames_back(sh):
    r = sh("cat /bin/sh /bin/usertests /bin/cat > /tmp/junk\nvmstat fs.cache.blocks\n"
           "sysctl fs.cache_max_kb=64\nsync\nvmstat fs.cache.blocks mem.frames.cache\n"
           "sysctl fs.cache_max_kb=0\n")
    nums = [int(l) for l in r.out.splitlines() if l.strip().isdigit()]
    assert nums[0] > 16 and nums[1] <= 16 and nums[2] <= 16, r


def test_counters_are_listed(sh):
    r = sh("vmstat\n")
    for name in ("fs.cache.blocks", "fs.cache.dirty", "fs.cache.hits", "fs.cache.misses",
                 "fs.disk.reads", "fs.disk.writes", "fs.disk.flushes", "fs.writebacks.delayed",
                 "fs.writebacks.recycled", "fs.writebacks.fsync"):
        assert "\n%s " % name in r.out, (name, r)


def test_small_cache_recycles_dirty_blocks(disk):
    r = boot("mkdata /big 2M 9\ncksum /big\nvmstat fs.writebacks.recycled\n", disk=disk,
             cmdline="fs.cache_max_kb=64 " + LONG)
    assert r.rc == 0, r
    assert int([l for l in r.out.splitlines() if l.strip().isdigit()][0]) > 0, r
    data = fsck_cat(disk, "/big")
    want = host_cksum(data)
    assert "%s %s /big" % (want[0].decode(), want[1].decode()) in r.out


def test_sync_program_marks_the_disk_clean(disk):
    # The marker is a comment: the console echoes it when the shell reads it, after sync has
    # finished, and no further program runs (starting one changes its backing file).
    r = killed(boot("echo x > /y\nsync\n#SYNCED\n", disk=disk, cmdline=LONG,
                    kill_after="SYNCED", keep_input=True))
    rc, out = fsck(disk)
    assert rc == 0 and b"not cleanly" not in out, out
    assert fsck_cat(disk, "/y") == b"x\n"
