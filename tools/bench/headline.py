"""The results chapter's headline (first in docs/results.md; the README links to it): where
this kernel is ahead of Linux and of Sprite, and where it is behind, on WRL 90/4's two
benchmarks, with the figures of one `make paper` run.

Four CSVs feed it, each written by its own benchmark under build/bench: ifs.csv (our IFS runs,
both presets), linux-ifs.csv (Linux on the matched IFS preset), ecd.csv (our ECD points) and
linux-ecd.csv (Linux on the ECD phases). Sprite's side is the paper's own tables (ifs_tables.PAPER,
ecd_paper.APPENDIX_C). Every comparison is like for like, or it is not made:

  IFS beside Linux   the matched preset, where both kernels leave the same memory to programs and
                     run the same toucher and sort at the same CPU speed: sort's time with the
                     toucher (absolute and over sort alone) and the toucher's slowest touch, with
                     our 120 s penalty, at each S both ran.
  IFS beside Sprite  the paper preset against Tables 3 and 4: sort's degradation and the page-ins,
                     with the 120 s penalty and without one, at each S we ran.
  ECD beside Sprite  the variable cache (no penalty) against the fastest fixed cache of the sizes
                     we ran, at each memory size, against the same ratio in Appendix C.
  ECD beside Linux   the bytes each moved to and from the disk (file and VM), at each memory
                     size both ran; elapsed times only where Linux ran at our CPU speed.

"ahead" means a smaller figure by more than LEVEL (5 %), "behind" a larger one, "level" between.
The CSVs' modification times are reported, so a headline made of runs far apart says so."""
import datetime, os, statistics

from ecd_paper import APPENDIX_C, aggregate as ecd_aggregate, label, linux_rows
import ifs_tables
from ifs_tables import slowest_touch_ms

LEVEL = 0.05
INSTANT_MS = 100        # WRL 90/4's instant response: a touch of at most 0.1 s
SOURCES = ["ifs.csv", "linux-ifs.csv", "ecd.csv", "linux-ecd.csv"]


class Lacking(Exception):
    """A CSV the headline needs is missing or has no rows it can compare."""


def verdict(ours, theirs, floor=0):
    """'ahead', 'level' or 'behind' for figures where less is better; two figures both at or
    below floor are level (a touch of 3 ms is as instant as one of 2 ms)."""
    if ours <= floor and theirs <= floor:
        return "level"
    if ours < theirs * (1 - LEVEL):
        return "ahead"
    if ours > theirs * (1 + LEVEL):
        return "behind"
    return "level"


def _join(parts):
    return "; ".join(parts)


def overall(verdicts):
    """verdicts: [(where, word)]. One word if they all agree, else each word with where it holds:
    'behind at 10 MB, ahead at 16 MB'."""
    words = [w for _, w in verdicts]
    if len(set(words)) == 1:
        return words[0]
    order = list(dict.fromkeys(words))
    return ", ".join("%s at %s" % (w, " and ".join(where for where, ww in verdicts if ww == w)) for w in order)


def ifs_linux(ours_rows, linux_csv_rows):
    agg, base = ifs_tables.aggregate(ours_rows, "matched")
    lin = ifs_tables.linux(linux_csv_rows, "matched")
    if not agg or not base or not lin or not lin[1]:
        raise Lacking("the matched IFS preset and Linux's runs of it, each with sort alone")
    lagg, lbase, lfree = lin
    free = [float(r["free_kb"]) for r in ours_rows if r["preset"] == "matched" and r.get("free_kb")]
    both = sorted(s for (p, m, s) in agg if p == 120 and m == "fixed" and s in lagg and lagg[s]["sort_ms"])
    if not both:
        raise Lacking("an S at which both kernels ran the matched IFS mix (ours with the 120 s penalty)")
    sort_parts, touch_parts, sort_v, touch_v = [], [], [], []
    for s in both:
        a, la = agg[(120, "fixed", s)], lagg[s]
        sort_v.append(("S = %g s" % s, verdict(a["sort_ms"], la["sort_ms"])))
        sort_parts.append("at S = %g s %.0f s (%+.0f %% over sort alone) here, %.0f s (%+.0f %%) under Linux" % (
            s, a["sort_ms"] / 1000, a["deg"], la["sort_ms"] / 1000, la["deg"]))
        mine, theirs = slowest_touch_ms(a), slowest_touch_ms(la)
        touch_v.append(("S = %g s" % s, verdict(mine, theirs, INSTANT_MS)))
        touch_parts.append("%.2f s here, %.2f s under Linux at S = %g s" % (mine / 1000, theirs / 1000, s))
    none = [(s, agg[(0, "fixed", s)]) for s in both if (0, "fixed", s) in agg]
    contrast = (" Without a penalty our toucher's slowest touch was %s." % ", ".join(
        "%.2f s at S = %g s" % (slowest_touch_ms(a) / 1000, s) for s, a in none)) if none else ""
    return ("**IFS beside Linux 6.1: sort %s, the toucher %s.** The matched preset (%s MB free to programs here, "
            "%s MB available under Linux; the same toucher, its memory written first on both, and sort, CPU "
            "and disk): sort alone took %.0f s here "
            "and %.0f s under Linux; with the toucher and our 120 s penalty %s. The toucher's slowest touch: "
            "%s.%s" % (overall(sort_v), overall(touch_v),
                       "%.1f" % (statistics.median(free) / 1024) if free else "?",
                       "%.1f" % (lfree / 1024) if lfree else "?",
                       base / 1000, lbase / 1000, _join(sort_parts), _join(touch_parts), contrast))


def ifs_sprite(ours_rows):
    agg, base = ifs_tables.aggregate(ours_rows, "paper")
    if not agg or not base:
        raise Lacking("the paper IFS preset with sort alone")
    parts, sort_v, ins_v = [], [], []
    for pen, what in ((120, "With the 120 s penalty"), (0, "Without a penalty")):
        got = sorted(s for (p, m, s) in agg if p == pen and m == "fixed" and s in ifs_tables.PAPER[pen])
        if not got:
            continue
        cells = []
        for s in got:
            a, sp = agg[(pen, "fixed", s)], ifs_tables.PAPER[pen][s]
            where = "S = %g s%s" % (s, "" if pen else " without a penalty")
            sort_v.append((where, verdict(100 + a["deg"], 100 + sp[4])))     # sort's time over its own alone
            if not pen:         # with the penalty both kernels' page-ins are about none
                ins_v.append(("S = %g s" % s, verdict(a["pageins"], sp[5])))
            cells.append("S = %g s: sort %+.0f %% (Sprite %+d %%), %s page-ins (Sprite %s)" % (
                s, a["deg"], sp[4], "{:,}".format(int(round(a["pageins"]))), "{:,}".format(sp[5])))
        parts.append("%s, %s." % (what, _join(cells)))
    if not parts:
        raise Lacking("a paper-preset run at one of the S of Tables 3 and 4")
    return ("**IFS beside Sprite: sort's degradation %s; without a penalty, page-ins %s.** The paper preset "
            "against WRL 90/4's Tables 3 and 4 (sort's time over its own sort alone; all page-ins). %s" % (
                overall(sort_v), overall([(w, {"ahead": "fewer", "behind": "more"}.get(v, v)) for w, v in ins_v])
                if ins_v else "not run", " ".join(parts)))


def ecd_sprite(agg):
    parts, v = [], []
    for m in sorted({m for m, c in agg if c == "p0"}):
        fixed = {c: a["elapsed_ms"] / 1000 for (mm, c), a in agg.items() if mm == m and c.endswith("M")}
        if not fixed:
            continue
        best = min(fixed, key=fixed.get)
        var = agg[(m, "p0")]["elapsed_ms"] / 1000
        sprite_fixed = {c: APPENDIX_C[m][c][1] for c in fixed if c in APPENDIX_C.get(m, {})}
        sprite = ""
        if sprite_fixed and "p0" in APPENDIX_C.get(m, {}):
            sbest = min(sprite_fixed, key=sprite_fixed.get)
            sratio = APPENDIX_C[m]["p0"][1] / sprite_fixed[sbest]
            v.append(("%d MB" % m, verdict(var / fixed[best], sratio)))
            sprite = "; Sprite's %d s against %d s (%s), %+.0f %%" % (
                APPENDIX_C[m]["p0"][1], sprite_fixed[sbest], label(sbest), 100 * (sratio - 1))
        parts.append("at %d MB %.0f s against %.0f s (%s), %+.0f %%%s" % (
            m, var, fixed[best], label(best), 100 * (var / fixed[best] - 1), sprite))
    if not parts:
        raise Lacking("an ECD memory size with the variable cache and a fixed one")
    return ("**ECD beside Sprite: the variable cache against the best fixed one %s.** Its elapsed time "
            "without a penalty against the fastest fixed cache we ran, and the same in Appendix C (the paper: "
            "about as fast as the best fixed one): %s." % (overall(v) if v else "not comparable", _join(parts)))


def ecd_linux(agg, linux):
    lagg = ecd_aggregate(linux)
    parts, v, tv = [], [], []
    for m in sorted({m for m, c in lagg}):
        ours = {c: a for (mm, c), a in agg.items() if mm == m and c != "linux"}
        if not ours:
            continue
        least = min(ours, key=lambda c: ours[c]["total_mb"])
        la = lagg[(m, "linux")]
        v.append(("%d MB" % m, verdict(ours[least]["total_mb"], la["total_mb"])))
        parts.append("at Sprite's %d MB %.0f MB (%s; file %.0f, VM %.0f) here, %.0f MB (file %.0f, swap %.0f) under "
                     "Linux" % (m, ours[least]["total_mb"], label(least), ours[least]["fs_mb"], ours[least]["vm_mb"],
                                la["total_mb"], la["fs_mb"], la["vm_mb"]))
    if not parts:
        raise Lacking("a memory size at which both kernels ran the ECD phases")
    first = linux[0]
    times = ""
    if first.get("icount_shift"):
        cells = []
        for m in sorted({m for m, c in lagg}):
            ours = {c: a["elapsed_ms"] for (mm, c), a in agg.items() if mm == m and c != "linux"}
            if ours:
                best = min(ours, key=ours.get)
                tv.append(("%d MB" % m, verdict(ours[best], lagg[(m, "linux")]["elapsed_ms"])))
                cells.append("at %d MB %.0f s here (%s), %.0f s under Linux" % (
                    m, ours[best] / 1000, label(best), lagg[(m, "linux")]["elapsed_ms"] / 1000))
        times = " Elapsed, at the same CPU speed: %s." % _join(cells)
        edit = [(agg[k]["ms_edit"], lagg[(k[0], "linux")]["ms_edit"]) for k in agg
                if k[1] != "linux" and (k[0], "linux") in lagg and agg[k].get("ms_edit") and
                lagg[(k[0], "linux")].get("ms_edit")]
        if edit:
            ratio = statistics.mean(l / o for o, l in edit)
            times += (" The edit phase, which barely touches the disk, took %.1f times as long under Linux: at "
                      "this CPU speed much of the difference is each kernel's own cost per fault and system call, "
                      "not how it shares memory." % ratio)
    else:
        times = (" Elapsed times are not compared: this run's Linux (preset %s) ran at full CPU speed." %
                 first["preset"])
    return ("**ECD beside Linux 6.1: disk traffic %s, time %s.** The same phases on the same memory and disk; "
            "the bytes moved by our least-traffic cache: %s.%s" % (
                overall(v), overall(tv) if tv else "not compared", _join(parts), times))


def when(bench):
    """The span of the source CSVs' modification times, in UTC."""
    stamps = [os.path.getmtime(os.path.join(bench, f)) for f in SOURCES]
    lo, hi = (datetime.datetime.fromtimestamp(t, datetime.timezone.utc) for t in (min(stamps), max(stamps)))
    span = (max(stamps) - min(stamps)) / 3600
    text = "written between %s and %s UTC" % (lo.strftime("%Y-%m-%d %H:%M"), hi.strftime(
        "%H:%M" if lo.date() == hi.date() else "%Y-%m-%d %H:%M"))
    if span > 12:
        text += " (%.0f hours apart: not one run)" % span
    return text


def headline(bench, load):
    """The headline's text from the CSVs under bench; load(bench, name) reads one (raising the
    caller's Missing when it is absent). Raises Lacking when a CSV has nothing to compare."""
    ifs = load(bench, "ifs.csv")
    lifs = load(bench, "linux-ifs.csv")
    ecd_all = load(bench, "ecd.csv")
    load(bench, "linux-ecd.csv")
    preset = next((p for p in ("full", "short") if any(r["preset"] == p for r in ecd_all)), None)
    if preset is None:
        raise Lacking("ECD runs of the full or the short preset")
    agg = ecd_aggregate([r for r in ecd_all if r["preset"] == preset])
    linux = linux_rows(os.path.join(bench, "linux-ecd.csv"))
    if not linux:
        raise Lacking("Linux's ECD runs")
    items = [ifs_linux(ifs, lifs), ifs_sprite(ifs), ecd_sprite(agg), ecd_linux(agg, linux)]
    return items, "From the CSVs of build/bench (%s; ECD preset %s, Linux's ECD preset %s):" % (
        when(bench), preset, linux[0]["preset"])
