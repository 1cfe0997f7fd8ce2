"""The benchmarks' figures, each drawn from its CSV alone (so a figure can be redrawn, and
tested, without booting anything): one function per benchmark, CSV in, PNG out.

  vm    Irlam: relative speed against active virtual memory (median, min-max bars), with
        the machine's physical memory marked
  fork  Table 7-1: ms per fork+exit+wait against resident KB, COW-COR and copy-on-fork,
        pages resident and on backing store
  fs    cached write/overwrite/read throughput against bytes per call, with the guest's
        4 KB page copy as the ceiling
  boot  time to the first prompt by route (median, min-max bars) beside its target"""
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
    ax.set_ylabel("page touches/s relative to %d MB" % xs[0])
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


BOOT_TARGETS = {"grub": 0.8, "kernel": 0.25}


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
