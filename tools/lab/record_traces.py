"""make traces: records the shipped reference traces (traces/*.trace) in the kernel and copies
them out of the disk image; then tools/lab/tracesim.py replays them.

One boot of a 64 MB machine (memory to spare: a page that came in and went out within one
epoch would be missing from its trace, vm/trace.c) on a private copy of build/fs-pristine.img; each
workload runs under `trace -e 250 -w NAME -o /traces/NAME.trace COMMAND`, and the files come
out of the image with build/fsck --cat. The workloads (small: the traces are shipped):

  sort      an external sort of 8 MB in a 1 MB budget (runs, temporaries, an 8-way merge)
  toucher   the interactive program: touches its 2 MB every 2 s, six times (periodic)
  ifs       WRL 90/4's mix: the toucher (every 1 s) in the background while sort runs
  forktree  a build-like fork/exec workload: fork trees whose leaves exec, nine of them
  vmtest    Irlam's: two processes sweeping 2 MB each for 1 s (cyclic)

    python3 tools/lab/record_traces.py [--out DIR] [--only NAME,...]

The kernel's timing varies with the host, so two recordings differ; the shipped traces are
one recording, and every figure in the docs comes from them."""
import argparse, os, re, subprocess, sys, tempfile

# benchlib boots a private copy of the image, as the benchmarks do (tools/bench/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from benchlib import ROOT, private_boot   # noqa: E402

EPOCH_MS = 100

SETUP = ["mkdir /traces", "mklines /in 8M 7"]
WORKLOADS = [
    ("sort", "sort -m 1024 -o /out /in"),
    ("toucher", "toucher -m 2 -s 2 -n 6 -q"),
    ("ifs", "sh -c 'toucher -m 2 -s 1 -n 6 -q & sort -m 1024 -o /out2 /in; sleep 7'"),
    ("forktree", "sh -c '" + "; ".join(["forktree -e", "forktree -e -k 64", "forktree -e -w 3"] * 3) + "'"),
    ("vmtest", "vmtest -t 1000 4"),
]


def command(name, cmd):
    return "trace -e %d -w %s -o /traces/%s.trace %s" % (EPOCH_MS, name, name, cmd)


def record(workloads, out_dir, mem=64, timeout=1800):
    """Boots once, runs the workloads under trace, copies each trace into out_dir; returns
    {name: path}. Exits with the console's tail when a workload or its trace failed."""
    lines = SETUP + [command(n, c) for n, c in workloads] + ["audit"]
    with tempfile.TemporaryDirectory() as d:
        img, args = private_boot(d, mem, timeout)
        text = "".join(l + '\necho "?=$?"\n' for l in lines)
        p = subprocess.run(args, input=text.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode("utf-8", "replace")
        statuses = re.findall(r"^\?=(\d+)", out, re.M)
        if p.returncode != 0 or statuses != ["0"] * len(lines) or "audit: ok" not in out:
            sys.exit("record_traces: a workload failed (exit %d, statuses %s); the console:\n%s"
                     % (p.returncode, statuses, out[-4000:]))
        paths = {}
        os.makedirs(out_dir, exist_ok=True)
        for name, _ in workloads:
            path = os.path.join(out_dir, name + ".trace")
            with open(path, "wb") as f:
                subprocess.run([os.path.join(ROOT, "build/fsck"), img, "--cat", "/traces/%s.trace" % name],
                               stdout=f, check=True)
            paths[name] = path
        return paths, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "traces"))
    ap.add_argument("--only", help="comma list of workloads (default: all)")
    a = ap.parse_args()
    chosen = [w for w in WORKLOADS if not a.only or w[0] in a.only.split(",")]
    if not chosen:
        sys.exit("record_traces: no workload named %s (%s)" % (a.only, ", ".join(w[0] for w in WORKLOADS)))
    paths, out = record(chosen, a.out)
    for line in re.findall(r"^trace: .*", out, re.M):
        print(line)
    for name, path in paths.items():
        print("%s: %d bytes" % (os.path.relpath(path, ROOT), os.path.getsize(path)))


if __name__ == "__main__":
    main()
