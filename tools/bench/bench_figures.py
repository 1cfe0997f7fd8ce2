"""The benchmarks' figures, each drawn from its CSV alone (so a figure can be redrawn, and
tested, without booting anything): one function per benchmark, CSV in, PNG out.

  vm    Irlam: relative speed against active virtual memory (median, min-max bars), with
        the machine's physical memory marked
  fork  Table 7-1: ms per fork+exit+wait against resident KB, COW-COR and copy-on-fork,
        pages resident and on backing store
  fs    cached write/overwrite/read throughput against bytes per call, with the guest's
        4 KB page copy as the ceiling
  boot  time to the first prompt by route (median, min-max bars) beside its target
  ifs   WRL 90/4's IFS benchmark: the cache's size and the toucher's responses over time, by
        sleep interval, with and without penalty; and Tables 3 and 4 beside the paper's
  negcost  an untraded negotiation's cost as a share of the fastest and the median cache
        miss, by penalty mode (median, min-max bars), beside the target
  linux_ifs  the same mix under Linux (bench_linux.py): the page cache, swap traffic and the
        toucher's responses over time, by sleep interval, sort alone among them"""
import csv, statistics

import matplotlib
matplotlib.use("Agg")              # no display: files only
import matplotlib.pyplot as plt    # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _save(fig, ax, png, title):
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


def _bars(xs, groups):
    """Median and the distances to min and max, for errorbar()."""
    med = [statistics.median(groups[x]) for x in xs]
    lo = [m - min(groups[x]) for m, x in zip(med, xs)]
    hi = [max(groups[x]) - m for m, x in zip(med, xs)]
    return med, [lo, hi]


def vm(csv_path, png):
    data = rows(csv_path)
    groups = {}
    for r in data:
        groups.setdefault(int(r["active_mb"]), []).append(float(r["relative_speed"]))
    xs = sorted(groups)
    med, err = _bars(xs, groups)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(xs, med, yerr=err, marker="o", capsize=3, label="relative speed (median, min-max)")
    ax.set_yscale("log")
    frames = [float(r["frames_mb"]) for r in data if r.get("frames_mb")]
    if frames:
        ax.axvline(frames[0], color="grey", linestyle="--", label="physical memory (%.1f MB)" % frames[0])
    ax.set_xlabel("active virtual memory (MB)")
    ax.set_ylabel("work done a second relative to %d MB" % xs[0])
    ax.legend(fontsize=8)
    return _save(fig, ax, png, "Irlam's vmtest (%s)" % data[0]["mode"])


def fork(csv_path, png):
    data = rows(csv_path)
    fig, ax = plt.subplots(figsize=(7, 4))
    for mode in ("cowcor", "copy"):
        for where, style in (("resident", "-"), ("backing", ":")):
            pts = sorted((int(r["resident_kb"]), int(r["ns_per_fork"]) / 1e6) for r in data
                         if r["fork_mode"] == mode and r["pages"] == where)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o",
                        label="%s, pages %s" % ("COW-COR" if mode == "cowcor" else "copy-on-fork", where))
    ax.set_yscale("log")              # COW-COR's 0.1-0.3 ms beside copying's tens of ms
    ax.set_xlabel("parent's resident memory (KB)")
    ax.set_ylabel("ms per fork+exit+wait (guest time)")
    ax.legend(fontsize=8)
    return _save(fig, ax, png, "Table 7-1: fork time against resident size (page copy %s ns)"
                 % data[0]["copy4k_ns"])


def fs(csv_path, png):
    data = rows(csv_path)
    cached = sorted((int(r["bytes"]), r) for r in data if r["kind"] == "cached")
    xs = [c[0] for c in cached]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("write_MBps_or_data_writes", "write, new file"),
                       ("overwrite_MBps_or_meta_writes", "overwrite"), ("read_MBps", "read")):
        ax.plot(xs, [float(c[1][key]) for c in cached], marker="o", label=label)
    copy = [r for r in data if r["kind"] == "copy"]
    if copy:
        ax.axhline(float(copy[0]["read_MBps"]), color="grey", linestyle="--",
                   label="4 KB page copy (%s ns)" % copy[0]["ns_or_ms"])
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per call")
    ax.set_ylabel("MB/s of guest time")
    ax.legend(fontsize=8)
    return _save(fig, ax, png, "Cached 2 MB file: throughput against transfer size")


def fs_seq(csv_path, png):
    """Sequential write and read of a file out of the cache against the disk's own ceiling,
    MB/s of wall clock (medians; the CSV's notes have min and max)."""
    data = {r["kind"]: r for r in rows(csv_path) if r["kind"].startswith("seq_") and r["kind"] != "seq_of_ceiling_pct"}
    kinds = [k for k in ("seq_ceiling", "seq_clustered", "seq_single") if k in data]
    labels = {"seq_ceiling": "ceiling (64 KB requests, no fs)", "seq_clustered": "file: clustered + read-ahead",
              "seq_single": "file: one block a request"}
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, k in enumerate(kinds):
        w, r = float(data[k]["write_MBps_or_data_writes"]), float(data[k]["read_MBps"])
        ax.bar([i * 0.27 - 0.27, 1 + i * 0.27 - 0.27], [w, r], width=0.25, label=labels[k])
    if "seq_ceiling" in data:
        for x, key in ((0, "write_MBps_or_data_writes"), (1, "read_MBps")):
            c = 0.8 * float(data["seq_ceiling"][key])
            ax.plot([x - 0.45, x + 0.45], [c, c], color="red", linestyle="--", label="80 % of the ceiling" if x == 0 else None)
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["write + fsync", "read"])
    ax.set_ylim(0, 1.45 * max(max(float(data[k]["write_MBps_or_data_writes"]), float(data[k]["read_MBps"]))
                              for k in kinds))     # room above the bars for the legend
    ax.set_ylabel("MB/s (wall clock, throttled disk)")
    ax.legend(fontsize=8)
    return _save(fig, ax, png, "Sequential file I/O out of the cache against the disk's ceiling")


BOOT_TARGETS = {"grub": 0.8, "kernel": 0.25}


def negcost(csv_path, png, target_pct):
    data = rows(csv_path)
    modes = list(dict.fromkeys(r["mode"] for r in data))
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (key, label) in enumerate((("pct_of_fastest", "of the fastest miss"), ("pct_of_median", "of the median miss"))):
        groups = {m: [float(r[key]) for r in data if r["mode"] == m] for m in modes}
        med, err = _bars(modes, groups)
        ax.bar([j + 0.4 * i for j in range(len(modes))], med, width=0.4, yerr=err, capsize=3, label=label)
    ax.axhline(target_pct, color="red", linestyle="--", label="target (%.0f %%)" % target_pct)
    ax.set_xticks([j + 0.2 for j in range(len(modes))])
    ax.set_xticklabels(modes)
    ax.set_ylabel("untraded negotiation, % of a cache miss")
    ax.legend(fontsize=8)
    return _save(fig, ax, png, "An untraded negotiation against a cache miss (%s)" % data[0]["setup"])


def boot(csv_path, png):
    data = rows(csv_path)
    names = [r["mode"] for r in data]
    med = [float(r["median_s"]) for r in data]
    err = [[m - float(r["min_s"]) for m, r in zip(med, data)], [float(r["max_s"]) - m for m, r in zip(med, data)]]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(names, med, yerr=err, capsize=4, label="median, min-max (%s runs)" % data[0]["runs"])
    for i, n in enumerate(names):
        if n in BOOT_TARGETS:
            ax.plot([i - 0.4, i + 0.4], [BOOT_TARGETS[n]] * 2, color="red",
                    label="target" if i == 0 else None)
    ax.set_ylabel("seconds to the first prompt (wall clock)")
    ax.legend(fontsize=8)
    return _save(fig, ax, png, "Boot time by route")


IFS_STYLE = {(0, "fixed"): ("tab:red", "no penalty"), (120, "fixed"): ("tab:blue", "120 s"),
             (120, "stepped"): ("tab:green", "120 s stepped"), (1200, "fixed"): ("tab:purple", "1200 s"),
             (0, "adaptive"): ("tab:orange", "adaptive"), (0, "ignored"): ("tab:gray", "bias ignored")}
CACHE_COLORS = ["tab:olive", "tab:cyan", "tab:brown", "tab:gray"]


def _ifs_label(c, configs):
    """(colour, label) of a configuration (ifs_tables.config_of): the penalties' own colours,
    the fixed caches' in size order."""
    from ifs_tables import config_label
    if c in IFS_STYLE:
        return IFS_STYLE[c]
    caches = sorted(x for x in configs if x[1] == "cache")
    color = CACHE_COLORS[caches.index(c) % len(CACHE_COLORS)] if c in caches else None
    return color, config_label(*c)


def ifs(csv_path, series_path, preset, png_time, png_tables, linux_csv=None):
    """Two figures of one preset: over time (run 1 of each row), and the tables by interval,
    with the paper's Tables 3 and 4 beside the paper preset and Linux's rows (linux_csv, if it
    exists) beside the matched one."""
    from ifs_tables import PAPER, aggregate, config_of, config_order, linux, read_csv
    series = [r for r in rows(series_path) if r["preset"] == preset and r["run"] == "1" and r["interval_s"]]
    intervals = sorted({float(r["interval_s"]) for r in series}) or [0]
    configs = sorted({config_of(r) for r in series}, key=config_order)
    fig, axes = plt.subplots(2, len(intervals), figsize=(3.6 * len(intervals) + 1, 6), squeeze=False, sharex="col")
    for j, s in enumerate(intervals):
        for c in configs:
            color, label = _ifs_label(c, configs)
            pick = [r for r in series if float(r["interval_s"]) == s and config_of(r) == c]
            cache = sorted((float(r["t_s"]), float(r["value"])) for r in pick if r["what"] == "cache_kb")
            touch = sorted((float(r["t_s"]), float(r["value"]) / 1000) for r in pick if r["what"] == "touch_ms")
            axes[0][j].plot([t for t, _ in cache], [v for _, v in cache], color=color, label=label)
            for r in pick:
                if r["what"] == "sort_end":     # where sort ended in this run
                    for ax in axes[:, j]:
                        ax.axvline(float(r["t_s"]), color=color, ls="--", lw=0.8)
            axes[1][j].plot([t for t, _ in touch], [v for _, v in touch], "o-", color=color, ms=3, label=label)
        axes[0][j].set_title("S = %g s" % s, fontsize=9)
        axes[1][j].set_xlabel("seconds since sort began (dashed: it ended)")
        for ax in axes[:, j]:
            ax.axvline(0, color="grey", lw=0.5)
            ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("file cache (KB)")
    axes[1][0].set_ylabel("toucher's response (s)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("IFS benchmark (%s): cache size and response over time, run 1" % preset, fontsize=10)
    fig.tight_layout()
    fig.savefig(png_time, dpi=100)
    plt.close(fig)

    agg, base = aggregate(rows(csv_path), preset)
    lin = linux(read_csv(linux_csv), preset) if linux_csv and preset != "paper" else None
    keys = sorted(agg)
    intervals = sorted({k[2] for k in keys})
    configs = sorted({k[:2] for k in keys}, key=config_order)
    slowest = lambda a: max(x for x in (a["resp_max_ms"], a["after_ms"], 0) if x is not None) / 1000
    panels = [("page-ins from backing store (all processes)", lambda a: a["pageins"], 5, False),
              ("slowest touch, during sort or the first after (s)", slowest, 1, True),
              ("sort's degradation (%)", lambda a: a["deg"] if a["deg"] is not None else 0, 4, False),
              ("largest cache (KB)", lambda a: a["cache_max_kb"], 8, False)]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    others = 2 if preset == "paper" else 1 if lin else 0
    width = 0.8 / (len(configs) + others)
    for ax, (title, get, col, log) in zip(axes.flat, panels):
        series_n = 0
        for c in configs:
            color, label = _ifs_label(c, configs)
            xs = [i + series_n * width for i, s in enumerate(intervals) if c + (s,) in agg]
            ys = [get(agg[c + (s,)]) or 0 for s in intervals if c + (s,) in agg]
            ax.bar(xs, ys, width, color=color, label="here, " + label)
            series_n += 1
        if preset == "paper":
            for pen, hatch in ((0, "//"), (120, "..")):
                xs = [i + series_n * width for i, s in enumerate(intervals) if int(s) in PAPER[pen]]
                ys = [PAPER[pen][int(s)][col] for s in intervals if int(s) in PAPER[pen]]
                ax.bar(xs, ys, width, color="white", edgecolor="black", hatch=hatch,
                       label="Sprite, Table %d (%s)" % (3 if pen == 0 else 4, "no penalty" if pen == 0 else "120 s"))
                series_n += 1
        elif lin:
            xs = [i + series_n * width for i, s in enumerate(intervals) if s in lin[0]]
            ys = [get(lin[0][s]) or 0 for s in intervals if s in lin[0]]
            ax.bar(xs, ys, width, color="white", edgecolor="black", hatch="xx", label="Linux 6.1 (empty: not measured)")
            series_n += 1
        ax.set_xticks([i + width * (series_n - 1) / 2 for i in range(len(intervals))])
        ax.set_xticklabels(["S = %g" % s for s in intervals])
        if log:
            ax.set_yscale("symlog", linthresh=0.1)
        ax.set_title(title, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("IFS benchmark (%s) beside %s (medians of the runs; sort alone %s)"
                 % (preset, "WRL 90/4 Tables 3 and 4" if preset == "paper" else "Linux" if lin else
                    "nothing (no linux-ifs.csv)",
                    "%.1f s" % (base / 1000) if base else "not run"), fontsize=10)
    fig.tight_layout()
    fig.savefig(png_tables, dpi=100)
    plt.close(fig)
    return [png_time, png_tables]


def linux_ifs(csv_path, series_path, preset, png):
    """One column a run of the preset (run 1; sort alone first): the page cache (Cached) and
    the pages swapped in and out since sort began, over it the toucher's responses."""
    series = [r for r in rows(series_path) if r["preset"] == preset and r["run"] == "1"]
    runs = sorted({r["interval_s"] for r in series}, key=lambda s: float(s) if s else -1)
    fig, axes = plt.subplots(2, max(1, len(runs)), figsize=(3.8 * max(1, len(runs)) + 1, 6), squeeze=False,
                             sharex="col")
    for j, s in enumerate(runs):
        pick = [r for r in series if r["interval_s"] == s]
        for what, color in (("cache_kb", "tab:blue"), ("free_kb", "tab:grey")):
            pts = sorted((float(r["t_s"]), float(r["value"])) for r in pick if r["what"] == what)
            axes[0][j].plot([t for t, _ in pts], [v for _, v in pts], color=color,
                            label={"cache_kb": "page cache (Cached)", "free_kb": "MemFree"}[what])
        ax2 = axes[1][j]
        for what, color in (("pswpin", "tab:red"), ("pswpout", "tab:orange")):
            pts = sorted((float(r["t_s"]), float(r["value"])) for r in pick if r["what"] == what)
            ax2.plot([t for t, _ in pts], [v for _, v in pts], color=color, label=what + " (pages)")
        touch = sorted((float(r["t_s"]), float(r["value"]) / 1000) for r in pick if r["what"] == "touch_ms")
        if touch:
            ax3 = ax2.twinx()
            ax3.plot([t for t, _ in touch], [v for _, v in touch], "ko", ms=3, label="toucher's response (s)")
            ax3.set_ylabel("response (s)", fontsize=8)
        for r in pick:
            if r["what"] == "sort_end":
                for ax in axes[:, j]:
                    ax.axvline(float(r["t_s"]), color="black", ls="--", lw=0.8)
        axes[0][j].set_title("sort alone" if not s else "S = %s s" % s, fontsize=9)
        ax2.set_xlabel("seconds since sort began (dashed: it ended)")
        for ax in axes[:, j]:
            ax.axvline(0, color="grey", lw=0.5)
            ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("KB")
    axes[1][0].set_ylabel("pages swapped since sort began")
    axes[0][0].legend(fontsize=7)
    axes[1][0].legend(fontsize=7, loc="upper left")
    fig.suptitle("IFS mix under Linux (%s): page cache, swap and responses over time, run 1" % preset, fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png
