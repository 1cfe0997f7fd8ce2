"""What the guest writes is on the disk after power-off, byte for byte, and a second boot sees it."""
import subprocess
from conftest import boot, fsck


def test_file_written_in_guest_is_on_disk(disk):
    r = boot("echo persistent data > /tmp/p.txt\nmkdir /tmp/sub\ncp /tmp/p.txt /tmp/sub/q\n", disk=disk, status=True)
    assert r.rc == 0 and [c.status for c in r.cmds] == [0, 0, 0], r
    rc, out = fsck(disk)
    assert rc == 0, out
    rc, out = fsck(disk, "--cat", "/tmp/p.txt")
    assert rc == 0 and out == b"persistent data\n", out
    rc, out = fsck(disk, "--cat", "/tmp/sub/q")
    assert out == b"persistent data\n", out


def test_large_file_crosses_indirect_boundaries(disk):
    # 10 direct blocks = 40 KB; 10 + 1024 blocks = 4 MB + 40 KB: go past both.
    size = (10 + 1024) * 4096 + 3 * 4096 + 123
    r = boot("mkdata /tmp/big %d 7\ncksum /tmp/big\n" % size, disk=disk, status=True)
    assert r.rc == 0 and [c.status for c in r.cmds] == [0, 0], r
    rc, out = fsck(disk)
    assert rc == 0, out
    rc, data = fsck(disk, "--cat", "/tmp/big")
    assert len(data) == size, len(data)
    ref = subprocess.run(["cksum"], input=data, stdout=subprocess.PIPE).stdout.split()
    assert r.printed("cksum /tmp/big") == "%s %s /tmp/big\n" % (ref[0].decode(), ref[1].decode()), r


def test_second_boot_reads_what_first_wrote(disk):
    r1 = boot("echo first boot > /keep\nmkdir /kdir\necho deep > /kdir/x\n", disk=disk, status=True)
    assert r1.rc == 0 and [c.status for c in r1.cmds] == [0, 0, 0], r1
    r2 = boot("cat /keep\ncat /kdir/x\nrm /keep\n", disk=disk, status=True)
    assert r2.rc == 0 and [c.status for c in r2.cmds] == [0, 0, 0], r2
    assert r2.printed("cat /keep") == "first boot\n" and r2.printed("cat /kdir/x") == "deep\n", r2
    rc, out = fsck(disk, "--ls", "/")
    assert b"keep" not in out.replace(b"kdir", b""), out
    rc, out = fsck(disk)
    assert rc == 0, out
