"""What tracing costs the traced programs, in guest time: the ECD benchmark's four phases (user/
phase.c, the work of the session trace) run in one guest under -icount (guest time exact, the
same on every run and host; without align the host runs it as fast as it can), by default as
the session trace was recorded (tools/lab/record_traces.py: -icount 6, 15.6 MIPS, 24 MB, 200 ms
epochs), three ways in turn: untraced, under the sampling
trace (`trace -e EPOCH`) and under the ordered one (`trace -r -e EPOCH`, a soft fault on each page's
first use in an epoch). Each phase prints its own elapsed milliseconds; the ordered trace's soft
faults are read from vm.trace.softfaults. Each way runs ROUNDS times (the first round of all
comes after the inputs were made, so the cache is as warm for every way).

    python3 tools/lab/trace_cost.py [--rounds 2] [--shift 6] [--mem 24] [--epoch 200]

Prints a line per run, writes build/bench/trace-cost.csv (way, round, phase, ms, softfaults) and
trace-cost.png (each phase's median time per way), and the overhead of each trace over none,
which docs/lab-replacement.md quotes."""
import argparse, csv, os, re, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
import subprocess, tempfile   # noqa: E402
from benchlib import private_boot, bench_path   # noqa: E402

PHASES = ["edit", "compile", "link", "debug"]
WAYS = [("none", "%s"), ("sampled", "trace -e EPOCH -w cost -o /c.trace %s"),
        ("ordered", "trace -r -e EPOCH -w cost -o /c.trace %s")]
SOFT = "vmstat -n vm.trace.softfaults"


def commands(rounds, epoch):
    lines = ["mkdir /ecd", "phase -d /ecd init", "sync"]
    for r in range(rounds):
        for way, wrap in WAYS:
            for p in PHASES:
                lines += ["echo cost %s %d %s" % (way, r, p), wrap.replace("EPOCH", str(epoch)) % ("phase -d /ecd " + p), SOFT]
    return "\n".join(lines) + "\n"


def parse(out):
    """[(way, round, phase, ms, softfaults so far)] from the console."""
    rows = []
    for m in re.finditer(r"^cost (\w+) (\d+) (\w+)\n(?:.*\n)*?phase \3: (\d+) ms.*\n(?:.*\n)*?\$ " + re.escape(SOFT) +
                         r"\n(\d+)\n", out, re.M):
        rows.append((m.group(1), int(m.group(2)), m.group(3), int(m.group(4)), int(m.group(5))))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--shift", type=int, default=6, help="-icount shift: 2**shift ns a guest instruction")
    ap.add_argument("--mem", type=int, default=24)
    ap.add_argument("--epoch", type=int, default=200, help="ms")
    a = ap.parse_args()
    mode = "icount shift=%d, %d MB, epoch %d ms" % (a.shift, a.mem, a.epoch)
    print("trace-cost: one guest (%s): %d rounds of %s, each untraced, sampled and ordered"
          % (mode, a.rounds, ", ".join(PHASES)), flush=True)
    with tempfile.TemporaryDirectory() as d:
        _, args = private_boot(d, a.mem, 3600, icount=str(a.shift))
        p = subprocess.run(args, input=commands(a.rounds, a.epoch).encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        sys.exit("trace-cost: the guest failed (exit %d); its console:\n%s" % (p.returncode, out[-3000:]))
    rows = parse(out)
    want = a.rounds * len(WAYS) * len(PHASES)
    if len(rows) != want:
        sys.exit("trace-cost: parsed %d runs of %d; the console's tail:\n%s" % (len(rows), want, out[-3000:]))
    soft, prev = {}, 0
    for way, r, p, ms, sf in rows:
        soft[(way, r, p)] = sf - prev if way == "ordered" else 0
        prev = sf
        print("trace-cost: %-8s round %d %-8s %6d ms%s" % (way, r, p, ms,
              ", %d soft faults" % soft[(way, r, p)] if way == "ordered" else ""), flush=True)
    path = bench_path("trace-cost.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["way", "round", "phase", "ms", "softfaults", "mode"])
        for way, r, p, ms, _ in rows:
            w.writerow([way, r, p, ms, soft[(way, r, p)], mode])
    med = {(way, p): statistics.median(ms for w_, _, p_, ms, _ in rows if (w_, p_) == (way, p))
           for way, _ in WAYS for p in PHASES}
    total = {way: sum(med[(way, p)] for p in PHASES) for way, _ in WAYS}
    for way in ("sampled", "ordered"):
        print("trace-cost: %s: the four phases %d ms against %d ms untraced (%+.1f %%)" % (
            way, total[way], total["none"], 100.0 * (total[way] / total["none"] - 1)))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.27
    for i, (way, _) in enumerate(WAYS):
        ax.bar([k + (i - 1) * width for k in range(len(PHASES))], [med[(way, p)] for p in PHASES], width, label=way)
    ax.set_xticks(range(len(PHASES)))
    ax.set_xticklabels(PHASES)
    ax.set_ylabel("guest ms (median of %d)" % a.rounds)
    ax.set_title("the ECD phases untraced, sampled and ordered (%s)" % mode, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    png = bench_path("trace-cost.png")
    fig.savefig(png, dpi=90)
    print("trace-cost: %s, %s" % (os.path.relpath(path), os.path.relpath(png)))


if __name__ == "__main__":
    main()
