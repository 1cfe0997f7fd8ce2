"""kernel.clock (kernel/time.c): at QEMU's -icount shift=8 (256 ns an instruction) a fault's
work holds interrupts off for milliseconds and the PIT's ticks are lost; the tsc clock keeps
the time they lose, the ticks clock is the interrupts counted. Guest time only: nothing here
depends on how fast the host is."""
import re
from conftest import boot

WORK = "memhog 12\n"          # 3,072 zero-fill faults: interrupts off for most of their time
SAMPLE = "vmstat -i 1 1 time.uptime_ms time.ticks\n"


def sample(r, nth=0):
    """(uptime_ms, time.ticks) from vmstat -i's one line, "@NOW UPTIME TICKS": both counters of
    one snapshot, taken with interrupts off, so no tick or kernel work falls between them (the
    line's own @NOW is read by a later system call: at shift 8 a disk interrupt or the cleaner
    between the two is milliseconds)."""
    m = re.search(r"^@\d+ (\d+) (\d+)$", r.printed(SAMPLE.strip(), nth), re.M)
    assert m, r
    return int(m.group(1)), int(m.group(2))


def test_the_tsc_clock_keeps_the_time_the_ticks_lose(disk):
    r = boot(WORK + SAMPLE + "sysctl kernel.clock\nvmstat time.tsc_per_ms\n", disk=disk, mem=16, icount=8,
             cmdline="kernel.clock=tsc", timeout=1200)
    assert r.rc == 0, r
    assert r.printed("sysctl kernel.clock") == "kernel.clock = tsc\n", r
    up, ticks = sample(r)
    # Under -icount the TSC counts the guest's virtual nanoseconds, as the PIT does.
    rate = int(r.printed("vmstat time.tsc_per_ms").split()[-1])
    assert 990000 <= rate <= 1010000, rate
    assert ticks < 0.9 * up, (up, ticks)       # a tenth or more of the time fell between ticks


def test_the_ticks_clock_is_the_ticks_and_a_switch_carries_the_time_on(disk):
    r = boot(WORK + SAMPLE + "sysctl kernel.clock=tsc\n" + WORK + SAMPLE + "sysctl kernel.clock=ticks\n" +
             SAMPLE + "sysctl kernel.clock=bogus\nsysctl kernel.clock\n", disk=disk, mem=16, icount=8, timeout=1200)
    assert r.rc == 0, r
    up0, ticks0 = sample(r, 0)
    # The default: uptime is the count of interrupts, exactly (one snapshot).
    assert up0 == ticks0, (up0, ticks0)
    up1, ticks1 = sample(r, 1)                 # tsc from there: the second memhog's lost ticks kept
    assert up1 - up0 > (ticks1 - ticks0) * 1.1, (up0, ticks0, up1, ticks1)
    up2, ticks2 = sample(r, 2)                 # ticks again: on from the tsc's time, never back
    assert up2 >= up1 and ticks2 < up2, (up1, up2, ticks2)
    assert re.search(r"kernel\.clock=bogus", r.printed("sysctl kernel.clock=bogus")), r
    assert r.printed("sysctl kernel.clock") == "kernel.clock = ticks\n", r
