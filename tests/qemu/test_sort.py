"""sort, the IFS benchmark's external merge sort: its output is byte for byte the host's
`LC_ALL=C sort` with the same options, on an input several times larger than the guest's
memory (and hundreds of times its budget), and its errors are one clear line, status 2 and no
temporary file left behind.

The input is made on the host (generate below): fields of words and numbers (signs, leading
zeros, fractions, things that are not numbers) separated by runs of blanks and tabs, blanks
in front, empty lines, lines of up to 4096 bytes (sort's MAXLINE), bytes above 127, one line
in ten a copy of a recent one, and a last line without newline."""
import os, random, re, subprocess
from conftest import boot, fsck

MEM = 5                 # MB, the least the kernel boots in: 2.7 MB of frames once it is in
SIZE = 8 << 20          # the input: 1.6 times the guest's memory, 3 times its frames, 32 times
BUDGET = 256            # sort's budget (KB): about 60 runs, a merge pass and the last merge
OPTIONS = [[], ["-n"], ["-r"], ["-k", "2"], ["-n", "-r", "-k", "3"]]
C = dict(os.environ, LC_ALL="C")


def generate(size, seed):
    """About size bytes of lines, the same for the same seed; quick enough for tens of MB."""
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "Echo", "zulu", "x", "", "b\xe9ta", "a-b", "0abc", "~"]

    def number():
        r = rng.random()
        if r < 0.5:
            return str(rng.randrange(-100000, 100000))
        if r < 0.7:
            return "%s%0*d" % (rng.choice(["", "-"]), rng.randrange(1, 8), rng.randrange(1000))
        if r < 0.9:
            return "%d.%d" % (rng.randrange(-50, 50), rng.randrange(100))
        return rng.choice(["", "-", ".", "-0", "+7", "1e3", "--2", "0.0", "-.5"])

    numbers = [number() for _ in range(20000)]
    mixed = numbers[:5000] + words * 400
    seps = [" ", " ", "\t", "  ", " \t "]
    leads = ["", "", "", " ", "\t"]
    n = size // 30
    cols = [rng.choices(leads, k=n), rng.choices(mixed, k=n), rng.choices(seps, k=n), rng.choices(numbers, k=n),
            rng.choices(seps, k=n), rng.choices(mixed, k=n), rng.choices(["", "", " zulu", "\tx y", " ~"], k=n)]
    lines = ["".join(parts) for parts in zip(*cols)]
    for i in rng.sample(range(n), n // 50):
        lines[i] = ""
    for i in rng.sample(range(n), n // 400):
        lines[i] = rng.choice(words) * rng.randrange(1, 4096 // 5)
    lines[rng.randrange(n)] = "y" * 4096                    # the longest line sort takes
    for i in rng.sample(range(100, n), n // 10):
        lines[i] = lines[i - rng.randrange(1, 100)]        # duplicates, near each other and not
    data = "\n".join(lines).encode("latin-1")
    return data[:size].rsplit(b"\n", 1)[0]                 # whole lines, the last without newline


def host_sort(opts, data):
    return subprocess.run(["sort"] + opts, input=data, stdout=subprocess.PIPE, env=C, check=True).stdout


def first_difference(got, want):
    g, w = got.split(b"\n"), want.split(b"\n")
    for i, (a, b) in enumerate(zip(g, w)):
        if a != b:
            return "line %d: got %r, want %r" % (i + 1, a[:80], b[:80])
    return "lengths %d and %d lines" % (len(g), len(w))


def test_sort_matches_host_sort_on_an_input_larger_than_memory(tmp_path, make_disk):
    data = generate(SIZE, 12)
    assert max(len(l) for l in data.split(b"\n")) == 4096 and not data.endswith(b"\n")
    inp = tmp_path / "in"
    inp.write_bytes(data)
    disk = make_disk([inp])
    # -v: the run and pass counts show the external path was taken.
    cmds = "".join("sort -v -m %d %s -o /out%d /in\n" % (BUDGET, " ".join(o), i) for i, o in enumerate(OPTIONS))
    r = boot(cmds + "ls /tmp\n", disk=disk, mem=MEM, status=True)
    assert r.rc == 0, r
    for i, o in enumerate(OPTIONS):
        c = r.cmds[i]
        assert c.status == 0, (c, r)
        m = re.search(r"sort: (\d+) lines, (\d+) runs in \d+ ms, (\d+) merge passes", c.out)
        assert m and int(m.group(2)) > 40 and int(m.group(3)) >= 1, (c, r)
    assert "sort." not in r.printed("ls /tmp"), r          # every temporary file was removed
    for i, o in enumerate(OPTIONS):
        rc, got = fsck(disk, "--cat", "/out%d" % i)
        want = host_sort(o, data)
        assert got == want, "sort %s: %s" % (" ".join(o), first_difference(got, want))
    rc, out = fsck(disk)
    assert rc == 0, out


def test_sort_errors_and_limits(tmp_path, make_disk):
    """Bad usage, unreadable input, a line over the limit, a full disk: one line, status 2,
    no temporary file left. Short inputs at the edges sort as the host's do."""
    (tmp_path / "long").write_bytes(b"a\n" * 3000 + b"b" * 4097 + b"\n")      # after some runs
    (tmp_path / "edge").write_bytes(b"\n\nb\n\x00a\na\n\n-1\n \xff\na")         # NUL, empties, no final newline
    big = generate(2 << 20, 3)
    (tmp_path / "big").write_bytes(big)
    disk = make_disk([tmp_path / "long", tmp_path / "edge", tmp_path / "big"], size_mb=12)
    lines = ["sort -x", "sort -k 0 /edge", "sort -m 2 /edge", "sort /nosuch", "sort -h",
             "sort -m 5 /long", "ls /tmp",
             "sort -o /edge.out /edge", "cp /edge /edge2", "sort -nr -o /edge2 /edge2", "echo -n > /e", "sort /e",
             "sort -m 16 -o /big.out /big", "ls /tmp", "sort -m 16 -o /big2.out /big /big /big",
             "ls /tmp"]
    r = boot("\n".join(lines) + "\n", disk=disk, mem=16, status=True)
    assert r.rc == 0, r
    out = {l: r.cmd(l) for l in lines}
    assert out["sort -x"].status == 2 and "sort: unknown option -x" in out["sort -x"].out, r
    assert "usage: sort" in out["sort -x"].out, r
    assert out["sort -k 0 /edge"].status == 2 and "field numbers start at 1" in out["sort -k 0 /edge"].out, r
    assert out["sort -m 2 /edge"].status == 2 and "at least 5 KB" in out["sort -m 2 /edge"].out, r
    assert out["sort /nosuch"].status == 2, r
    assert "sort: open /nosuch: No such file or directory" in out["sort /nosuch"].out, r
    assert out["sort -h"].status == 0 and "-k F[,E]" in out["sort -h"].out, r
    c = out["sort -m 5 /long"]
    assert c.status == 2 and "sort: /long: a line longer than 4096 bytes" in c.out, r
    assert "sort." not in out["ls /tmp"].out, r
    rc, got = fsck(disk, "--cat", "/edge.out")
    assert got == host_sort([], (tmp_path / "edge").read_bytes()), got
    rc, got = fsck(disk, "--cat", "/edge2")                 # the output may be an input
    assert got == host_sort(["-n", "-r"], (tmp_path / "edge").read_bytes()), got
    assert out["sort /e"].status == 0 and out["sort /e"].out == "", r
    # Full disk: 2 MB sorts on this 12 MB disk (about 6 MB free); three copies of it do not.
    assert out["sort -m 16 -o /big.out /big"].status == 0, r
    rc, got = fsck(disk, "--cat", "/big.out")
    assert got == host_sort([], big), first_difference(got, host_sort([], big))
    c = out["sort -m 16 -o /big2.out /big /big /big"]
    assert c.status == 2 and "No space left on device" in c.out, (c, r)
    assert "sort." not in r.cmd("ls /tmp", 1).out and "sort." not in r.cmd("ls /tmp", 2).out, r
    rc, report = fsck(disk)
    assert rc == 0, report
