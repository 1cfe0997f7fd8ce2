"""What the benchmark scripts (tools/bench_*.py) share: booting a private copy of the image
with commands on the console, one progress line per step, and min/median/max of several runs.

Every benchmark writes its CSV under build/bench, draws its figure beside it as a PNG
(tools/bench_figures.py) and leaves the README's tables to tools/readme_tables.py, which the
make targets run last: the README's figures are always the ones just measured."""
import os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "build", "bench")


class Progress:
    """Prints "bench-NAME [i/n] what (elapsed)" before each step, so a long run shows it lives."""

    def __init__(self, name, steps):
        self.name, self.steps, self.i, self.t0 = name, steps, 0, time.monotonic()

    def step(self, what):
        self.i += 1
        print("%s [%d/%d] %s (%.0f s so far)" % (self.name, self.i, self.steps, what,
                                                 time.monotonic() - self.t0), flush=True)


def boot(name, commands, mem=64, icount=False, append="", timeout=1800, check=None):
    """Boots build/kernel.elf on a private copy of build/fs.img, types commands, and returns
    what the console printed. Exits naming the benchmark if the guest failed or check (a
    string) is missing from the output."""
    with tempfile.TemporaryDirectory() as d:
        img = os.path.join(d, "fs.img")
        subprocess.run(["cp", "--sparse=always", os.path.join(ROOT, "build/fs.img"), img], check=True)
        args = [sys.executable, os.path.join(ROOT, "tools/runqemu.py"), "--kernel",
                os.path.join(ROOT, "build/kernel.elf"), "--disk", img, "--mem", str(mem),
                "--timeout", str(timeout)]
        if icount:
            args.append("--icount")
        if append:
            args += ["--append", append]
        p = subprocess.run(args, input=commands.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0 or (check and check not in out):
        sys.exit("%s: the guest failed (exit %d); its console:\n%s" % (name, p.returncode, out[-4000:]))
    return out


def spread(values):
    """(min, median, max) of a list of numbers."""
    return min(values), statistics.median(values), max(values)


def bench_path(name):
    os.makedirs(BENCH, exist_ok=True)
    return os.path.join(BENCH, name)
