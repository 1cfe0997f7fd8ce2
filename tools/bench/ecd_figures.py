"""The ECD benchmark's figures (tools/bench/bench_ecd.py), drawn from build/bench/ecd.csv alone,
each with Sprite's own (Appendix C) in the row of panels under ours: the same axes and series,
so the shapes compare even where the scales cannot (Sprite's elapsed times are its Sun-3's). MB
are on a log scale: the points where Sprite thrashed moved ten times the others.

  fig1   time and disk busy (Sprite: server CPU) against memory, a line per fixed cache and
         one for the variable cache (no penalty)
  fig2   FS, VM and total MB against memory, the same lines
  fig3   time and busy: the variable cache (no penalty) against the smallest fixed (0.5 MB)
  fig4   FS, VM and total MB: the variable cache against the smallest fixed
  fig56  Figures 5 and 6: time, busy, VM, FS and total MB, a line per penalty
  table2 Table 2 across memory sizes: cache min and max, asks each way and how many gave a page

Where build/bench/linux-ecd.csv has rows (tools/bench/bench_linux_ecd.py), Figures 1-4 get a
Linux line among ours: Linux 6.1 on the same work at the same Sprite MB (its machine matched by
MemAvailable), file and swap traffic from /proc/vmstat, busy from /proc/diskstats."""
import csv

import matplotlib
matplotlib.use("Agg")              # no display: files only
import matplotlib.pyplot as plt    # noqa: E402

import ecd_paper   # noqa: E402

TIME = ("elapsed (s)", lambda a: a["elapsed_ms"] / 1000, lambda m, c: ecd_paper.paper(m, c, "elapsed_s"))
BUSY = ("disk busy (%) | Sprite: server CPU (%)", lambda a: a["util"], lambda m, c: ecd_paper.paper(m, c, "util"))


def _mb(i):
    return lambda m, c: (ecd_paper.paper_mb(m, c) or (None,) * 3)[i]


FS = ("FS MB moved", lambda a: a["fs_mb"], _mb(0))
VM = ("VM MB moved (Sprite: net less FS)", lambda a: a["vm_mb"], _mb(1))
TOTAL = ("total MB moved", lambda a: a["total_mb"], _mb(2))


def rows(path, preset):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["preset"] == preset]


def _label(c):
    if c == "linux":
        return "Linux 6.1, the same work"
    if c == "nocache":
        return "no cache (64 KB: the variable cache's control)"
    if c == "adaptive":
        return "variable, adaptive (the bias learned)"
    if c.startswith("p"):
        return "variable, penalty %s s" % c[1:] if c != "p0" else "variable, no penalty"
    return "fixed " + c


ALL = ["linux", "nocache", "0.5M", "1M", "2M", "3M", "4M", "5M", "6M", "7M", "p0", "p60", "p120", "p240", "p480", "p960"]
COLORS = dict(zip(ALL, ["magenta", "black", "tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink",
                        "tab:olive", "tab:cyan", "tab:red", "gold", "tab:blue", "tab:green", "tab:purple",
                        "tab:gray"]))


def _grid(agg, configs, metrics, title, png, sprite_configs=None):
    """Two rows of panels (here, Sprite), a column a metric, a line a config, against memory.
    Sprite's row has sprite_configs (all of the figure's), ours what was run."""
    mems = sorted({m for m, _ in agg})
    fig, axes = plt.subplots(2, len(metrics), figsize=(4.2 * len(metrics), 7), squeeze=False, sharex=True)
    for j, (name, ours, sprite) in enumerate(metrics):
        for row, cs in ((0, configs), (1, sprite_configs or configs)):
            for c in cs:
                if c == "linux" and name == BUSY[0]:
                    continue         # io_ticks of Linux's /proc/diskstats stays 0 on this disk
                style = "o--" if c.startswith("p") and c != "p0" else "s-" if c == "p0" else \
                    "^-." if c == "linux" else "D-" if c == "adaptive" else "o-"
                pts = [(m, ours(agg[(m, c)])) for m in mems if (m, c) in agg] if row == 0 else \
                    [(m, sprite(m, c)) for m in ecd_paper.MEMS if sprite(m, c) is not None]
                if pts:
                    axes[row][j].plot([p[0] for p in pts], [p[1] for p in pts], style, label=_label(c), ms=4,
                                      color=COLORS.get(c, "darkgreen" if c == "adaptive" else None))
        if "MB" in name:             # Sprite's thrashing points are ten times the rest
            for ax in axes[:, j]:
                ax.set_yscale("log")
        axes[0][j].set_title("here: " + name, fontsize=9)
        axes[1][j].set_title("Sprite (Appendix C): " + name.split(" | ")[-1].replace("Sprite: ", ""), fontsize=9)
        axes[1][j].set_xlabel("client memory (Sprite's MB)")
        for ax in axes[:, j]:
            ax.grid(True, alpha=0.3)
            ax.set_xticks(ecd_paper.MEMS)
    for ax in axes[:, 0]:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
    return png


def _table2(agg, png):
    mems = sorted(m for m, c in agg if c == "p0")
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    series = [("cache min / max (MB)", [("min", lambda a: a["cache_min_kb"] / 1024, 0),
                                        ("max", lambda a: a["cache_max_kb"] / 1024, 1)]),
              ("FS asks VM: asks / satisfied", [("asks", lambda a: a["fs_asks_vm"], 2),
                                                ("satisfied", lambda a: a["fs_asks_vm_satisfied"], 3)]),
              ("VM asks FS: asks / satisfied", [("asks", lambda a: a["vm_asks_fs"], 4),
                                                ("satisfied", lambda a: a["vm_asks_fs_satisfied"], 5)])]
    for ax, (title, parts) in zip(axes, series):
        for label, get, col in parts:
            ax.plot(mems, [get(agg[(m, "p0")]) for m in mems], "o-", label="here, " + label)
            ax.plot(ecd_paper.MEMS, [ecd_paper.TABLE_2[m][col] for m in ecd_paper.MEMS], "x:",
                    label="Sprite, " + label)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("client memory (MB, Sprite's)")
        ax.set_xticks(ecd_paper.MEMS)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Table 2: the negotiation across memory sizes, variable cache without penalty", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
    return png


def draw(csv_path, preset, prefix, linux_csv=None):
    """Every figure of one preset's rows, as PREFIX-fig1.png ...; returns the paths written.
    linux_csv (build/bench/linux-ecd.csv), where it exists, adds the Linux line."""
    agg = ecd_paper.aggregate(rows(csv_path, preset))
    agg.update(ecd_paper.aggregate(ecd_paper.linux_rows(linux_csv)))
    configs = sorted({c for _, c in agg if c not in ("linux", "adaptive")} | {"0.5M"},
                     key=lambda c: (c.startswith("p"), c != "nocache", float(c[1:]) if c.startswith("p") else
                                    float(c[:-1]) if c != "nocache" else 0))
    linux = ["linux"] if any(c == "linux" for _, c in agg) else []
    # the adaptive arbiter's variable cache (bench_ecd --adaptive) beside the plain one
    linux = (["adaptive"] if any(c == "adaptive" for _, c in agg) else []) + linux
    fixed = [c for c in configs if not c.startswith("p")] + ["p0"] + linux  # the variable cache beside
    pens = [c for c in configs if c.startswith("p")]
    out = [
        _grid(agg, fixed, [TIME, BUSY], "Figure 1: elapsed time and disk busy with fixed caches (%s)" % preset,
              prefix + "-fig1.png", ALL[1:11]),
        _grid(agg, fixed, [FS, VM, TOTAL], "Figure 2: MB moved with fixed caches (%s)" % preset, prefix + "-fig2.png",
              ALL[1:11]),
        _grid(agg, ["0.5M", "p0"] + linux, [TIME, BUSY], "Figure 3: variable against the smallest fixed cache (%s)"
              % preset, prefix + "-fig3.png", ["0.5M", "p0"]),
        _grid(agg, ["0.5M", "p0"] + linux, [FS, VM, TOTAL], "Figure 4: MB moved, variable against the smallest fixed "
              "cache (%s)" % preset, prefix + "-fig4.png", ["0.5M", "p0"]),
        _grid(agg, pens, [TIME, BUSY, VM, FS, TOTAL], "Figures 5 and 6: the variable cache by penalty (%s)" % preset,
              prefix + "-fig56.png", ALL[10:]),
    ]
    if any(c == "p0" for _, c in agg):
        out.append(_table2(agg, prefix + "-table2.png"))
    return out
