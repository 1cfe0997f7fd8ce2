"""Switching fs.write_policy from delay to asap or through sends what already waits to the disk
at once, as the new policy would have (fs/writeback.c, set_policy): a file written under delay must
not sit out the rest of its 30 s once the policy no longer delays.

The test counts data-block writes around the switch: after it, `vmstat -w fs.cache.scheduled 0`
waits until the cleaners are idle, so every block the switch scheduled has been written. Under
delay nothing of the file would be written for 30 s, far longer than the test takes.

Planted bug this catches (tools/fuzz/mutants.py): cache.policy-switch-keeps-waiting.
"""
import pytest

KB = 1024
BLOCKS = 64                     # a 256 KB file


@pytest.mark.parametrize("policy", ["asap", "through"])
def test_switching_away_from_delay_writes_what_waits(sh, policy):
    data = "vmstat -n fs.disk.writes.data"
    lines = ["mkdata /tmp/f %d 1" % (BLOCKS * 4 * KB), data, "sysctl fs.write_policy=" + policy,
             "vmstat -w fs.cache.scheduled 0 60", data]
    r = sh("\n".join(lines) + "\n", status=True)
    for line in lines:
        assert r.cmd(line).status == 0, (line, r.cmds)
    before, after = (int(r.printed(data, k)) for k in range(2))
    assert after - before >= BLOCKS, ("the file's blocks still wait for the delay after the switch to " + policy,
                                      before, after)
