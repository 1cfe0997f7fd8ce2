"""sort's order (user/lib/linecmp.c, compiled unchanged into build/tests/test_linecmp) against
the host's `LC_ALL=C sort` on many small random inputs made to hit the corners: numbers with
signs, zeros, fractions and blanks in front, fields separated by runs of blanks and tabs,
empty lines and fields, duplicates, prefixes, bytes above 127, a last line without newline."""
import os, random, subprocess
import pytest

BIN = os.path.join(os.path.dirname(__file__), "..", "..", "build", "tests", "test_linecmp")
OPTIONS = [[], ["-n"], ["-r"], ["-n", "-r"], ["-k", "2"], ["-k", "3"], ["-k", "2,2"], ["-k", "1,2"],
           ["-k", "3,2"], ["-n", "-k", "2"], ["-n", "-r", "-k", "3"], ["-r", "-k", "2,3"], ["-n", "-k", "2,2"]]
C = dict(os.environ, LC_ALL="C")


def number(rng):
    sign = rng.choice(["", "", "-", "--", "+"])
    ints = rng.choice(["", "0", "00", "7", "007", "10", "12", "123", str(rng.randrange(10 ** rng.randrange(1, 25)))])
    frac = rng.choice(["", "", ".", ".0", ".5", ".50", ".05", "." + str(rng.randrange(1000))])
    tail = rng.choice(["", "", "x", ".3", "e5", ",5"])
    return sign + ints + frac + tail


def field(rng):
    kind = rng.randrange(5)
    if kind == 0:
        return number(rng)
    if kind == 1:
        return rng.choice(["a", "ab", "abc", "b", "B", "Z", "zz", "\x7f", "\xe9t\xe9", "a\x00b"])
    if kind == 2:
        return "".join(rng.choice("ab0-. ") for _ in range(rng.randrange(4)))
    if kind == 3:
        return ""
    return rng.choice(["x", "-", ".", "0", "-0", "-.0", "0.0", "1", "-1"])


def line(rng):
    if rng.random() < 0.05:
        return ""
    parts = [field(rng) for _ in range(rng.randrange(1, 5))]
    seps = [rng.choice([" ", " ", "\t", "  ", " \t", ""]) for _ in parts]
    lead = rng.choice(["", "", "", " ", "\t", "  "])
    return lead + "".join(s + p for p, s in zip(parts, [""] + seps[1:]))


def case(rng):
    lines = [line(rng) for _ in range(rng.randrange(1, 80))]
    lines += rng.sample(lines, min(len(lines), rng.randrange(4)))      # duplicates
    rng.shuffle(lines)
    data = "\n".join(lines).encode("latin-1")
    return data if rng.random() < 0.3 else data + b"\n"


def host_sort(opts, data):
    return subprocess.run(["sort"] + opts, input=data, stdout=subprocess.PIPE, env=C, check=True).stdout


def ours(opts, data):
    p = subprocess.run([BIN] + opts, input=data, stdout=subprocess.PIPE, check=True)
    return p.stdout


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: " ".join(o) or "plain")
def test_order_matches_host_sort(opts):
    assert os.path.exists(BIN), "build/tests/test_linecmp is missing: run make first"
    rng = random.Random(" ".join(opts))
    for i in range(60):
        data = case(rng)
        want, got = host_sort(opts, data), ours(opts, data)
        assert got == want, (opts, i, data, want, got)


def test_hand_picked_numbers():
    # Value order, not text: -0 = 0 = "", 1.50 = 1.5, long integers, '-' only before digits.
    data = b"10\n9\n-0\n\n1.50\n1.5\n-.5\n-1\n123456789012345678901234567890\n+3\n.\n-\n00.25\n"
    assert ours(["-n"], data) == host_sort(["-n"], data)
    assert ours(["-n"], data).split(b"\n")[:4] == [b"-1", b"-.5", b"", b"+3"]


@pytest.mark.parametrize("spec,want", [("2", "2 0"), ("2,3", "2 3"), ("1,1", "1 1"),
                                       ("0", "error: field numbers start at 1"),
                                       ("2,0", "error: field numbers start at 1"),
                                       ("x", "error: expected a field number"),
                                       ("2,", "error: expected a field number"),
                                       ("2.1", "error: only FIELD or FIELD,END (no .CHAR, no per-key options)"),
                                       ("2n", "error: only FIELD or FIELD,END (no .CHAR, no per-key options)"),
                                       ("99999999999", "error: field number too large")])
def test_key_spec(spec, want):
    out = subprocess.run([BIN, "--parse", spec], stdout=subprocess.PIPE, text=True).stdout.strip()
    assert out == want
