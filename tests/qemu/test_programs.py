"""The utilities, checked against the host where there is a reference (cksum, wc)."""
import subprocess
from conftest import boot, fsck


def lines(out):
    return [l.rstrip("\r") for l in out.splitlines()]


def test_cksum_matches_coreutils(make_disk, tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(bytes((i * 7 + i // 300) & 0xFF for i in range(70000)))
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    d = make_disk(files=[data, empty])
    r = boot("cksum /data.bin\ncksum /empty\n", disk=d)
    assert r.rc == 0, r
    for f in (data, empty):
        ref = subprocess.run(["cksum", str(f)], stdout=subprocess.PIPE, text=True).stdout.split()
        assert "%s %s /%s" % (ref[0], ref[1], f.name) in r.out, (ref, r)


def test_wc_matches_coreutils(make_disk, tmp_path):
    t = tmp_path / "text.txt"
    t.write_text("one two three\nfour  five\n\nsix\n")
    d = make_disk(files=[t])
    r = boot("wc /text.txt\nwc -l /text.txt\n", disk=d)
    assert r.rc == 0, r
    counts = subprocess.run(["wc", str(t)], stdout=subprocess.PIPE, text=True).stdout.split()[:3]
    assert any(l.split()[:3] == counts for l in lines(r.out)), (counts, r)


def test_cp_mv_rm_mkdir_rmdir(sh):
    r = sh("echo data > /tmp/a\ncp /tmp/a /tmp/b\nmkdir /tmp/dir\nmv /tmp/b /tmp/dir\n"
           "cat /tmp/dir/b\nrm /tmp/a\nls /tmp\nrmdir /tmp/dir\nrm /tmp/dir/b\nrmdir /tmp/dir\nls /tmp\n")
    assert "data" in lines(r.out), r
    assert "Directory not empty" in r.out, r


def test_ls_long(sh):
    r = sh("ls -l /bin\n")
    assert any("sh" in l.split() for l in lines(r.out)), r
    assert any("cksum" in l for l in lines(r.out)), r


def test_ps_lists_a_background_sleeper_and_kill_rejects_bad_pids(sh):
    r = sh("sleep 30 &\nps\nkill 9999\n")
    assert "PID" in r.out, r
    assert any("sleep" in l.split() for l in lines(r.out)), r
    assert "kill: 9999:" in r.out, r


def test_vmstat_prints_counters(sh):
    r = sh("vmstat\n")
    names = {l.split()[0] for l in lines(r.out) if len(l.split()) == 2}
    for n in ("mem.frames.total", "mem.frames.free", "mem.frames.kernel", "mem.frames.cache",
              "mem.frames.vm", "fs.disk.blocks.free", "fs.cache.blocks"):
        assert n in names, (n, r)


def test_forkbench_reports_each_size(sh):
    r = sh("forkbench -n 3 0 64\nforkbench\n")
    rows = [l.split() for l in lines(r.out) if l.startswith("fork ")]
    assert [row[1] for row in rows] == ["0", "64"], r
    assert all(int(row[3]) > 0 for row in rows), r
    assert "usage: forkbench" in r.out, r
