"""Pending frees (fs/alloc.c; rule 2 of fs/ordering.c) seen from the counters: a removed file's
blocks and descriptor are not reusable until the removal is on stable storage. Until then they
count in fs.disk.blocks.pending and fs.disk.descriptors.pending, not in
fs.disk.blocks.reusable; the write-back daemon's scans then release them, with no sync.

The crash tests (test_crash.py) show what goes wrong when a block is reused too early, but only
when a recorded workload happens to reuse one before a power cut; these counters show the rule
itself on every run. Planted bugs this catches (tools/fuzz/mutants.py): pending.file-blocks-freed-at-once,
pending.descriptor-freed-at-once, pending.ialloc-takes-pending, cleaner.no-pending-cut,
cleaner.no-pending-release.
"""
import re

MB = 1024 * 1024
BLOCKS = 1 * MB // 4096 + 1         # mkdata's 1 MB file: its data blocks and one indirect block
COUNTS = "vmstat -n fs.disk.blocks.pending fs.disk.descriptors.pending fs.disk.blocks.reusable"


def counts(text):
    """The three values COUNTS printed."""
    vals = text.split()
    assert len(vals) == 3 and all(v.isdigit() for v in vals), text
    return dict(zip(("blocks", "descs", "reusable"), map(int, vals)))


def test_removed_files_space_waits_until_the_removal_is_durable_then_comes_back_without_sync(sh):
    # Default delays (data 30 s) at first: the directory block that loses the name stays dirty,
    # so nothing can be released while the counters are read. Then short delays: the daemon's
    # own scans must write the removal, flush it and release the space.
    lines = ["echo old > /tmp/d", "mkdata /tmp/f %d 1" % MB, "sync", "ls -li /tmp/d", COUNTS, "rm /tmp/f /tmp/d",
             COUNTS, "echo new > /tmp/e", "ls -li /tmp/e",
             "sysctl fs.writeback_delay=1", "sysctl fs.desc_delay=1", "sysctl fs.scan_interval=1",
             "vmstat -w fs.disk.blocks.pending 0 60", "vmstat -w fs.disk.descriptors.pending 0 60", COUNTS]
    r = sh("\n".join(lines) + "\n", status=True)
    for line in lines:
        assert r.cmd(line).status == 0, (line, r.cmds)
    before, after_rm, released = (counts(r.printed(COUNTS, k)) for k in range(3))

    assert after_rm["blocks"] - before["blocks"] >= BLOCKS, ("the removed file's blocks are not pending", before, after_rm)
    assert after_rm["descs"] - before["descs"] >= 1, ("the removed file's descriptor is not pending", before, after_rm)
    # Processes' backing files come and go beside (they are freed at once): a little slack.
    assert after_rm["reusable"] - before["reusable"] < BLOCKS // 4, \
        ("the removed file's blocks were reusable before the removal was durable", before, after_rm)

    # A file made meanwhile does not get a removed one's descriptor (its old name may still be
    # on disk, naming the new file after a power cut). /tmp/d was made by the shell, before any
    # program of this run had a backing file: its descriptor is the lowest free one again once
    # removed, and the first a new file would get were it not pending.
    old_ino, new_ino = (int(r.printed("ls -li /tmp/%s" % n).split()[0]) for n in "de")
    assert new_ino != old_ino, ("the pending descriptor was handed out again", r.printed("ls -li /tmp/e"))

    assert re.fullmatch(r"fs\.disk\.blocks\.pending 0\n", r.printed("vmstat -w fs.disk.blocks.pending 0 60"))
    assert released["blocks"] == 0 and released["descs"] == 0, released
    assert released["reusable"] - after_rm["reusable"] >= BLOCKS - BLOCKS // 4, \
        ("the released blocks did not become reusable", after_rm, released)
