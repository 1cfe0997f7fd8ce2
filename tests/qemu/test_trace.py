"""Reference traces recorded in the kernel (vm/trace.c, the trace program) and replayed on the
host (build/tracesim). One boot of a 16 MB machine: a short trace of the toucher (1 MB touched
every second, three times), then one of memhog paging 20 MB through it, whose every word
memhog checks: sampling clears the accessed and dirty bits, and a dirty bit cleared without
being folded into the frame would let a changed page be dropped as clean (wrong words); the
audit must find nothing either. Last, memhog -k under a trace: a 64 KB working set read between
fresh pages stays resident (the clock's second chance) while the sampler takes accessed bits.
(Taking them without refreshing the frames' times of last reference does not fail it: the set
is read so often that the clock's hand finds its bits set again; no test here catches that.)"""
import re
import subprocess

import pytest

from conftest import BUILD, PRISTINE, boot

TOUCH = "trace -e 100 -w toucher -o /t.trace toucher -m 1 -s 1 -n 3 -q"
HOG = "trace -e 100 -w memhog -o /m.trace memhog 20"
KEEP = "trace -e 100 -w keep -o /k.trace memhog -k 64 16"
LINES = [TOUCH, "vmstat -n vm.trace.records vm.trace.lost", HOG, KEEP, "audit"]


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
    assert r.cmd("audit").out == "audit: ok\n", r
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
