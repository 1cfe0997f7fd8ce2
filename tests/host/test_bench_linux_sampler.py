"""The Linux guest's sampler and waiter (user/sampler.c, user/waitlines.c, built for Linux by
make linux-programs), run on the host: they are static i386 Linux programs, which an x86 Linux
host runs as they are. The sampler reads made-up /proc files here, longer than one read of
Linux's /proc gives (4 KB) where it matters, and its output is read back by the very parsing the
benchmark uses (bench_linux.sampler_output)."""
import os
import subprocess
import sys
import threading
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools", "linux"))
import bench_linux  # noqa: E402

BIN = os.path.join(ROOT, "build", "linux", "bin")


def run(name, *args, timeout=60):
    path = os.path.join(BIN, name)
    if not os.path.exists(path):
        pytest.skip("no %s: make linux-programs" % os.path.relpath(path, ROOT))
    try:
        return subprocess.run([path] + list(args), capture_output=True, text=True, timeout=timeout)
    except OSError as e:          # a host that runs no i386 programs
        pytest.skip("the host cannot run %s: %s" % (name, e))


@pytest.fixture
def proc(tmp_path):
    """Made-up meminfo (Cached after SwapCached, which must not be taken for it), vmstat padded
    past 4 KB before pswpin, diskstats with vda on its third word."""
    (tmp_path / "meminfo").write_text("MemTotal:  49172 kB\nMemFree:   34592 kB\nSwapCached:    7 kB\n"
                                      "Cached:     1900 kB\nSwapFree:  65532 kB\n")
    pad = "".join("nr_padding_%d %d\n" % (i, i) for i in range(300))
    (tmp_path / "vmstat").write_text("nr_free_pages 8000\n" + pad + "pswpin 40\npswpout 100\npgmajfault 37\n")
    (tmp_path / "diskstats").write_text("   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n"
                                        " 254       0 vda 44 3 900 12 5 0 40 1 0 20 33\n")
    assert (tmp_path / "vmstat").stat().st_size > 4096
    return tmp_path


def test_one_sample_of_named_words_of_three_files(proc):
    p = run("sampler", str(proc / "meminfo"), "Cached", "MemFree", str(proc / "vmstat"), "pswpin", "pgmajfault",
            str(proc / "diskstats"), "vda@1", "vda@5", "vda@10")
    assert p.returncode == 0, p.stderr
    names, samples = bench_linux.sampler_output(p.stdout)
    assert names == ["Cached", "MemFree", "pswpin", "pgmajfault", "vda@1", "vda@5", "vda@10"]
    assert len(samples) == 1 and samples[0][1] == {"Cached": 1900, "MemFree": 34592, "pswpin": 40,
                                                   "pgmajfault": 37, "vda@1": 44, "vda@5": 5, "vda@10": 20}
    q = run("sampler", "-q", str(proc / "meminfo"), "SwapFree")
    assert q.returncode == 0 and q.stdout.count("\n") == 1 and q.stdout.split()[1] == "65532"


def test_samples_on_a_schedule_each_read_afresh(proc):
    """Three samples 100 ms apart; the file changes under the sampler (it seeks back and reads
    again each time, the file kept open as /proc's are)."""
    box = {}

    def change():
        time.sleep(0.05)
        (proc / "meminfo").write_text("Cached: 2500 kB\n")
    t = threading.Thread(target=change)
    t.start()
    box["p"] = run("sampler", "-i", "100", "-n", "3", str(proc / "meminfo"), "Cached")
    t.join()
    names, samples = bench_linux.sampler_output(box["p"].stdout)
    assert len(samples) == 3 and samples[0][1]["Cached"] == 1900 and samples[-1][1]["Cached"] == 2500
    assert samples[0][0] < samples[1][0] < samples[2][0]


def test_a_name_not_there_or_no_source_is_an_error(proc):
    p = run("sampler", str(proc / "meminfo"), "Cache")            # a prefix of Cached is no name
    assert p.returncode == 1 and "no Cache there" in p.stderr
    assert run("sampler", "Cached").returncode == 1                # a name before any source
    assert run("sampler", str(proc / "nothing"), "Cached").returncode == 1
    assert run("sampler", "-i", "0", str(proc / "meminfo"), "Cached").returncode == 1
    # Outside our kernel kstat() fails (ENOSYS): the sampler says so rather than print zeros.
    k = run("sampler", "kstat", "fs.cache.blocks")
    assert k.returncode == 1 and "kstat" in k.stderr


def test_waitlines_counts_lines_of_a_prefix_and_waits_for_more(tmp_path):
    f = tmp_path / "toucher"
    f.write_text("touch 1 5 ms, 0 page-ins, at 10 ms\ntouch 2 0 ms, 0 page-ins, at 20 ms\n"
                 "toucher: not a round\ntouch 10 0 ms, 0 page-ins, at 30 ms\n")
    p = run("waitlines", str(f), "touch ", "3", "5")
    assert p.returncode == 0 and p.stdout == "waitlines: 3 lines\n"
    assert run("waitlines", str(f), "touch 1 ", "1", "5").stdout == "waitlines: 1 lines\n"   # not touch 10

    def append():
        time.sleep(0.5)
        with open(f, "a") as g:
            g.write("touch 11 0 ms, 0 page-ins, at 40 ms\n")
    t = threading.Thread(target=append)
    t.start()
    p = run("waitlines", str(f), "touch ", "+1", "60")      # one more than when it started
    t.join()
    assert p.returncode == 0 and p.stdout == "waitlines: 4 lines\n"
    late = run("waitlines", str(f), "touch ", "+1", "1")    # no more come: its time runs out
    assert late.returncode == 1 and "not 5" in late.stdout
    assert run("waitlines", str(tmp_path / "none"), "touch ", "1", "1").returncode == 1
