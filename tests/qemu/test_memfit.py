"""memfit, the figure both kernels' memory is matched by (tools/bench/bench_linux.py): in a
10 MB machine (the IFS paper preset's) it keeps about what vmstat says is left to programs
(free frames and cache blocks less the kernel's reserve), the step past it is the first with a
page-out (the counter rose while it ran, and not before), the cache gave up its blocks to it
first, a limit below the fit ends without a page-out, a bad argument is a usage line and status
1, and the kernel's audit finds nothing afterwards. tests/qemu/test_linux.py has Linux's
figure below its MemAvailable."""
import re

from conftest import boot

MEM = 10
RESERVE = 64            # kernel/mem/negotiate.c's KERNEL_RESERVE, in frames
FIT = re.compile(r"^memfit: (\d+) KB written and kept, a page-out at (\d+) KB$")


def numbers(text):
    return {k: int(v) for k, v in re.findall(r"^(\S+)\s+(\d+)$", text, re.M)}


def test_memfit_keeps_what_is_left_to_programs_and_stops_at_the_first_page_out(disk):
    counters = "vmstat mem.frames.free fs.cache.blocks vm.pageouts fs.cache.held_min_kb"
    r = boot("mkdata /f 3M\nsysctl neg.reset=1\n%s\nmemfit\n%s\nmemfit -l 2\nmemfit -s 5\naudit\n"
             % (counters, counters), disk=disk, mem=MEM, status=True)
    before, after = numbers(r.printed(counters)), numbers(r.printed(counters, 1))
    m = FIT.match(r.printed("memfit").strip())
    assert m, r
    kept, at = int(m.group(1)), int(m.group(2))
    left = (before["mem.frames.free"] + before["fs.cache.blocks"] - RESERVE) * 4
    assert at == kept + 64 and left - 512 <= kept <= left + RESERVE * 4, (kept, left)
    # No page-out before memfit ran, at least one by the step past the fit; the cache had
    # given its blocks up to it (its least size since the reset), the file written first having
    # filled it.
    assert before["vm.pageouts"] == 0 and after["vm.pageouts"] > 0, (before, after)
    assert before["fs.cache.blocks"] > 256 and after["fs.cache.held_min_kb"] < 256, (before, after)
    assert r.printed("memfit -l 2") == "memfit: 2048 KB written and kept, no page-out up to the limit\n"
    bad = r.cmd("memfit -s 5")
    assert bad.status == 1 and bad.out.startswith("usage: memfit"), bad
    assert r.printed("audit") == "audit: ok\n", r
