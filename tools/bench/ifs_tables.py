"""The IFS benchmark's tables (tools/bench/bench_ifs.py): WRL 90/4's own Tables 3 and 4, and
the averaging of the runs' rows of build/bench/ifs.csv into the same shape. Apart from
bench_ifs.py because bench_ifs.py draws its figures with bench_figures.py, which draws the
tables' figure from these: each of those two modules imports this one, neither the other."""
import statistics

# The paper's Tables 3 (no penalty) and 4 (120 s), by sleep interval: response min, max, avg
# (s), sort time (s), degradation (%), page-ins, page-outs, cache min, max (KB). Averages of 3.
PAPER = {
    0: {1: (0.0, 4.7, 0.1, 79.6, 33, 173, 456, 152, 784), 5: (0.0, 4.5, 0.8, 83.8, 40, 437, 509, 157, 842),
        10: (1.9, 13.3, 5.9, 103.4, 72, 1605, 1177, 146, 1226), 30: (12.5, 22.0, 15.8, 96.3, 61, 1250, 983, 141, 2533)},
    120: {1: (0.0, 0.4, 0.03, 74.8, 25, 1, 4, 64, 178), 5: (0.0, 0.1, 0.02, 72.8, 21, 0, 0, 64, 168),
          10: (0.0, 0.1, 0.01, 72.1, 20, 0, 0, 64, 168), 30: (0.0, 0.1, 0.03, 74.0, 23, 0, 0, 64, 168)},
}
PAPER_STANDALONE_S = 60


def standalone_ms(rows, preset):
    alone = [float(r["sort_ms"]) for r in rows if r["preset"] == preset and r["kind"] == "standalone"]
    return statistics.median(alone) if alone else None


def aggregate(rows, preset):
    """{(penalty, mode, interval): averages over the runs} for one preset, with 'deg' (%)
    against the median standalone sort, and worst-run figures for the targets."""
    base = standalone_ms(rows, preset)
    groups = {}
    for r in rows:
        if r["preset"] == preset and r["kind"] == "ifs":
            groups.setdefault((int(r["penalty_s"]), r["mode"], float(r["interval_s"])), []).append(r)
    out = {}
    avg = lambda rs, k: statistics.mean(float(r[k]) for r in rs)
    for key, rs in groups.items():
        a = {k: avg(rs, k) for k in ("resp_min_ms", "resp_max_ms", "resp_avg_ms", "sort_ms", "pageins", "pageouts",
                                     "toucher_pageins", "toucher_pageouts", "cache_min_kb", "cache_max_kb",
                                     "fs_asks_vm", "fs_asks_vm_satisfied", "vm_asks_fs", "vm_asks_fs_satisfied")}
        a["runs"] = len(rs)
        a["deg"] = 100 * (a["sort_ms"] / base - 1) if base else None
        a["worst_toucher_pageins"] = max(int(r["toucher_pageins"]) for r in rs)
        a["worst_resp_max_ms"] = max(int(r["resp_max_ms"]) for r in rs)
        a["worst_deg"] = max(100 * (float(r["sort_ms"]) / base - 1) for r in rs) if base else None
        out[key] = a
    return out, base
