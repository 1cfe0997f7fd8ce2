"""The virtio-blk driver's own self-test: many asynchronous requests in flight, completion by
interrupt both before the scheduler runs (halting) and in the first process (sleeping), a
write, flush and read-back that restores what was there, and errors past the end of the disk."""
import re
from conftest import boot, fsck


def test_disk_selftest_with_writes(disk):
    r = boot("echo done\n", disk=disk, cmdline="disktest=rw", wait_for=r"disktest\(sleeping\): (ok|FAILED)")
    assert r.rc == 0, r
    assert re.search(r"^disktest\(halting\): ok", r.out, re.M), r
    assert re.search(r"^disktest\(sleeping\): ok", r.out, re.M), r
    assert "FAIL" not in r.out, r
    inflight = [int(l.split(" in flight at most")[0].split()[-1])
                for l in r.out.splitlines() if "in flight at most" in l]
    assert inflight and max(inflight) > 1, r      # several requests really were in flight
    assert r.printed("echo done") == "done\n", r


STALL = re.compile(r"^virtio-blk: no completion for (\d+) s \((\d+) in flight\): polled, (\d+) recovered"
                   r"(, notified the device again)?$", re.M)


def test_lost_interrupt_and_lost_notify_are_recovered(disk):
    """The watchdog (disk_watchdog, from the timer): a completion whose interrupt is ignored
    (debug.disk_lose_irq) is found by polling the used ring; a request the device was never
    told of (debug.disk_lose_notify) goes out on a second notify. Each is a one-second stall,
    counted and said once, and the run finishes with the disk clean. Without the watchdog the
    first request so lost waits forever and the boot times out. (Any later request's interrupt
    or notify would rescue it too: the write-back daemon's scans are put an hour apart so that
    nothing but the watchdog can; with them every 5 s the run ends, slow, 20-55 s.)"""
    cmds = ("sysctl debug.disk_lose_irq=2\n"                # refused: debug.corrupt is 0
            "sysctl debug.corrupt=1\n"
            "sysctl debug.disk_lose_irq=2\n"
            "mkdata -s /tmp/a 40000 1\n"
            "sync\n"
            "vmstat -n disk.debug.irqs_to_lose\n"
            "vmstat -n disk.stalls\n"
            "vmstat -n disk.stalls.polled\n"
            "sysctl debug.disk_lose_notify=1\n"
            "mkdata -s /tmp/b 40000 2\n"
            "vmstat -n disk.debug.notifies_to_lose\n"
            "vmstat -n disk.stalls.kicks\n"
            "vmstat -n disk.inflight\n"
            "cksum /tmp/a\n"
            "sysctl debug.corrupt=0\n")
    r = boot(cmds, disk=disk, cmdline="fs.scan_interval=3600", timeout=300, status=True)
    assert r.rc == 0, r                                     # no hang: a clean power-off
    refused = r.cmd("sysctl debug.disk_lose_irq=2", 0)
    assert refused.status != 0 and "not permitted" in refused.out, refused
    assert r.cmd("sysctl debug.disk_lose_irq=2", 1).status == 0, r
    assert r.printed("vmstat -n disk.debug.irqs_to_lose") == "0\n", r      # both were lost
    assert r.printed("vmstat -n disk.debug.notifies_to_lose") == "0\n", r
    stalls = [m.groups() for m in STALL.finditer(r.out)]
    polled = [s for s in stalls if int(s[2]) > 0 and not s[3]]
    kicked = [s for s in stalls if int(s[2]) == 0 and s[3]]
    assert polled and kicked, r                             # each kind said on the console
    assert all(s[0] == "1" for s in stalls), stalls         # after about a second, not later
    assert int(r.printed("vmstat -n disk.stalls")) >= 1, r
    assert int(r.printed("vmstat -n disk.stalls.polled")) >= 1, r
    assert int(r.printed("vmstat -n disk.stalls.kicks")) >= 1, r
    assert r.printed("vmstat -n disk.inflight") == "0\n", r
    assert r.cmd("mkdata -s /tmp/a 40000 1").status == 0 and r.cmd("mkdata -s /tmp/b 40000 2").status == 0, r
    assert r.cmd("cksum /tmp/a").status == 0, r
    rc, out = fsck(disk)
    assert rc == 0 and b": ok:" in out, out


def test_no_stall_on_the_normal_path(disk):
    """While requests complete, the watchdog never acts: a busy run counts no stall."""
    r = boot("mkdata -s /tmp/a 400000 3\ncat /tmp/a > /tmp/b\nsync\nvmstat -n disk.stalls\nvmstat -n disk.stalls.kicks\n",
             disk=disk, timeout=300, status=True)
    assert r.rc == 0, r
    assert not STALL.search(r.out), r
    assert r.printed("vmstat -n disk.stalls") == "0\n" and r.printed("vmstat -n disk.stalls.kicks") == "0\n", r
