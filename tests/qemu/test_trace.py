"""Reference traces recorded in the kernel (vm/trace.c, the trace program) and replayed on the
host (build/tracesim). One boot of a 16 MB machine: a short trace of the toucher (1 MB touched
every second, three times), then one of memhog paging 20 MB through it, whose every word
memhog checks: sampling clears the accessed and dirty bits, and a dirty bit cleared without
being folded into the frame would let a changed page be dropped as clean (wrong words); the
audit must find nothing either. Last, memhog -k under a trace: a 64 KB working set read between
fresh pages stays resident (the clock's second chance) while the sampler takes accessed bits.
(Taking them without refreshing the frames' times of last reference does not fail it: the set
is read so often that the clock's hand finds its bits set again; no test here catches that.)
The boot begins, and ends, with the same toucher and memhog under the ordered trace (trace -r,
the first thing the boot does, so that init's idle pages are still resident when the audit
looks for pages left hidden): the toucher's rounds after the first
come back through soft faults (vm.trace.softfaults), each round's heap pages in the order it
touched them; memhog's words all right while pages are hidden from user mode and paged, the
audit clean during the trace's hiding and after it, and memory used again after it stopped
(a page left hidden would fault for ever: the next memhog would not finish)."""
import re
import subprocess

import pytest

from conftest import BUILD, PRISTINE, boot

TOUCH = "trace -e 100 -w toucher -o /t.trace toucher -m 1 -s 1 -n 3 -q"
HOG = "trace -e 100 -w memhog -o /m.trace memhog 20"
KEEP = "trace -e 100 -w keep -o /k.trace memhog -k 64 16"
# The ordered trace (trace -r: soft faults on each page's first use in an epoch).
OTOUCH = "trace -r -e 100 -w toucher -o /ot.trace toucher -m 1 -s 1 -n 3 -q"
SOFT = "vmstat -n vm.trace.softfaults"
OHOG = "trace -r -e 100 -w memhog -o /om.trace memhog 20"
LINES = [OTOUCH, SOFT, "audit", TOUCH, "vmstat -n vm.trace.records vm.trace.lost", HOG, KEEP, "audit", OHOG,
         "audit", "memhog 8", "audit"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    disk = tmp_path_factory.mktemp("trace") / "fs.img"
    subprocess.run(["cp", "--sparse=always", str(PRISTINE), str(disk)], check=True)
    r = boot("\n".join(LINES) + "\n", disk=disk, mem=16, timeout=400, status=True)
    assert r.rc == 0, r
    return r, disk


def copy_out(disk, path, dest):
    with open(dest, "wb") as f:
        subprocess.run([str(BUILD / "fsck"), str(disk), "--cat", path], stdout=f, check=True)
    return dest


def simulate(trace, tmp_path):
    csv = tmp_path / "sim.csv"
    p = subprocess.run([str(BUILD / "tracesim"), "-c", str(csv), str(trace)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    assert p.returncode == 0, p.stdout
    import csv as csvmod
    with open(csv, newline="") as f:
        return p.stdout, list(csvmod.DictReader(f))


def test_toucher_trace_replays(run, tmp_path):
    r, disk = run
    c = r.cmd(TOUCH)
    assert c.status == 0, r
    assert "trace: " in c.out and ", 0 lost" in c.out, c
    t = copy_out(disk, "/t.trace", tmp_path / "t.trace")
    lines = t.read_text().splitlines()
    assert lines[0].startswith("# trace epoch_ms=100 workload=toucher"), lines[:2]
    recs = [tuple(map(int, l.split())) for l in lines if not l.startswith("#")]
    # The toucher's MB: 256 heap pages, each referenced in three rounds and modified in some.
    by_page = {}
    for e, seg, page, ref, mod in recs:
        by_page.setdefault((seg, page), []).append((e, ref, mod))
    thrice = [p for p, v in by_page.items() if len({e for e, ref, _ in v if ref}) >= 3]
    assert len(thrice) >= 256, len(thrice)
    assert sum(mod for *_, mod in recs) >= 3 * 128, "the toucher dirties half its pages each round"
    epochs = max(e for e, *_ in recs)
    assert 15 <= epochs <= 200, epochs           # three rounds a second apart, at 100 ms
    out, rows = simulate(t, tmp_path)
    mins = {r_["frames"]: int(r_["faults"]) for r_ in rows if r_["policy"] == "MIN"}
    assert all(int(x["faults"]) >= mins[x["frames"]] for x in rows), out
    assert "toucher" not in r.cmd("vmstat -n vm.trace.records vm.trace.lost").out


def test_trace_under_paging_keeps_data_and_audit_clean(run, tmp_path):
    r, disk = run
    c = r.cmd(HOG)
    assert c.status == 0 and "memhog: 20 MB ok\n" in c.out, r
    assert r.cmd("audit", 1).out == "audit: ok\n", r
    t = copy_out(disk, "/m.trace", tmp_path / "m.trace")
    out, rows = simulate(t, tmp_path)
    pages = int(rows[0]["pages"])
    assert pages >= 20 * 256, out                # every page memhog filled was seen


def test_sampling_keeps_times_of_last_reference(run):
    r, _ = run
    c = r.cmd(KEEP)
    assert c.status == 0, r
    m = re.search(r"memhog: kept 64 KB: (\d+) page-ins, (\d+) evictions in passes 2-3\n", c.out)
    assert m and int(m.group(1)) == 0 and int(m.group(2)) > 2048, c


def test_ordered_trace_records_first_uses_in_order(run, tmp_path):
    r, disk = run
    c = r.cmd(OTOUCH)
    assert c.status == 0 and ", 0 lost" in c.out, r
    soft = int(r.printed(SOFT))
    assert soft >= 2 * 256, soft          # rounds 2 and 3: the heap's pages came back softly
    # the first workload of the boot, no paging since: a page the trace left hidden from user
    # mode (init's, waiting) would still be so
    assert [x.out for x in r.cmds if x.line == "audit"][0] == "audit: ok\n", r
    t = copy_out(disk, "/ot.trace", tmp_path / "ot.trace")
    lines = t.read_text().splitlines()
    assert lines[0].startswith("# trace epoch_ms=100 workload=toucher order=reference"), lines[:2]
    assert lines[-1].startswith("# end epochs=") and lines[-1].endswith(" lost=0"), lines[-1]
    recs = [tuple(map(int, l.split())) for l in lines if not l.startswith("#")]
    # The heap: the segment with the most pages. Each round touches its pages in address order,
    # so within an epoch its referenced pages come in increasing order.
    segs = {}
    for e, seg, page, ref, mod in recs:
        segs.setdefault(seg, set()).add(page)
    heap = max(segs, key=lambda k: len(segs[k]))
    assert len(segs[heap]) >= 256, {k: len(v) for k, v in segs.items()}
    by_epoch = {}
    for e, seg, page, ref, mod in recs:
        if seg == heap and ref:
            by_epoch.setdefault(e, []).append(page)
    rounds = [ps for ps in by_epoch.values() if len(ps) >= 32]
    assert len(rounds) >= 3, {e: len(p) for e, p in by_epoch.items()}
    for ps in rounds:
        assert ps == sorted(ps), ps[:40]
    out, rows = simulate(t, tmp_path)
    assert "in the order of use" in out, out


def test_ordered_trace_under_paging_keeps_data_and_audit_clean(run):
    r, _ = run
    c = r.cmd(OHOG)
    assert c.status == 0 and "memhog: 20 MB ok\n" in c.out, r
    assert [x.out for x in r.cmds if x.line == "audit"][2:] == ["audit: ok\n", "audit: ok\n"], r
    assert r.cmd("memhog 8").out == "memhog: 8 MB ok\n", r
