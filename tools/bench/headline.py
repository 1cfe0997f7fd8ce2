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

VERDICTS ON SPREADS. A figure of several runs is a range, min to max, and shown as its median
with the range; Sprite's figures are the paper's averages, a point each. "ahead" means every run of
ours gave a smaller figure than every run (or the point) of the other side, "behind" every run a
larger one, "level" that the ranges overlap: a difference inside the runs' own spread is no
difference. A side measured here with a single run a point has no spread, and its verdict is
"one run: no verdict" (issue 36: one run a point made "behind at 10 MB, level at 16 MB" of two
+4 % gaps). The CSVs' modification times are reported, so a headline made of runs far apart says so."""
import datetime, os, statistics

from ecd_paper import APPENDIX_C, aggregate as ecd_aggregate, config_key, label, linux_rows
import ifs_tables
from ifs_tables import slowest_touch_ms, spread
import targets

INSTANT_MS = 100        # WRL 90/4's instant response: a touch of at most 0.1 s
ONE_RUN = "one run: no verdict"
SOURCES = ["ifs.csv", "linux-ifs.csv", "ecd.csv", "linux-ecd.csv"]


class Lacking(Exception):
    """A CSV the headline needs is missing or has no rows it can compare."""


def verdict(ours, theirs, floor=0):
    """'ahead', 'level' or 'behind' for figures where less is better (VERDICTS above). Each side
    is a list of its runs' figures, or a number quoted from a paper (a point); a measured side of
    fewer than 2 runs gives ONE_RUN. Two sides whose every figure is at or below floor are level
    (a touch of 3 ms is as instant as one of 2 ms)."""
    point = lambda x: isinstance(x, (int, float))
    if any(not point(x) and len(x) < 2 for x in (ours, theirs)):
        return ONE_RUN
    lo, hi = (ours, ours) if point(ours) else (min(ours), max(ours))
    tlo, thi = (theirs, theirs) if point(theirs) else (min(theirs), max(theirs))
    if hi <= floor and thi <= floor:
        return "level"
    if hi < tlo:
        return "ahead"
    if lo > thi:
        return "behind"
    return "level"


def seconds(values):
    """Milliseconds of the runs as seconds, median [min–max]: '100 s [96–104]'."""
    return spread([v / 1000 for v in values], lambda x: "%.0f" % x, " s")


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
        sort_v.append(("S = %g s" % s, verdict(a["of"]["sort_ms"], la["of"]["sort_ms"])))
        sort_parts.append("at S = %g s %s (%+.0f %% over sort alone) here, %s (%+.0f %%) under Linux" % (
            s, seconds(a["of"]["sort_ms"]), a["deg"], seconds(la["of"]["sort_ms"]), la["deg"]))
        touch_v.append(("S = %g s" % s, verdict(a["slowest_of"], la["slowest_of"], INSTANT_MS)))
        touch = lambda x: spread([v / 1000 for v in x["slowest_of"]], lambda v: "%.2f" % v, " s")
        touch_parts.append("%s here, %s under Linux at S = %g s" % (touch(a), touch(la), s))
    none = [(s, agg[(0, "fixed", s)]) for s in both if (0, "fixed", s) in agg]
    contrast = (" Without a penalty our toucher's slowest touch was %s." % ", ".join(
        "%.2f s at S = %g s" % (slowest_touch_ms(a) / 1000, s) for s, a in none)) if none else ""
    return ("**IFS beside Linux 6.1 (sort: %s; the toucher: %s).** The matched preset (%s MB free to programs here, "
            "%s MB available under Linux; the same toucher, its memory written first on both, and sort, CPU "
            "and disk): sort alone took %s here "
            "and %s under Linux; with the toucher and our 120 s penalty %s. The toucher's slowest touch: "
            "%s.%s" % (overall(sort_v), overall(touch_v),
                       "%.1f" % (statistics.median(free) / 1024) if free else "?",
                       "%.1f" % (lfree / 1024) if lfree else "?",
                       seconds(ifs_tables.standalone_runs(ours_rows, "matched")),
                       seconds(ifs_tables.standalone_runs([r for r in linux_csv_rows if r.get("preset") == "matched"]
                                                          or linux_csv_rows)),
                       _join(sort_parts), _join(touch_parts), contrast))


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
            # sort's time over its own alone; Sprite's a point (the paper's average of 3)
            sort_v.append((where, verdict([100 + d for d in a["deg_of"]], 100 + sp[4])))
            if not pen:         # with the penalty both kernels' page-ins are about none
                ins_v.append(("S = %g s" % s, verdict(a["of"]["pageins"], sp[5])))
            cells.append("S = %g s: sort %s (Sprite %+d %%), %s page-ins (Sprite %s)" % (
                s, spread(a["deg_of"], lambda x: "%+.0f" % x, " %"), sp[4],
                spread(a["of"]["pageins"], lambda x: "{:,}".format(int(round(x)))), "{:,}".format(sp[5])))
        parts.append("%s, %s." % (what, _join(cells)))
    if not parts:
        raise Lacking("a paper-preset run at one of the S of Tables 3 and 4")
    return ("**IFS beside Sprite (sort's degradation: %s; without a penalty, page-ins: %s).** The paper preset "
            "against WRL 90/4's Tables 3 and 4 (sort's time over its own sort alone; all page-ins). %s" % (
                overall(sort_v), overall([(w, {"ahead": "fewer", "behind": "more"}.get(v, v)) for w, v in ins_v])
                if ins_v else "not run", " ".join(parts)))


def ecd_runs(rows):
    """{(paper MB, config): [each run's {"elapsed_ms", "total_mb"}]} of ECD rows (ours or Linux's)."""
    out = {}
    for r in rows:
        mb = sum(float(r[k] or 0) for k in ("fs_read_kb", "fs_write_kb", "vm_read_kb", "vm_write_kb")) / 1024
        out.setdefault((int(r["mem_paper_mb"]), config_key(r)), []).append(
            {"elapsed_ms": float(r["elapsed_ms"]), "total_mb": mb})
    return out


def _of(runs, key, k):
    return [x[k] for x in runs.get(key, [])]


def ratio_verdict(var, fixed, sprite):
    """The variable cache's time over the fixed one's, ours (each a list of runs) against
    Sprite's ratio (a point): the range of ours is every run of one over every run of the other."""
    if len(var) < 2 or len(fixed) < 2:
        return ONE_RUN
    return verdict([v / f for v in var for f in fixed], sprite)


def ecd_sprite(agg, runs):
    parts, v = [], []
    for m in sorted({m for m, c in agg if c == "p0"}):
        med = lambda c: statistics.median(_of(runs, (m, c), "elapsed_ms")) / 1000
        fixed = {c: med(c) for (mm, c) in agg if mm == m and c.endswith("M")}
        if not fixed:
            continue
        best = min(fixed, key=fixed.get)
        var = med("p0")
        sprite_fixed = {c: APPENDIX_C[m][c][1] for c in fixed if c in APPENDIX_C.get(m, {})}
        sprite = ""
        if sprite_fixed and "p0" in APPENDIX_C.get(m, {}):
            sbest = min(sprite_fixed, key=sprite_fixed.get)
            sratio = APPENDIX_C[m]["p0"][1] / sprite_fixed[sbest]
            v.append(("%d MB" % m, ratio_verdict(_of(runs, (m, "p0"), "elapsed_ms"), _of(runs, (m, best), "elapsed_ms"),
                                                 sratio)))
            sprite = "; Sprite's %d s against %d s (%s), %+.0f %%" % (
                APPENDIX_C[m]["p0"][1], sprite_fixed[sbest], label(sbest), 100 * (sratio - 1))
        parts.append("at %d MB %s against %s (%s), %+.0f %%%s" % (
            m, seconds(_of(runs, (m, "p0"), "elapsed_ms")), seconds(_of(runs, (m, best), "elapsed_ms")), label(best),
            100 * (var / fixed[best] - 1), sprite))
    if not parts:
        raise Lacking("an ECD memory size with the variable cache and a fixed one")
    return ("**ECD beside Sprite (the variable cache against the best fixed one: %s).** Its elapsed time "
            "without a penalty against the fastest fixed cache we ran (median [min–max] of the runs), and the same in Appendix C (the paper: about as fast as the best fixed one): %s." % (
                overall(v) if v else "not comparable", _join(parts)))


def ecd_linux(agg, linux, runs):
    lagg = ecd_aggregate(linux)
    lruns = ecd_runs(linux)
    mb = lambda x: spread(x, lambda y: "%.0f" % y, " MB")
    parts, v, tv = [], [], []
    for m in sorted({m for m, c in lagg}):
        ours = {c: a for (mm, c), a in agg.items() if mm == m and c != "linux"}
        if not ours:
            continue
        least = min(ours, key=lambda c: ours[c]["total_mb"])
        la = lagg[(m, "linux")]
        v.append(("%d MB" % m, verdict(_of(runs, (m, least), "total_mb"), _of(lruns, (m, "linux"), "total_mb"))))
        parts.append("at Sprite's %d MB %s (%s; file %.0f, VM %.0f) here, %s (file %.0f, swap %.0f) under "
                     "Linux" % (m, mb(_of(runs, (m, least), "total_mb")), label(least), ours[least]["fs_mb"],
                                ours[least]["vm_mb"], mb(_of(lruns, (m, "linux"), "total_mb")), la["fs_mb"], la["vm_mb"]))
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
                tv.append(("%d MB" % m, verdict(_of(runs, (m, best), "elapsed_ms"),
                                                _of(lruns, (m, "linux"), "elapsed_ms"))))
                cells.append("at %d MB %s here (%s), %s under Linux" % (
                    m, seconds(_of(runs, (m, best), "elapsed_ms")), label(best),
                    seconds(_of(lruns, (m, "linux"), "elapsed_ms"))))
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
    return ("**ECD beside Linux 6.1 (disk traffic: %s; time: %s).** The same phases on the same memory and disk; "
            "the bytes moved by our least-traffic cache: %s.%s" % (
                overall(v), overall(tv) if tv else "not compared", _join(parts), times))


def targets_item(ifs_rows, ecd_rows):
    """Every target of the runs (tools/bench/targets.py), each with its control and the control's
    figure beside its own: a target its control meets too is said to be no target."""
    heads, clauses = [], []
    for name, judged in [("%s IFS preset" % p, targets.judge_ifs(ifs_tables.aggregate(ifs_rows, p)[0]))
                         for p in ("paper", "matched")] + [("ECD", targets.judge_ecd(ecd_rows))]:
        if judged:
            heads.append("%s: %s" % (name, targets.tally(judged)))
            clauses += ["%s, %s" % (name, t) for t in targets.sentences(judged)]
    if not heads:
        return "**Targets and their controls: none run.**"
    return ("**Targets and their controls (%s).** Each target is judged beside its control, the configuration "
            "that must fail it (the no-penalty rows for the penalty's, the fixed 64 KB cache for ECD's variable "
            "cache); a target its control meets too cannot fail and is no target: %s." % (
                "; ".join(heads), "; ".join(clauses)))


def when(bench, rows=()):
    """The span of the runs' dates (their rows' date column, benchlib.run_identity), or of the
    source CSVs' modification times where a row has no date, in UTC; and the commits the rows
    name, when they name more than one."""
    dates = [r.get("date") for r in rows]
    if rows and all(dates):
        stamps = [datetime.datetime.strptime(d, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp()
                  for d in dates]
    else:
        stamps = [os.path.getmtime(os.path.join(bench, f)) for f in SOURCES]
    lo, hi = (datetime.datetime.fromtimestamp(t, datetime.timezone.utc) for t in (min(stamps), max(stamps)))
    span = (max(stamps) - min(stamps)) / 3600
    text = "written between %s and %s UTC" % (lo.strftime("%Y-%m-%d %H:%M"), hi.strftime(
        "%H:%M" if lo.date() == hi.date() else "%Y-%m-%d %H:%M"))
    if span > 12:
        text += " (%.0f hours apart: not one run)" % span
    commits = sorted({r["commit"] for r in rows if r.get("commit")})
    if len(commits) > 1:
        text += " (of commits %s: not one tree)" % ", ".join(commits)
    elif commits:
        text += " at commit %s" % commits[0]
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
    runs = ecd_runs([r for r in ecd_all if r["preset"] == preset])
    items = [ifs_linux(ifs, lifs), ifs_sprite(ifs), ecd_sprite(agg, runs), ecd_linux(agg, linux, runs),
             targets_item(ifs, [r for r in ecd_all if r["preset"] == preset])]
    return items, "From the CSVs of build/bench (%s; ECD preset %s, Linux's ECD preset %s):" % (
        when(bench, ifs + lifs + ecd_all + linux), preset, linux[0]["preset"])
