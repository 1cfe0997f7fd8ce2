"""The IFS benchmark's programs: sort (an external merge sort through temporary files) and
toucher (the interactive page toucher)."""
import re
from conftest import boot, fsck


def test_sort_matches_host_sort_and_cleans_up(disk):
    # 300 KB with a 16 KB budget: about 20 runs, so two merge passes.
    r = boot("mklines /tmp/in 300K 5\nsort -m 16 -o /tmp/out /tmp/in\nls /tmp\n", disk=disk, status=True)
    assert r.rc == 0, r
    assert [c.status for c in r.cmds] == [0, 0, 0], r.cmds
    assert r.printed("sort -m 16 -o /tmp/out /tmp/in") == "", r
    assert r.printed("ls /tmp") == "in\nout\n", r         # no temporary file left
    rc, data = fsck(disk, "--cat", "/tmp/in")
    assert rc == 0 and len(data) == 300 * 1024, len(data)
    rc, out = fsck(disk, "--cat", "/tmp/out")
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    assert out == b"".join(l + b"\n" for l in sorted(lines)), "sorted output differs"
    rc, listing = fsck(disk, "--ls", "/tmp")
    assert b"sort." not in listing, listing          # every temporary file was deleted
    rc, out = fsck(disk)
    assert rc == 0, out


def test_sort_errors(sh):
    r = sh("sort /nosuch\nsort -x\necho a | sort -m 1\n", status=True)
    assert r.printed("sort /nosuch") == "sort: open /nosuch: No such file or directory\n", r
    assert r.printed("sort -x").startswith("sort: unknown option -x\nusage: sort"), r
    assert r.printed("echo a | sort -m 1").startswith("sort: -m must be at least 5 KB"), r
    assert all(c.status != 0 for c in r.cmds), r.cmds


def test_toucher_reports_rounds(sh):
    r = sh("toucher -m 1 -s 0.05 -n 3\ntoucher -x\n", status=True)
    t = r.cmd("toucher -m 1 -s 0.05 -n 3")
    out = t.out.splitlines()
    assert t.status == 0 and [l.split()[:2] for l in out[:3]] == [["touch", "1"], ["touch", "2"], ["touch", "3"]], r
    assert len(out) == 5 and out[3].startswith("toucher: 3 rounds, response min"), r
    assert re.fullmatch(r"toucher: own page-ins \d+ page-outs \d+", out[4]), r
    assert r.printed("toucher -x").startswith("usage: toucher") and r.cmd("toucher -x").status != 0, r.cmds


def test_toucher_interactive_touches_once_per_line(disk):
    # Each line typed at the console is one touch; ^D (end of input) ends it, and the shell
    # reads on. The lines are sent only once toucher says it is ready, so they are its input.
    r = boot("toucher -i -m 1\n", disk=disk, wait_for=[("MB ready", "\nx\n\n\x04echo AF''TER\n")])
    assert r.rc == 0, r
    out = r.out.split("$ toucher -i -m 1\n", 1)[1].split("\n$ ", 1)[0]
    assert [l.split()[1] for l in out.splitlines() if l.startswith("touch ")] == ["1", "2", "3"], r
    assert "toucher: 3 rounds, response min" in out, r
    assert re.search(r"^toucher: own page-ins \d+ page-outs \d+$", out, re.M), r
    assert re.search(r"^AFTER$", r.out, re.M), r


def counters(text):
    return [int(x) for x in text.split()]


def test_toucher_counts_its_own_paging(disk):
    # 8 MB in a 5 MB machine (2.7 MB of frames): every round pages in. (The toucher dirties
    # half its pages; the others, read but never written, are dropped rather than written,
    # so its 4 MB of dirty pages are what must exceed the frames.) The toucher's own
    # page-ins (per round, from the kernel's count for it) and page-outs are > 0, and the
    # global counters moved at least as much (they count everyone's).
    cmds = ["vmstat -n vm.pageins vm.pageouts", "toucher -m 8 -s 0 -n 3", "vmstat -n vm.pageins vm.pageouts"]
    r = boot("\n".join(cmds) + "\n", disk=disk, mem=5, status=True)
    assert r.rc == 0 and all(c.status == 0 for c in r.cmds), r
    out = r.printed(cmds[1])
    rounds = re.findall(r"^touch (\d+) (\d+) ms, (\d+) page-ins$", out, re.M)
    assert len(rounds) == 3 and all(int(ins) > 100 for _, _, ins in rounds), r
    m = re.search(r"^toucher: own page-ins (\d+) page-outs (\d+)$", out, re.M)
    assert m, r
    ins, outs = int(m.group(1)), int(m.group(2))
    assert ins >= sum(int(x) for _, _, x in rounds) and outs > 100, r
    (in0, out0), (in1, out1) = counters(r.printed(cmds[0])), counters(r.printed(cmds[2], 1))
    assert in1 - in0 >= ins and out1 - out0 >= outs, r


def test_ps_shows_page_ins_and_outs(disk):
    # A background toucher fills 8 MB of a 5 MB machine, pushing its own pages out, then waits
    # for input that comes only when sleep ends. ps lists its page-outs, and its own page-ins
    # (ps's code and data came from its executable).
    r = boot("sleep 30 | toucher -i -m 8 &\n", disk=disk, mem=5,
             wait_for=[("MB ready", "ps\n")])
    assert r.rc == 0, r
    assert "PAGEIN PAGEOUT NAME" in r.out, r
    rows = {}
    for line in r.out.split("PAGEIN PAGEOUT NAME\n", 1)[1].splitlines():
        f = line.split()
        if len(f) == 8 and f[0].isdigit():
            rows[f[7]] = dict(pagein=int(f[5]), pageout=int(f[6]))
    assert rows["toucher"]["pageout"] > 100, r
    assert rows["ps"]["pagein"] > 0 and rows["ps"]["pageout"] == 0, r


def test_toucher_takes_fractions_of_a_megabyte_and_stamps_its_rounds(sh):
    # The IFS benchmark's "all but 1 MB" is no whole number of MB, and it puts the toucher's
    # responses on the guest's time axis (-t: when each round began).
    r = sh("echo | toucher -i -m 0.5\ntoucher -t -m 0.25 -s 0.2 -n 3\n", status=True)
    assert r.printed("echo | toucher -i -m 0.5").startswith("toucher: 0.5 MB ready"), r
    t = r.cmd("toucher -t -m 0.25 -s 0.2 -n 3")
    rounds = re.findall(r"^touch (\d+) (\d+) ms, (\d+) page-ins, at (\d+) ms$", t.out, re.M)
    assert t.status == 0 and [int(n) for n, _, _, _ in rounds] == [1, 2, 3], r
    at = [int(x[3]) for x in rounds]
    # Each round begins at least the 0.2 s sleep (and the touch before it) after the last.
    assert all(b - a >= 200 for a, b in zip(at, at[1:])) and at[-1] - at[0] < 5000, rounds


TOUCHERS = ((10, 10, ""), (50, 10.5, ""), (0, 11, ""), (0, 11.5, "-f "))   # -d PERCENT, -s SECONDS, fill


def dirtied(pages, percent):
    """The pages toucher -d PERCENT writes: page p when p * PERCENT mod 100 < PERCENT."""
    return sum((p % 100) * percent % 100 < percent for p in range(pages))


def test_toucher_dirties_the_percentage_it_is_given(disk):
    """Four touchers of 2 MB (512 pages) at -d 10, 50, 0 and 0 with -f in a 16 MB machine, their
    rounds half a second apart, 10 to 11.5 s after the last. Once each has done its first
    round, memhog takes the memory (24 MB of fresh pages only read, clean: evicting them costs
    nothing) and vm.pageout=0 pushes out whatever it left, while the touchers sleep. A page a
    toucher dirtied is then written exactly once and paged in by its next round; a page only
    ever read is still the zero page, dropped unwritten and zero-filled again, unless -f wrote
    every page in round 0 (all 512 are then written out and paged back in: the toucher holds
    its memory as it would on Linux, where a page only read is the shared zero page). So each
    toucher's page-outs are the 52, 256, 0 or 512 pages -d and -f chose, plus its own data and
    stack pages, and its second round's page-ins the same within a few (a page still being
    written as vm.pageout passed stays in): counts that do not depend on the moment, which an
    ignored or mis-scaled -d, or an ignored -f, misses by far.

    In guest time (-icount shift=3, sleep=off): the window in which memhog and vm.pageout must
    finish, from the last first round to the first second one (8.5 s), is the guest's, which a
    loaded host does not shorten. The phase takes 0.8 s of it idle; the guest's clock runs on
    while it waits for the host's disk, so a slow disk lengthens that, and the window is ten
    times it. No wider: the sleeps are not free, since each guest second is 1000 timer ticks
    that QEMU's threads serve, waiting for the host's CPU when it is busy (beside a CPU hog a
    guest second costs about a real one; idle, a twentieth)."""
    bad = ["toucher -d 101", "toucher -d 1x"]
    cmds = "\n".join(bad + ["toucher -h"]) + "\n" + "".join("toucher -m 2 -d %d -s %g %s-n 2 -t &\n" % t for t in TOUCHERS)
    # (vm.pageout passes over a page the page-out daemon is writing for memhog: twice, so that
    # few if any stay behind)
    steps = [(r"(?s)touch 1 .*touch 1 .*touch 1 .*touch 1 \d+ ms", "memhog -z 24\nsysctl vm.pageout=0\nsysctl vm.pageout=0\n"),
             (r"(?s)(own page-ins.*){4}", "vmstat -n vm.pageouts\n")]
    r = boot(cmds, disk=disk, mem=16, wait_for=steps, status=True, timeout=300, icount=3, sleep_off=True)
    assert r.rc == 0, r
    # background output: a line may follow the shell's prompt
    rounds = re.findall(r"^(?:\$ )?touch (\d) \d+ ms, (\d+) page-ins, at (\d+) ms$", r.out, re.M)
    totals = re.findall(r"^(?:\$ )?toucher: own page-ins \d+ page-outs (\d+)$", r.out, re.M)
    assert [n for n, ins, at in rounds] == ["1"] * 4 + ["2"] * 4 and len(totals) == 4, r
    assert all(int(ins) == 0 for n, ins, at in rounds[:4]), rounds   # 8 MB in 16: nothing out yet
    # the memory was taken while all four slept, after the last first round (memhog was sent
    # then) and before any second one
    pushed = r.out.index("memhog: 24 MB of zeros ok\n")
    assert re.search(r"^vm\.pageout = \d+$", r.out[pushed:r.out.index("touch 2 ")], re.M), r
    for (d, s, fill), (n, ins, at), outs in zip(TOUCHERS, rounds[4:], totals):
        want = 512 if fill else dirtied(512, d)
        assert want <= int(outs) <= want + 6, ("page-outs at -d %d" % d, outs, want)
        assert want - 4 <= int(ins) <= want + 4, ("page-ins of round 2 at -d %d" % d, ins, want)
    for line in bad:
        assert r.cmd(line).status != 0 and "-d takes a whole percentage, 0 to 100" in r.printed(line), r
    assert "dirtying PERCENT (0-100; 50) of the pages" in r.printed("toucher -h"), r
