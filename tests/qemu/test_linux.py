"""The Linux guest of make bench-linux (tools/linux/): Debian's kernel and busybox, fetched into
build/linux on first use (skipped only when the Debian archive cannot be reached), booted in
the same QEMU through tools/runqemu.py on a disk of ext2 and swap, running our own sort built
for Linux (user/lib/linux/). sort makes runs and merges them on the ext2 disk; the test reads
back both files over the console and checks the output's order against the input and its
checksum against the host's cksum of the same bytes; and that the guest booted as the
benchmark needs it: swap on, /proc/meminfo after boot, the script's status as runqemu's."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, _new_log

sys.path.insert(0, str(ROOT / "tools" / "linux"))
import fetch_linux, linuxboot, linuxdisk  # noqa: E402


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    try:
        linuxboot.ready(quiet=True)
    except fetch_linux.FetchError as e:
        if "cannot fetch" in str(e):
            pytest.skip("the Debian archive cannot be reached: %s" % e)
        raise
    img = str(tmp_path_factory.mktemp("linux") / "disk.img")
    linuxdisk.build(img, fs_mb=32, swap_mb=16)
    return img


def block(out, name, nxt):
    """The text between the marks '@NAME' and '@NXT' the script printed (a file's last line
    may have no newline, so the next mark may follow it on its line)."""
    start = out.index("@%s\n" % name) + len(name) + 2
    return out[start:out.index("@%s\n" % nxt, start)]


def test_linux_runs_our_sort_on_its_ext2_disk(guest, tmp_path):
    script = ("mklines /tmp/in 48K 5\nsort -v -m 8 -o /tmp/out /tmp/in\necho \"@status $?\"\n"
              "cat /proc/swaps\necho @in\ncat /tmp/in\necho @out\ncat /tmp/out\necho @cksum\ncksum /tmp/out\necho @end\n")
    rc, out = linuxboot.run(script, guest, 64, log=str(_new_log()), timeout=300)
    assert rc == 0, out[-2000:]
    info = linuxboot.boot_meminfo(out)
    assert info and 0 < info["MemAvailable"] < info["MemTotal"] <= 64 * 1024
    assert "/dev/vda2" in out and "partition" in out.split("@in")[0]
    assert "@status 0\n" in out
    v = [l for l in out.splitlines() if l.startswith("sort: ") and "merge passes" in l]
    assert v and int(v[0].split()[3]) > 8, v            # more runs than one merge takes: a pass
    lines_in = block(out, "in", "out").encode().splitlines(keepends=True)
    lines_out = block(out, "out", "cksum").encode().splitlines(keepends=True)
    assert len(lines_in) > 1000
    assert lines_out == sorted(l if l.endswith(b"\n") else l + b"\n" for l in lines_in)
    (tmp_path / "out").write_bytes(b"".join(lines_out))
    host = subprocess.run(["cksum", str(tmp_path / "out")], capture_output=True, text=True).stdout.split()[:2]
    assert block(out, "cksum", "end").split()[:2] == host


def test_commands_on_the_kernels_command_line_and_a_failure_reported(guest):
    """cmd="..." on the kernel's command line is run instead of a script; its failing status
    powers the guest off reporting a failure (runqemu's exit 1)."""
    rc, out = linuxboot.run("echo from-the-script\n", guest, 64, log=str(_new_log()), timeout=300,
                            append='cmd="echo from-the-command-line; cksum /usr/bin/sort; exit 3"')
    assert "from-the-command-line\n" in out and "from-the-script" not in out
    assert "/usr/bin/sort\n" in out
    assert "linux-init: the commands ended with status 3" in out
    assert rc == 1


def test_the_benchmarks_short_preset_writes_its_rows_and_nothing_tracked(guest, tmp_path):
    """make bench-linux's short preset, into a folder of its own, in both setups: sort alone and
    beside the toucher, rows in ifs.csv's columns, the figure drawn, and the tracked tree left
    alone; the protected setup's settings in force in its runs and not in the default's, the
    toucher in its cgroup; memfit's figure of the machine; the disk's requests by class."""
    import csv
    before = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    env = dict(os.environ, BENCH_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "bench_linux.py"), "--preset", "short",
                        "--setup", "both"], capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "bench-linux: [4/4] protected, S=1 run 1: sort" in p.stdout
    rows = list(csv.DictReader(open(tmp_path / "linux-ifs.csv")))
    assert [(r["setup"], r["kind"], r["interval_s"]) for r in rows] == [
        ("default", "standalone", ""), ("protected", "standalone", ""), ("default", "ifs", "1"), ("protected", "ifs", "1")]
    mem = list(csv.DictReader(open(tmp_path / "linux-mem.csv")))[0]
    assert 0 < int(mem["linux_memfit_kb"]) < int(mem["linux_available_kb"]) < 64 * 1024, mem
    for r in rows:
        assert r["memfit_kb"] == mem["linux_memfit_kb"]
        # The requests by class while sort ran: it reads its 256 KB input (and more).
        assert int(r["read_requests"]) > 0 and int(r["read_kb"]) >= 256 and r["flush_requests"].isdigit()
        want = ("swappiness=0 dirty_background_bytes=%d dirty_bytes=%d root=rw,noatime" % (
            int(mem["linux_memfit_kb"]) * 1024 // 10, int(mem["linux_memfit_kb"]) * 1024 // 5)
            if r["setup"] == "protected" else "swappiness=60 dirty_background_bytes=0 dirty_bytes=0 root=rw,relatime")
        if r["kind"] == "ifs":
            want += " toucher_cgroup=/toucher memory.low=%d" % ((1024 + 512) * 1024) if r["setup"] == "protected" \
                else ""
        assert r["settings"] == want, r
    rows = [r for r in rows if r["setup"] == "default"]
    for r in rows:
        assert int(r["sort_ms"]) > 0 and r["policy"] == "linux" and r["mem_mb"] == "64"
        assert int(r["available_after_boot_kb"]) > 0 and r["kernel"].endswith("-686")
    assert int(rows[1]["rounds"]) >= 1 and rows[1]["toucher_kb"] == "1024"
    # What decides how Linux's figures read: its tick, command line and multi-gen LRU state.
    for r in rows:
        assert int(r["hz"]) in (100, 250, 300, 1000) and "console=ttyS0" in r["cmdline"] and r["lru_gen"]
    # The compiled sampler's rows: the cache's size each second of each run (the series' times
    # are from sort's start). Sort alone at full speed ends within the sampler's first second;
    # beside the toucher the run waits for a round and S + 2 s, sampled before and after sort.
    series = list(csv.DictReader(open(tmp_path / "linux-ifs-series.csv")))
    t = {i: [float(r["t_s"]) for r in series if r["interval_s"] == i and r["what"] == "cache_kb"] for i in ("", "1")}
    assert len(t[""]) >= 1 and len(t["1"]) >= 3 and min(t["1"]) < 0 < max(t["1"]), t
    log = open(tmp_path / "linux-logs" / "short-s1-run1.log", encoding="utf-8", errors="replace").read()
    assert "@sampler Cached MemFree SwapFree pswpin pswpout pgmajfault\n" in log and "sample()" not in log
    # The CPU time read is the sampler's own (the background job is the program, not a shell
    # running it as a child, whose times would not count it until it was reaped).
    assert re.search(r"^@cpu \d+ \(sampler\) ", log, re.M) and rows[1]["sampler_cpu_ms"].isdigit()
    assert (tmp_path / "linux-ifs-short.png").stat().st_size > 10000
    after = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    assert after == before


def test_a_script_on_the_disk_named_on_the_command_line(tmp_path):
    linuxboot.ready(quiet=True)
    mine = tmp_path / "run-me.sh"
    mine.write_text("echo the script on the disk ran\nwc /sbin/init2\n")
    img = str(tmp_path / "disk.img")
    linuxdisk.build(img, fs_mb=16, swap_mb=8, files=[str(mine)])
    rc, out = linuxboot.run(None, img, 64, log=str(_new_log()), timeout=300, append="script=/run-me.sh")
    assert rc == 0, out[-2000:]
    assert "the script on the disk ran\n" in out and "/sbin/init2\n" in out


def test_the_ecd_benchmarks_short_preset_reads_the_phases_and_linuxs_traffic(guest, tmp_path):
    """make bench-linux-ecd's short preset (phase at 5 %, one loop, full speed), into a folder of
    its own: the four phases ran under Linux and the row has their times, the file traffic of
    /proc/vmstat (the inputs were synced before the boot, so they come from the disk), the
    negotiation's columns empty, and the tracked tree left alone."""
    import csv
    before = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    env = dict(os.environ, BENCH_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "bench_linux_ecd.py"), "--preset", "short"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "bench-linux-ecd: [1/1] Sprite's 10 MB (Linux 64 MB) run 1: " in p.stdout
    rows = list(csv.DictReader(open(tmp_path / "linux-ecd.csv")))
    assert len(rows) == 1
    r = rows[0]
    assert (r["cache"], r["mem_paper_mb"], r["mem_mb"], r["scale"], r["loops"]) == ("linux", "10", "64", "5", "1")
    assert all(r["ms_" + ph] != "" for ph in ("edit", "compile", "link", "debug"))
    assert int(r["elapsed_ms"]) >= sum(int(r["ms_" + ph]) for ph in ("edit", "compile", "link", "debug"))
    # phase at 5 % reads the 240 KB library, its object and its kernel: some of it from the disk.
    assert int(r["fs_read_kb"]) > 100 and int(r["disk_read_kb"]) >= int(r["fs_read_kb"])
    assert int(r["faults"]) > 0 and int(r["cache_max_kb"]) >= int(r["cache_min_kb"]) > 0
    assert int(r["env_kb"]) > 5120 * 5 // 100
    assert r["fs_asks_vm"] == r["vm_asks_fs"] == "" and r["kernel"].endswith("-686")
    assert int(r["hz"]) > 0 and "console=ttyS0" in r["cmdline"] and r["lru_gen"]
    after = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    assert after == before


def test_the_sampler_cost_is_measured_on_both_kernels(guest, tmp_path):
    """bench_linux.py --sampler-cost on the short preset, one run of each: sort alone on each
    kernel with no sampler, the compiled one (user/sampler.c: kstat() on ours, /proc on Linux)
    and each kernel's other; its table has a line of each and its CSV a row of each."""
    import csv
    env = dict(os.environ, BENCH_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "bench_linux.py"), "--preset", "short",
                        "--sampler-cost", "--runs", "1", "--no-figures"], capture_output=True, text=True, env=env,
                       timeout=900)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    rows = list(csv.DictReader(open(tmp_path / "sampler-cost.csv")))
    assert sorted((r["kernel"], r["sampler"]) for r in rows) == sorted(bench_cost_configs())
    assert all(int(r["sort_ms"]) > 0 for r in rows)
    assert "What sampling costs sort alone" in p.stdout and "sampler (kstat, 1 s)" in p.stdout
    # The samplers ran: ours printed its lines on the console, Linux's into its tmpfs.
    logs = tmp_path / "linux-logs"
    assert "@sampler fs.cache.blocks" in (logs / "cost-short-ours-sampler-run1.log").read_text(errors="replace")
    assert "@sampler Cached" in (logs / "cost-short-linux-sampler-run1.log").read_text(errors="replace")
    assert "@sampler" not in (logs / "cost-short-linux-none-run1.log").read_text(errors="replace").split(
        "@samples")[-1].split("@toucher")[0]


def bench_cost_configs():
    sys.path.insert(0, str(ROOT / "tools" / "bench"))
    import bench_linux
    return bench_linux.COST_CONFIGS
