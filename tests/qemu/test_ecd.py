"""The ECD benchmark in the guest (user/phase.c, tools/bench/bench_ecd.py): a tiny run (phase -x 5:
5 % of every size and count) of the two loops with the environment in the background and the
least cache (64 KB, so what the phases ask for reaches the disk), checked by what each phase
printed against its plan, by the kernel's counters, and by the files it left on disk, byte for
byte; phase's bad input; and disk.busy_ms, the disk's busy time, which grows with disk work
and not while the disk is idle."""
import re, subprocess
from conftest import boot

X = 5                       # percent
PHASES = ["edit", "compile", "link", "debug"]
COUNTERS = "fs.disk.reads fs.disk.writes fs.disk.writes.data disk.busy_ms vm.faults vm.pageins vm.pageouts disk.reads disk.writes disk.read_kb disk.write_kb"
# What each file holds at the end (user/phase.c's table, KB at -x 100): the inputs init makes
# and no phase writes, and each phase's output, written whole by its last writer.
FILES = {"src": 52, "hdr": 564, "lib": 4800, "obj": 304, "kern": 4548}


def scaled_kb(kb):
    """phase's scaled_kb: X % of kb, in whole 4 KB blocks, one at least."""
    v = max(1, kb * X // 100)
    return 4 if v < 4 else v // 4 * 4


def content(name, kb):
    """The bytes phase writes: block b is the letter 'a' + b % 26, after "NAME b\\n" and its NUL."""
    out = bytearray()
    for b in range(kb // 4):
        blk = bytearray([ord("a") + b % 26]) * 4096
        head = ("%s %d\n" % (name, b)).encode() + b"\0"
        blk[:len(head)] = head
        out += blk
    return bytes(out)


def cksum(data):
    """(CRC, size) as POSIX cksum, the host's, which the guest's cksum matches."""
    crc, size = subprocess.run(["cksum"], input=data, stdout=subprocess.PIPE, check=True).stdout.split()[:2]
    return int(crc), int(size)


def counters(text):
    vals = [int(x) for x in re.findall(r"^(\d+)$", text, re.M)]
    names = COUNTERS.split()
    assert len(vals) == len(names), text
    return dict(zip(names, vals))


def test_a_tiny_run_prints_its_plan_moves_its_bytes_and_leaves_its_files(disk):
    work = "".join("phase -x %d -d /ecd %s\n" % (X, p) for p in PHASES * 2)
    first = ("mkdir /ecd\nphase -x %d -d /ecd init\nphase -x %d plan\nphase plan\nsysctl fs.cache_fixed_kb=64\n"
             "phase -x %d -k 1024 -s 1 env &\n" % (X, X, X))
    rest = ("sync\nvmstat -n %s\n%ssync\nvmstat -n %s\nls -l /ecd\ncksum %s\nps\n"
            % (COUNTERS, work, COUNTERS, " ".join("/ecd/" + f for f in FILES)))
    # The environment says it is ready in the background, even inside the echo of a typed line.
    r = boot(first, disk=disk, mem=16, status=True, wait_for=[(r"phase env: \d+ KB ready", rest)],
             background=r"phase env: \d+ KB ready\n")
    assert r.rc == 0, r
    for c in r.cmds:
        assert c.status == 0, (c, r)

    # The plan: a row a phase (image, touches, read, write KB), and the totals of two loops.
    plan = {}
    for line in r.printed("phase -x %d plan" % X).splitlines():
        f = line.split()
        if len(f) == 5 and f[0] in PHASES:
            plan[f[0]] = tuple(int(x) for x in f[1:])
    assert sorted(plan) == sorted(PHASES), r
    # At full size two loops move Appendix C's no-cache traffic (33,948 KB read, 9,810 KB written).
    m = re.search(r"two loops (\d+) and (\d+) KB", r.printed("phase plan"))
    assert m and abs(int(m.group(1)) - 33948) < 34 and abs(int(m.group(2)) - 9810) < 10, r

    # Each phase did what its plan says, both times.
    read = written = 0
    for i, p in enumerate(PHASES * 2):
        out = r.printed("phase -x %d -d /ecd %s" % (X, p), i // 4)
        m = re.search(r"^phase (\w+): (\d+) ms, read (\d+) KB, wrote (\d+) KB, image (\d+) KB, (\d+) touches$",
                      out, re.M)
        assert m and m.group(1) == p, (p, out, r)
        image, touches, rkb, wkb = plan[p]
        assert (int(m.group(5)), int(m.group(6)), int(m.group(3)), int(m.group(4))) == (image, touches, rkb, wkb), (
            p, out)
        read, written = read + rkb, written + wkb

    # The kernel moved it: with a 64 KB cache nearly every read reaches the disk (a re-read of a
    # file smaller than the cache may hit; descriptors and indirect blocks come on top), and
    # after sync every data block written is on disk at least once (more when a block went to
    # disk and was written again before the file's end); each disk request is the file system's
    # or the VM's; the disk was busy.
    c0, c1 = counters(r.printed("vmstat -n " + COUNTERS)), counters(r.printed("vmstat -n " + COUNTERS, 1))
    d = {k: c1[k] - c0[k] for k in c0}
    assert 0.8 * read <= 4 * d["fs.disk.reads"] <= 1.3 * read + 64, (d, read)
    assert written <= 4 * d["fs.disk.writes.data"] <= 2 * written, (d, written)
    assert d["fs.disk.writes"] >= d["fs.disk.writes.data"], d
    # The disk's bytes are the cache's blocks and the VM's pages (a request may carry several:
    # fs/cluster.c; a page-in finds its code block in the cache when the read-ahead of exec's
    # header read brought it in), and the superblock, which sync writes past the cache: once
    # or twice a sync.
    assert 4 * d["fs.disk.reads"] <= d["disk.read_kb"] <= 4 * (d["fs.disk.reads"] + d["vm.pageins"]), d
    assert d["disk.reads"] <= d["fs.disk.reads"] + d["vm.pageins"], d
    assert 0 <= d["disk.write_kb"] - 4 * (d["fs.disk.writes"] + d["vm.pageouts"]) <= 16, d
    assert d["disk.writes"] <= d["fs.disk.writes"] + d["vm.pageouts"] + 4, d
    assert d["disk.busy_ms"] > 0 and d["vm.faults"] > sum(plan[p][0] for p in PHASES) // 4 // 2, d

    # The files on disk: their sizes, and their bytes by checksum against the host's.
    ls = {f[-1]: int(f[2]) for f in (l.split() for l in r.printed("ls -l /ecd").splitlines())
          if len(f) == 5 and f[2].isdigit()}                 # type, links, size, time, name
    assert ls == {f: 1024 * scaled_kb(kb) for f, kb in FILES.items()}, r
    sums = {f[2].rsplit("/", 1)[1]: (int(f[0]), int(f[1])) for f in
            (l.split() for l in r.printed("cksum " + " ".join("/ecd/" + f for f in FILES)).splitlines())
            if len(f) == 3}
    assert sums == {f: cksum(content(f, scaled_kb(kb))) for f, kb in FILES.items()}, r
    # The environment lived through it all.
    assert re.search(r" phase$", r.printed("ps"), re.M), r


def test_bad_input_is_one_clear_line_and_status_1(disk):
    cases = {"phase": "usage: phase", "phase bogus": "no phase 'bogus'", "phase -x 0 plan": "-x takes a whole number",
             "phase -x 5 -d /nowhere link": "cannot open /nowhere/obj", "phase -m 99999 env": "-m takes",
             "phase plan extra": "usage: phase"}
    r = boot("".join(c + "\n" for c in cases) + "phase -h\n", disk=disk, status=True)
    assert r.rc == 0, r
    for line, said in cases.items():
        c = r.cmd(line)
        assert c.status == 1 and said in c.out, (c, r)
    assert r.cmd("phase -h").status == 0 and \
        "edit|compile|link|debug" in r.printed("phase -h"), r


def test_disk_busy_time_grows_with_disk_work_and_not_while_idle(disk):
    """disk.busy_ms counts milliseconds with a request in flight: nothing while nothing is asked
    of the disk (two samples 3 s apart by one vmstat: starting a program reads its code), and
    during a sync of 2 MB most of the sync's time (it only waits for the disk), never more than
    the time that passed. The disk is held to 4 MB/s: half a second of writing, against the few
    milliseconds of CPU the shell and vmstat take between the stamps, which a loaded host
    stretches (unthrottled, the sync's 7 ms once sat in 15 ms of stamps beside a busy host)."""
    idle = "vmstat -i 3000 2 disk.busy_ms disk.requests"
    stamp = "vmstat -i 1 1 disk.busy_ms disk.write_kb"
    r = boot("%s\nmkdata /f 2M\n%s\nsync\n%s\n" % (idle, stamp, stamp), disk=disk, throttle_bps=4 << 20)
    assert r.rc == 0, r
    s = [tuple(int(x) for x in m.groups()) for m in re.finditer(r"^@(\d+) (\d+) (\d+)$", r.printed(idle), re.M)]
    assert len(s) == 2 and s[1][0] - s[0][0] >= 2900, r
    for i in range(2):
        m = re.search(r"^@(\d+) (\d+) (\d+)$", r.printed(stamp, i), re.M)
        assert m, r
        s.append(tuple(int(x) for x in m.groups()))
    (t0, b0, q0), (t1, b1, q1), (t2, b2, q2), (t3, b3, q3) = s
    assert q1 == q0 and b1 == b0, ("idle, yet busy", s)
    assert q3 - q2 >= 2048, s                       # 2 MB written, at least (in KB)
    assert 0.5 * (t3 - t2) <= b3 - b2 <= t3 - t2 + 1, s


def test_every_page_of_an_image_is_written_so_none_is_free_to_evict(disk):
    """user/phase.c writes every page of an image when the working set first reaches it, and
    every page of the environment's (its essay, 1): a page never written is evicted without I/O
    here and is Linux's shared zero page there, so an image half unwritten presses the VM half
    as much as Sprite's programs did. Two ways to see it. A phase (compile at full size: a 1 MB
    image) in an 8 MB machine whose fixed 4.5 MB cache leaves the VM less than the image: its
    pages go out and come back, and none comes back a zero fill (vm.faults.zero counts the
    image's pages once, and the few of the program's own data and stack; a page never written
    would be dropped at eviction and zero-filled again at the next touch). The environment
    (1 MB), once ready, pushed whole to its backing store (sysctl vm.pageout=0): ps counts a
    page-out for every page of its heap."""
    counters = "vmstat -n vm.faults.zero vm.pageouts vm.pageins"
    lines = ["mkdir /ecd", "sysctl fs.cache_fixed_kb=4608", "phase -d /ecd init", counters, "phase -d /ecd compile",
             counters, "sysctl fs.cache_fixed_kb=64", "phase -k 1024 -s 3600 env &"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=8, wait_for=[(r"phase env: \d+ KB ready", "sysctl vm.pageout=0\nps\n")],
             background=r"phase env: \d+ KB ready\n")
    assert r.rc == 0, r
    image = 1024 // 4
    assert re.search(r"^phase compile: \d+ ms, read \d+ KB, wrote \d+ KB, image %d KB, " % (4 * image),
                     r.printed("phase -d /ecd compile"), re.M), r
    (z0, o0, i0), (z1, o1, i1) = ([int(x) for x in r.printed(counters, n).split()] for n in range(2))
    # The machine pressed the phase: its pages went out, and came back from the backing store.
    assert o1 - o0 >= image // 2 and i1 - i0 >= image // 4, (o1 - o0, i1 - i0, r)
    # Each page of the image a zero fill once (a few more: the program's data, stack and break).
    assert image <= z1 - z0 <= image + 16, ("pages zero-filled again after eviction", z1 - z0, image)
    # The environment: every page of its 1 MB heap written, so every one pushed out.
    env = [l.split() for l in r.printed("ps").splitlines() if l.endswith(" phase")]
    assert len(env) == 1 and int(env[0][6]) >= image, (env, r)
