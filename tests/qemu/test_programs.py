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
    r = boot("cksum /data.bin\ncksum /empty\n", disk=d, status=True)
    assert r.rc == 0, r
    for f in (data, empty):
        ref = subprocess.run(["cksum", str(f)], stdout=subprocess.PIPE, text=True).stdout.split()
        c = r.cmd("cksum /" + f.name)
        assert c.status == 0 and c.out == "%s %s /%s\n" % (ref[0], ref[1], f.name), (ref, c, r)


def test_wc_matches_coreutils(make_disk, tmp_path):
    t = tmp_path / "text.txt"
    # Control bytes neither start a word nor end one, as coreutils counts in the C locale.
    t.write_text("one two three\nfour  five\n\nsix\na\x01b \x02\x03 c\n\x07\n")
    d = make_disk(files=[t])
    r = boot("wc /text.txt\nwc -l /text.txt\n", disk=d, status=True)
    assert r.rc == 0, r
    counts = subprocess.run(["wc", str(t)], stdout=subprocess.PIPE, text=True).stdout.split()[:3]
    assert r.printed("wc /text.txt").split() == counts + ["/text.txt"], (counts, r)
    assert r.printed("wc -l /text.txt").split() == [counts[0], "/text.txt"], (counts, r)
    assert [c.status for c in r.cmds] == [0, 0], r.cmds


def test_cp_mv_rm_mkdir_rmdir(sh):
    r = sh("echo data > /tmp/a\ncp /tmp/a /tmp/b\nmkdir /tmp/dir\nmv /tmp/b /tmp/dir\n"
           "cat /tmp/dir/b\nrm /tmp/a\nls /tmp\nrmdir /tmp/dir\nrm /tmp/dir/b\nrmdir /tmp/dir\nls /tmp\n",
           status=True)
    assert r.printed("cat /tmp/dir/b") == "data\n", r
    rmdir = r.cmd("rmdir /tmp/dir")                    # the first, while b is in it
    assert rmdir.status != 0 and "Directory not empty" in rmdir.out, r.cmds
    assert r.printed("ls /tmp") == "dir\n" and r.printed("ls /tmp", 1) == "", r
    assert [c.status for c in r.cmds if c.line != "rmdir /tmp/dir"] == [0] * 9, r.cmds
    assert r.cmd("rmdir /tmp/dir", 1).status == 0, r.cmds


def test_ls_long(sh):
    r = sh("ls -l /bin\n", status=True)
    ls = lines(r.printed("ls -l /bin"))
    assert r.cmd("ls -l /bin").status == 0, r.cmds
    assert any(l.split()[-1:] == ["sh"] for l in ls) and any(l.split()[-1:] == ["cksum"] for l in ls), r
    # long: a total line, then type, links, size, time, name
    assert ls[0].startswith("total ") and all(len(l.split()) == 5 for l in ls[1:]), r


def test_ps_lists_a_background_sleeper_and_kill_rejects_bad_pids(sh):
    # The sleep 1 lets the background child exec first: forked, it is still named sh.
    r = sh("sleep 30 &\nsleep 1\nps\nkill 9999\n", status=True)
    ps = [l.split() for l in lines(r.printed("ps"))]
    assert r.cmd("ps").status == 0 and ps[0][0] == "PID", r
    # The NAME column: "sleep" is also the STATE of every waiting process.
    assert [row[-1] for row in ps[1:]].count("sleep") == 1, r
    kill = r.cmd("kill 9999")
    assert kill.status != 0 and kill.out.startswith("kill: 9999:"), r.cmds


def test_vmstat_prints_counters(sh):
    r = sh("vmstat\n", status=True)
    assert r.cmd("vmstat").status == 0, r.cmds
    names = {l.split()[0] for l in lines(r.printed("vmstat")) if len(l.split()) == 2}
    for n in ("mem.frames.total", "mem.frames.free", "mem.frames.kernel", "mem.frames.cache",
              "mem.frames.vm", "fs.disk.blocks.free", "fs.cache.blocks"):
        assert n in names, (n, r)


def test_forkbench_reports_each_size(sh):
    r = sh("forkbench -n 3 0 64\nforkbench\n", status=True)
    assert r.cmd("forkbench -n 3 0 64").status == 0, r.cmds
    rows = [l.split() for l in lines(r.printed("forkbench -n 3 0 64")) if l.startswith("fork ")]
    assert [row[1] for row in rows] == ["0", "64"], r
    assert all(int(row[3]) > 0 for row in rows), r
    usage = r.cmd("forkbench")
    assert usage.status != 0 and usage.out.startswith("usage: forkbench"), r.cmds


def test_vmstat_samples_counters_over_time(sh):
    # vmstat -i MS COUNT NAME...: a header, then COUNT time-stamped lines on a schedule of
    # MS ms from the first (never early, never bunched by a late one); bad use is one line.
    line = "vmstat -i 200 5 fs.cache.blocks mem.frames.free"
    r = sh(line + "\nvmstat -i 0 1 fs.cache.blocks\nvmstat -i 100 1 nosuch\n", status=True)
    out = lines(r.printed(line))
    assert r.cmd(line).status == 0 and out[0] == "@ms fs.cache.blocks mem.frames.free", r
    rows = [l.split() for l in out[1:]]
    assert len(rows) == 5 and all(len(x) == 3 and x[0].startswith("@") for x in rows), r
    t = [int(x[0][1:]) for x in rows]
    assert all(t[k] - t[0] >= 200 * k - 10 for k in range(5)) and t[-1] - t[0] < 4000, t
    assert all(int(x[1]) > 0 and int(x[2]) > 0 for x in rows), r
    assert r.printed("vmstat -i 0 1 fs.cache.blocks").startswith("usage: vmstat -i MS COUNT NAME"), r
    assert r.printed("vmstat -i 100 1 nosuch") == "vmstat: nosuch: no such counter\n", r
    assert r.cmd("vmstat -i 0 1 fs.cache.blocks").status == 1 and r.cmd("vmstat -i 100 1 nosuch").status == 1, r
