"""Hagmann's figures from reference traces: runs build/tracesim (tools/lab/tracesim/, the kernel's
own policy files on a simulated machine, Atlas's loop detector, and MIN) on each trace, prints
its table, and writes build/traces/sim.csv and one PNG per trace with his four kinds of figure:
faults against memory size for every policy and MIN (his Figures 1, 4, 7), the percent over MIN
(Figures 2, 5, 8), the decrease from clock's faults as a percent of MIN's (Figures 3, 6, 9), and
the faults of the five worst seconds over MIN's five worst (Figure 10, his five worst 5 s
epochs). Then a summary per trace (faults summed over the sizes below its page count) beside
what Hagmann found on his traces (section 5; his figures give no table, so his numbers are
the ones his text states).

    python3 tools/lab/tracesim.py [--policies clock,lru,...] [--out DIR] [TRACE...]

With no trace, the shipped ones (traces/*.trace and *.trace.gz: in the order of use; the sampled
ones of traces/sampled/ only when named). The table, CSV and figures come from the counts alone:
two runs give the same files."""
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


def shipped():
    """The shipped traces in the order of use (traces/*.trace, *.trace.gz), sorted by name."""
    return sorted(glob.glob(os.path.join(ROOT, "traces", "*.trace")) + glob.glob(os.path.join(ROOT, "traces", "*.trace.gz")))


def trace_name(path_or_name):
    return os.path.basename(path_or_name).replace(".gz", "").replace(".trace", "")


def series(rows):
    """{policy: [(frames, faults, over_min_pct, worst5)]} sorted by frames, errors left out."""
    by = {}
    for r in rows:
        if r["faults"] != "error":
            by.setdefault(r["policy"], []).append((int(r["frames"]), int(r["faults"]), float(r["over_min_pct"]),
                                                  int(r.get("worst5") or 0)))
    for pts in by.values():
        pts.sort()
    return by


def figure(rows, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # the size that holds every page is only first touches, and far to the right on a trace of
    # many short-lived processes: left out of the axes
    rows = [r for r in rows if int(r["frames"]) < int(r["pages"])] or rows
    by = series(rows)
    mins = {f: (n, w) for f, n, _, w in by.get("MIN", [])}
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {p: cycle[i % len(cycle)] for i, p in enumerate(p for p in by if p != "MIN")}
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    a1, a2, a3, a4 = axes.flat
    for pol, pts in by.items():
        style = dict(color="black", linewidth=2) if pol == "MIN" else dict(color=colour[pol])
        a1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=pol, **style)
        if pol == "MIN":
            continue
        a2.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", markersize=3, label=pol, color=colour[pol])
        if "clock" in by and pol != "clock":
            clock = {f: n for f, n, _, _ in by["clock"]}
            xs = [p[0] for p in pts if p[0] in clock and mins.get(p[0], (0,))[0]]
            a3.plot(xs, [100.0 * (clock[f] - n) / mins[f][0] for f, n, _, _ in pts if f in xs],
                    marker="o", markersize=3, label=pol, color=colour[pol])
        xs = [p[0] for p in pts if mins.get(p[0], (0, 0))[1]]
        a4.plot(xs, [100.0 * (w / mins[f][1] - 1) for f, _, _, w in pts if f in xs], marker="o", markersize=3,
                label=pol, color=colour[pol])
    r0 = rows[0]
    a1.set_title("%s: faults (%s references, %s pages, epoch %s ms%s) (his Fig. 1)" % (
        trace_name(r0["trace"]), r0["references"], r0["pages"], r0["epoch_ms"],
        "" if r0.get("ordered", "1") == "1" else ", sampled"), fontsize=9)
    a2.set_title("percent of faults over MIN (his Figures 2, 5, 8)", fontsize=9)
    a3.set_title("decrease from clock's faults, percent of MIN's (his Figures 3, 6, 9)", fontsize=9)
    a4.set_title("the five worst seconds: percent over MIN's five worst (his Figure 10)", fontsize=9)
    for a, y in ((a1, "faults"), (a2, "% over MIN"), (a3, "% of MIN's faults"), (a4, "% over MIN")):
        a.set_xlabel("memory (frames of 4 KB)")
        a.set_ylabel(y)
        a.grid(True, alpha=0.3)
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
    return png


def sums(rows):
    """{trace: {policy: faults summed over the sizes below the trace's page count}}."""
    out = {}
    for r in rows:
        if r["faults"] == "error" or int(r["frames"]) >= int(r["pages"]):
            continue
        t = out.setdefault(trace_name(r["trace"]), {})
        t[r["policy"]] = t.get(r["policy"], 0) + int(r["faults"])
    return out


# What Hagmann's text states of his three workstation traces (section 5 and 7).
HAGMANN = [
    ("clock over LRU", "10-40 %", lambda s: "%+.0f %%" % (100.0 * (s["clock"] / s["lru"] - 1))),
    ("clock against random", "clock much better", lambda s: "random %+.0f %% over clock" % (100.0 * (s["random"] / s["clock"] - 1))),
    ("cluster LRU (16) against LRU", "close to LRU", lambda s: "%+.0f %%" % (100.0 * (s["clusterlru"] / s["lru"] - 1))),
    ("SPT: share of clock's gap to MIN closed", "20-50 %", lambda s: "%.0f %%" % (100.0 * (s["clock"] - s["spt"]) / (s["clock"] - s["MIN"])) if s["clock"] > s["MIN"] else "no gap"),
    ("Atlas", "very bad, worst on large memories", lambda s: "%+.0f %% over MIN" % (100.0 * (s["atlas"] / s["MIN"] - 1))),
]


def summary(rows):
    """Lines: per trace, the percent over MIN of each policy and Hagmann's findings beside ours."""
    out = []
    for t, s in sums(rows).items():
        if "MIN" not in s:
            continue
        pols = sorted((p for p in s if p != "MIN"), key=lambda p: s[p])
        out.append("%s: over MIN, summed over the sizes below its pages: %s" % (
            t, ", ".join("%s %+.0f %%" % (p, 100.0 * (s[p] / s["MIN"] - 1)) for p in pols)))
        for what, his, ours in HAGMANN:
            try:
                out.append("    %-42s Hagmann: %-34s here: %s" % (what, his, ours(s)))
            except (KeyError, ZeroDivisionError):
                pass
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="*")
    ap.add_argument("--policies", help="comma list (default: every registered policy, vm/policy.h's POLICY)")
    ap.add_argument("--sizes", help="comma list of frame counts (default: ten steps to the trace's pages)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "traces"))
    ap.add_argument("--no-png", action="store_true")
    a = ap.parse_args()
    traces = a.traces or shipped()
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
            png = os.path.join(a.out, trace_name(name) + ".png")
            figure([r for r in rows if r["trace"] == name], png)
            print("figure:", os.path.relpath(png, ROOT))
    if os.path.exists(csv_path):
        print("\n".join(summary(read_csv(csv_path))))
    print("csv:", os.path.relpath(csv_path, ROOT))
    sys.exit(status)


if __name__ == "__main__":
    main()
