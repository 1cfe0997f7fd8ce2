"""The IFS benchmark's tables (tools/bench/bench_ifs.py): WRL 90/4's own Tables 3 and 4, the
gathering of the runs' rows of build/bench/ifs.csv into the same shape, Linux's rows from
build/bench/linux-ifs.csv beside them, and the one table both the printed summary and the docs
(tools/bench/results.py) show. Apart from bench_ifs.py because bench_ifs.py draws its figures
with bench_figures.py, which draws the tables' figure from these: each of those two modules
imports this one, neither the other.

A row's configuration is (VALUE, MODE): (penalty s, "fixed" or "stepped") for the variable
cache, (KB, "cache") for a fixed cache of that size (fs.cache_fixed_kb; no penalty applies,
the cache neither grows past it nor gives it up). Variable-cache rows come first, by penalty,
then the fixed caches by size.

Linux's CSV has ifs.csv's column names where they apply (make bench-linux: one line a run, kind
"ifs" with the toucher at interval_s, "standalone" for sort alone); a column it leaves out or
empty stays empty in the table, never a zero. Its page-ins and page-outs are swap-ins and -outs
(4 KB pages on i386, as ours), toucher_pageins the toucher's major faults, and what it had free
after boot its MemAvailable (available_after_boot_kb; free_kb if that is missing).

SPREADS. A row of several runs shows each figure as the runs' median with their least and
greatest, "119.0 [117.2–121.5]" (issue 36: a verdict needs the spread, and a mean of three hides
it); a row of one run shows its figure alone. The cache's sizes and the asks are the runs'
medians. Each row keeps every run's figure of each column (a["of"][column]), its degradation
(a["deg_of"]) and its slowest touch (a["slowest_of"]) for the verdicts (tools/bench/headline.py)."""
import csv, os, statistics

# The paper's Tables 3 (no penalty) and 4 (120 s), by sleep interval: response min, max, avg
# (s), sort time (s), degradation (%), page-ins, page-outs, cache min, max (KB). Averages of 3.
PAPER = {
    0: {1: (0.0, 4.7, 0.1, 79.6, 33, 173, 456, 152, 784), 5: (0.0, 4.5, 0.8, 83.8, 40, 437, 509, 157, 842),
        10: (1.9, 13.3, 5.9, 103.4, 72, 1605, 1177, 146, 1226), 30: (12.5, 22.0, 15.8, 96.3, 61, 1250, 983, 141, 2533)},
    120: {1: (0.0, 0.4, 0.03, 74.8, 25, 1, 4, 64, 178), 5: (0.0, 0.1, 0.02, 72.8, 21, 0, 0, 64, 168),
          10: (0.0, 0.1, 0.01, 72.1, 20, 0, 0, 64, 168), 30: (0.0, 0.1, 0.03, 74.0, 23, 0, 0, 64, 168)},
}
PAPER_STANDALONE_S = 60
PAGE = 4096
SPRITE_PAGE = 8192        # a Sun-3's page: Table 3 counts these
CALIBRATED_S = (5, 30)    # the intervals the paper preset is calibrated at (issue 36)
CALIBRATION_FACTOR = 2    # ... within this factor of Table 3, in bytes paged in and in sort's degradation
TOO_SLOW_CELL = "guest too slow: not measured"     # benchlib.TOO_SLOW (not imported: benchlib boots QEMU)
FIXED_CACHE_COST = 25     # WRL 90/4 section 4: a small fixed cache costs sort at most 25 %
# Numbers that reach the text, each with what it is (tests/host/test_bench_literals.py).
PRINTED_CONSTANTS = {"PAGE": "a unit: bytes a page", "SPRITE_PAGE": "a unit: bytes a Sun-3 page",
                     "CALIBRATION_FACTOR": "the calibration's bound (a setting)"}

AVERAGED = ("resp_min_ms", "resp_max_ms", "resp_avg_ms", "after_ms", "after_pageins", "sort_ms", "pageins",
            "pageouts", "toucher_pageins", "toucher_pageouts", "cache_min_kb", "cache_max_kb", "fs_asks_vm",
            "fs_asks_vm_satisfied", "vm_asks_fs", "vm_asks_fs_satisfied", "free_kb", "rounds")


def config_of(r):
    """(VALUE, MODE) of a CSV row (see the module's docstring)."""
    if r.get("mode") == "cache":
        return int(r["cache_fixed_kb"]), "cache"
    return int(r["penalty_s"]), r["mode"]


def config_order(c):
    return (c[1] == "cache", c[0], c[1])


def config_label(value, mode):
    if value is None:
        return "none"
    if mode == "cache":
        return "%d KB fixed cache" % value
    if mode == "adaptive":
        return "adaptive"
    if mode == "ignored":
        return "bias ignored"
    return "%d s%s" % (value, " stepped" if mode == "stepped" else "")


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def measured(r):
    """Whether a row is a run's figures: not refused for a guest too slow (benchlib.TOO_SLOW)."""
    return r.get("refused") != TOO_SLOW_CELL


def mechanism_of(r):
    """Whose mechanism a row ran (bench_ifs.py --mechanism): ours, or sprite (the ablation's:
    SPRITE_MECHANISM of bench_ifs.py). A row recorded before the ablation, or Linux's, is ours."""
    return r.get("mechanism") or "ours"


def refused(rows, preset, mechanism="ours"):
    """The points (value, mode, interval) of a preset whose every run was refused (the guest too
    slow), sorted as the table's: each is a row of the table that says it was not measured."""
    runs = {}
    for r in rows:
        if r["preset"] == preset and r["kind"] == "ifs" and mechanism_of(r) == mechanism:
            runs.setdefault(config_of(r) + (float(r["interval_s"]),), []).append(measured(r))
    return sorted((k for k, ok in runs.items() if not any(ok)), key=lambda k: (config_order(k[:2]), k[2]))


def standalone_runs(rows, preset=None, mechanism="ours"):
    """Sort alone's milliseconds in each measured run (of preset, if given) of the mechanism."""
    return [float(r["sort_ms"]) for r in rows if (preset is None or r["preset"] == preset)
            and r["kind"] == "standalone" and r.get("sort_ms") and measured(r) and mechanism_of(r) == mechanism]


def standalone_ms(rows, preset=None, mechanism="ours"):
    alone = standalone_runs(rows, preset, mechanism)
    return statistics.median(alone) if alone else None


def _values(rs, k):
    """Column k's figures of the runs that have it (a column Linux does not measure, a run with
    no round during sort: none)."""
    return [float(r[k]) for r in rs if r.get(k) not in (None, "")]


def _median(rs, k):
    """The median of column k over the runs that have it, or None when none has."""
    vals = _values(rs, k)
    return statistics.median(vals) if vals else None


def _spreads(rs, a, base):
    """Every run's figures, kept in the row a: of each column, of the degradation against base,
    and of the slowest touch (during sort or the first after it)."""
    a["of"] = {k: _values(rs, k) for k in AVERAGED}
    a["deg_of"] = [100 * (float(r["sort_ms"]) / base - 1) for r in rs if r.get("sort_ms")] if base else []
    a["slowest_of"] = [max(float(r.get("resp_max_ms") or 0), float(r.get("after_ms") or 0)) for r in rs]


def spread(values, fmt, unit=""):
    """A figure of several runs as median [min–max] ("119.0 s [117.2–121.5]" with unit " s"), of
    one run alone; "" for none. fmt: a number to text."""
    if not values:
        return ""
    text = fmt(statistics.median(values)) + unit
    return text if len(values) == 1 else "%s [%s–%s]" % (text, fmt(min(values)), fmt(max(values)))


def aggregate(rows, preset, mechanism="ours"):
    """{(value, mode, interval): medians over the runs} for one preset and mechanism, with 'deg'
    (%) against the median standalone sort of the same, every run's figures (SPREADS above), and
    worst-run figures for the targets."""
    base = standalone_ms(rows, preset, mechanism)
    groups = {}
    for r in rows:
        if r["preset"] == preset and r["kind"] == "ifs" and measured(r) and mechanism_of(r) == mechanism:
            groups.setdefault(config_of(r) + (float(r["interval_s"]),), []).append(r)
    out = {}
    for key, rs in groups.items():
        a = {k: _median(rs, k) for k in AVERAGED}
        a["runs"] = len(rs)
        a["deg"] = 100 * (a["sort_ms"] / base - 1) if base else None
        _spreads(rs, a, base)
        a["worst_toucher_pageins"] = max(int(r["toucher_pageins"]) for r in rs)
        a["worst_resp_max_ms"] = max(int(r["resp_max_ms"] or 0) for r in rs)
        a["worst_after_ms"] = max(int(r.get("after_ms") or 0) for r in rs)
        a["worst_deg"] = max(100 * (float(r["sort_ms"]) / base - 1) for r in rs) if base else None
        out[key] = a
    return out, base


def slowest_touch_ms(a):
    """The slowest touch of a row (ours or Linux's): during sort or the first after it."""
    return max(x for x in (a.get("resp_max_ms"), a.get("after_ms"), 0) if x is not None)


def ordered(agg):
    return sorted(agg.items(), key=lambda kv: (config_order(kv[0][:2]), kv[0][2]))


def linux(rows, preset, setup="default"):
    """Linux's rows (of linux-ifs.csv) of one setup (bench_linux.SETUPS; a row recorded before
    setups were is the default's): ({interval: medians}, its median sort alone, its free KB
    after boot), or None without any. The rows of this preset if it names any, else all."""
    rows = [r for r in rows if (r.get("setup") or "default") == setup]
    if not rows:
        return None
    mine = [r for r in rows if r.get("preset") == preset]
    rows = mine or rows
    base = standalone_ms(rows)
    groups = {}
    for r in rows:
        if r.get("kind") == "ifs" and r.get("interval_s"):
            groups.setdefault(float(r["interval_s"]), []).append(r)
    out = {}
    for s, rs in groups.items():
        a = {k: _median(rs, k) for k in AVERAGED}
        a["runs"] = len(rs)
        a["deg"] = 100 * (a["sort_ms"] / base - 1) if base and a["sort_ms"] is not None else None
        _spreads(rs, a, base)
        out[s] = a
    free = _median(rows, "available_after_boot_kb")
    return out, base, free if free is not None else _median(rows, "free_kb")


# --- the table ---------------------------------------------------------------------------------
def _s(ms):
    return "%.2f" % (ms / 1000) if ms is not None else ""


def _n(x):
    return "{:,}".format(int(round(x))) if x is not None else ""


def _mb(pages, page=PAGE):
    """MB in so many pages of page bytes."""
    return pages * page / (1 << 20)


def _pages(x):
    """Pages, and bytes as MB: '1,234 (4.8 MB)'."""
    return "" if x is None else "%s (%.1f MB)" % (_n(x), _mb(x))


def _pair(a, b, sep=" / "):
    """'a / b'; a half not measured is a dash, both: empty."""
    return "" if a is None and b is None else "%s%s%s" % (_n(a) or "–", sep, _n(b) or "–")


def table(agg, paper=False, linux_rows=None, too_slow=(), linux_protected=None):
    """The rows of the IFS table, each a list of cells, the header first: ours by configuration
    and S, then Linux's by S (cells it does not measure empty), Debian's setup and then the
    protected one (bench_linux.py's control rows) when given; the paper's Tables 3 and 4 in a
    last column when paper (the paper preset's sizes are the paper's; no other preset's are).
    too_slow: the points (refused) whose every run was refused, each a row that says so."""
    head = ["kernel", "cache", "S", "touches during sort: min / max / avg s (n)", "first touch after sort: s, page-ins",
            "sort s", "deg", "page-ins (all)", "page-outs (all)", "toucher's ins / outs", "cache KB (medians)",
            "fs asks vm: given / asked (medians)", "vm asks fs: given / asked (medians)"]
    if paper:
        head.append("Sprite (Tables 3, 4): response, sort, deg, ins / outs, cache")
    out = [head]

    def cells(a, s):
        of = a["of"]
        pages = lambda k: "" if a[k] is None else _pages(a[k]) + (
            "" if len(of[k]) < 2 else " [%s–%s]" % (_n(min(of[k])), _n(max(of[k]))))
        ins_outs = "" if a["toucher_pageins"] is None and a["toucher_pageouts"] is None else "%s / %s" % (
            spread(of["toucher_pageins"], _n) or "–", spread(of["toucher_pageouts"], _n) or "–")
        during = "" if a["resp_max_ms"] is None else "%s / %s / %s%s" % (
            _s(a["resp_min_ms"]), spread(of["resp_max_ms"], _s), _s(a["resp_avg_ms"]),
            " (%g)" % a["rounds"] if a["rounds"] is not None else "")
        after = "" if a["after_ms"] is None else "%s, %s" % (spread(of["after_ms"], _s), spread(of["after_pageins"], _n))
        return ["%g" % s, during, after, spread(of["sort_ms"], lambda x: "%.1f" % (x / 1000)),
                spread(a["deg_of"], lambda x: "%+.0f" % x, " %"), pages("pageins"), pages("pageouts"),
                ins_outs, _pair(a["cache_min_kb"], a["cache_max_kb"], "–"),
                _pair(a["fs_asks_vm_satisfied"], a["fs_asks_vm"]), _pair(a["vm_asks_fs_satisfied"], a["vm_asks_fs"])]
    points = [(k, agg[k]) for k, _ in ordered(agg)] + [(k, None) for k in too_slow if k not in agg]
    for (v, m, s), a in sorted(points, key=lambda p: (config_order(p[0][:2]), p[0][2])):
        row = ["ours", config_label(v, m)] + (cells(a, s) if a else ["%g" % s, TOO_SLOW_CELL] + [""] * 9)
        if paper:
            sp = PAPER.get(v, {}).get(int(s)) if m == "fixed" and s == int(s) else None
            row.append("{} / {} / {} s, {} s, {} %, {} / {} ({:.1f} MB in), {}–{}".format(
                *sp[:7], _mb(sp[5], SPRITE_PAGE), *sp[7:]) if sp else "–")
        out.append(row)
    for label, rows in (("page cache", linux_rows), ("page cache, protected", linux_protected)):
        for s, a in sorted((rows or {}).items()):
            out.append(["Linux", label] + cells(a, s) + (["–"] if paper else []))
    return out


DISK_CLASSES = [("reads", "read_requests", "read_kb"), ("writes", "write_requests", "write_kb"),
                ("flushes", "flush_requests", None)]


def disk_table(rows, label):
    """The disk's requests and KB by class while sort ran (bench_ifs.REQUESTS; Linux's
    /proc/diskstats), median [min–max] of the runs: a row for each label(r) (a tuple of cells)
    and S, sort alone first. Runs recorded without the counts are left out; so is a class
    no run of the row counted."""
    groups = {}
    for r in rows:
        if r.get("read_requests") in (None, "") or not measured(r):
            continue
        s = float(r["interval_s"]) if r.get("kind") == "ifs" else -1.0
        groups.setdefault(tuple(label(r)) + (s,), []).append(r)
    width = max((len(k) - 1 for k in groups), default=1)
    out = [["kernel"] + ["configuration"] * (width - 1) + ["S"] + [
        "%s (KB)" % c if kb else c for c, _, kb in DISK_CLASSES]]
    for key in sorted(groups, key=lambda k: (k[:-1], k[-1])):
        rs = groups[key]
        cells = []
        for _, n, kb in DISK_CLASSES:
            vals = _values(rs, n)
            text = spread(vals, _n)
            if kb and _values(rs, kb):
                text += " (%s)" % spread(_values(rs, kb), _n)
            cells.append(text)
        out.append(list(key[:-1]) + ["sort alone" if key[-1] < 0 else "%g" % key[-1]] + cells)
    return out


def markdown(rows):
    return "\n".join(["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])] +
                     ["| " + " | ".join(r) + " |" for r in rows[1:]])


def calibration(agg):
    """How the paper preset's rows without a penalty stand against Table 3, in bytes: at each
    of CALIBRATED_S, the bytes paged in from backing store during sort (ours in 4 KB pages,
    Sprite's in 8 KB ones) and sort's degradation, each as ours over Sprite's, and whether
    every run is within CALIBRATION_FACTOR of it. Lines of text; one saying so where a point
    was not run."""
    out = []
    for s in CALIBRATED_S:
        a = agg.get((0, "fixed", float(s)))
        sp = PAPER[0][s]
        sprite_mb, sprite_deg = _mb(sp[5], SPRITE_PAGE), sp[4]
        if a is None:
            out.append("S = %d s: no run without a penalty (Sprite: %.1f MB paged in, sort %+d %%)"
                       % (s, sprite_mb, sprite_deg))
            continue
        mbs = [_mb(x) for x in a["of"]["pageins"]]
        degs = a["deg_of"]
        within = lambda vs, ref: bool(vs) and all(ref / CALIBRATION_FACTOR <= v <= ref * CALIBRATION_FACTOR for v in vs)
        ok = within(mbs, sprite_mb) and within(degs, sprite_deg)
        out.append("S = %d s: paged in %s against Sprite's %.1f MB, sort %s against %+d %%: %s"
                   % (s, spread(mbs, lambda x: "%.1f" % x, " MB"), sprite_mb,
                      spread(degs, lambda x: "%+.0f" % x, " %") or "(no sort alone)", sprite_deg,
                      "within a factor of %d" % CALIBRATION_FACTOR if ok else
                      "NOT within a factor of %d" % CALIBRATION_FACTOR))
    return out
