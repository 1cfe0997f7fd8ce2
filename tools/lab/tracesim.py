"""Hagmann's figures from reference traces: runs build/tracesim (tools/lab/tracesim/, the kernel's
own policy files on a simulated machine, and MIN) on each trace, prints its table, and writes
build/traces/sim.csv and one PNG per trace: faults against memory size for every policy and
MIN (his Figures 1, 4, 7) beside the percent over MIN (Figures 2, 5, 8).

    python3 tools/lab/tracesim.py [--policies clock,lru,...] [--out DIR] [TRACE...]

With no trace, the shipped ones (traces/*.trace). The table, CSV and figures come from the
counts alone: two runs give the same files."""
import argparse, csv, glob, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIM = os.path.join(ROOT, "build", "tracesim")


def simulate(traces, csv_path, policies=None, sizes=None):
    """Runs tracesim over traces, appending to csv_path; returns (status, printed table)."""
    args = [SIM, "-c", csv_path]
    if policies:
        args += ["-p", policies]
    if sizes:
        args += ["-m", sizes]
    p = subprocess.run(args + list(traces), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def figure(rows, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    by = {}
    for r in rows:
        if r["faults"] != "error":
            by.setdefault(r["policy"], []).append((int(r["frames"]), int(r["faults"]), float(r["over_min_pct"])))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    for pol, pts in by.items():
        pts.sort()
        style = dict(color="black", linewidth=2) if pol == "MIN" else {}
        a1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=pol, **style)
        if pol != "MIN":
            a2.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", markersize=3, label=pol)
    r0 = rows[0]
    a1.set_title("%s: faults (%s references, %s pages, epoch %s ms)" % (r0["trace"], r0["references"], r0["pages"], r0["epoch_ms"]), fontsize=9)
    a1.set_xlabel("memory (frames of 4 KB)")
    a1.set_ylabel("faults")
    a2.set_title("percent of faults over MIN (Hagmann's Figure 2)", fontsize=9)
    a2.set_xlabel("memory (frames of 4 KB)")
    a2.set_ylabel("% over MIN")
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="*")
    ap.add_argument("--policies", help="comma list (default: every policy of vm/policy.c)")
    ap.add_argument("--sizes", help="comma list of frame counts (default: ten steps to the trace's pages)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "traces"))
    ap.add_argument("--no-png", action="store_true")
    a = ap.parse_args()
    traces = a.traces or sorted(glob.glob(os.path.join(ROOT, "traces", "*.trace")))
    if not traces:
        sys.exit("tracesim: no traces (make traces records them)")
    os.makedirs(a.out, exist_ok=True)
    csv_path = os.path.join(a.out, "sim.csv")
    if os.path.exists(csv_path):
        os.remove(csv_path)
    status, table = simulate(traces, csv_path, a.policies, a.sizes)
    print(table, end="")
    if not a.no_png and os.path.exists(csv_path):
        rows = read_csv(csv_path)
        for name in dict.fromkeys(r["trace"] for r in rows):
            png = os.path.join(a.out, os.path.splitext(name)[0] + ".png")
            figure([r for r in rows if r["trace"] == name], png)
            print("figure:", os.path.relpath(png, ROOT))
    print("csv:", os.path.relpath(csv_path, ROOT))
    sys.exit(status)


if __name__ == "__main__":
    main()
