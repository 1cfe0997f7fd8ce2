"""The virtio-blk driver's own self-test: many asynchronous requests in flight, completion by
interrupt both before the scheduler runs (halting) and in the first process (sleeping), a
write, flush and read-back that restores what was there, and errors past the end of the disk."""
import re
from conftest import boot


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
