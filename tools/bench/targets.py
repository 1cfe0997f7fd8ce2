"""The benchmarks' targets and the negative control each must fail (issue 36, "Negative
controls"): one table, TARGETS, read by the IFS and ECD parts of results.md
(tools/bench/results.py) and by the headline (tools/bench/headline.py).

WHY A CONTROL. A target is a claim a table or the headline makes of one configuration: "the
120 s penalty keeps the toucher's page-ins at 0", "sort within 20 % of sort alone", "the
variable cache about as fast as the best fixed one". A claim is worth something only if the
benchmark could have refuted it, and the plainest way to know is to run the same point with
the mechanism taken out and see the claim fail there. Issue 36 found the opposite: on the old
paper preset the rows without any penalty met every penalty target at S <= 5 s, so "met" said
nothing about the penalty. So each target here names its control, the configuration that must
FAIL it:

  the penalty's targets    the no-penalty rows of the same preset and S
  the arbiter's targets    the same kernel with the learned bias ignored (vm.penalty_mode=
                           ignored, CSV mode "ignored": learned as adaptive learns it, not
                           applied); until it has rows, the no-penalty rows
  ECD's variable cache     the least fixed cache, 64 KB ("nocache", bench_ecd.NOCACHE_KB)
  a small fixed cache      WRL 90/4 section 4: instant response at a cost to sort of at most
                           25 %. Its response against the no-penalty rows (a variable cache
                           that takes the toucher's pages); its cost to sort against the fixed
                           64 KB cache: if even the least cache costs sort no more, sort does
                           not need a cache here and the bound says nothing about this one

and is judged at each point (an S for IFS, a memory size for ECD) on the target's rows and its
control's rows at that point:

  no control rows          "no control measured: not a target"
  the control meets it     "cannot fail (its control, X, meets it too)": no target
  the control in between   its runs on both sides of the target: "cannot fail (its control, X,
                           meets it in some runs)"; one run a point: "one run: no verdict",
                           as when the target itself has one
  the control fails it     the target's own word: met, missed, or no verdict

SPREADS (benchtrust, as tools/bench/headline.py's VERDICTS). A point is several runs. A target
on a bound (page-ins at most N, a touch at most 0.1 s, a degradation at most 20 %) is met when
every run meets it, missed when none does, and has no verdict when its runs straddle the bound
or when there is one run (no spread: "one run: no verdict"), for the target as for its control.
A target against another configuration (ECD's variable cache against the fastest fixed one) is
met when the two ranges overlap or the target's is below, missed when every run is slower than
every run of the other; with a single run on either side, "one run: no verdict". Each figure is
printed as its runs' median [min–max] (ifs_tables.spread), the control's beside it.

IFS toucher targets keep the older rule too: a point where the cache never asked the VM did not
exercise the penalty at all, and says so ("not tested") whatever its control shows."""
import collections
import statistics

from ifs_tables import FIXED_CACHE_COST, spread

INSTANT_MS = 100        # WRL 90/4's instant response: a touch of at most 0.1 s
DEG_PCT = 20            # WRL 90/4 section 4: the penalty costs sort at most about 20 %
S1_PAGEINS = 2          # Table 4 at S = 1 s: 1 page-in (an average of 3); at most 2 allowed
# Numbers that reach the text, each with what it is (tests/host/test_bench_literals.py).
PRINTED_CONSTANTS = {"INSTANT_MS": "WRL 90/4's instant response (a bound)", "DEG_PCT": "the penalty's target on sort",
                     "S1_PAGEINS": "the target at S = 1 s (Table 4's 1 page-in, with a page to spare)",
                     "FIXED_CACHE_COST": "WRL 90/4's target for a small fixed cache", "LEAST_CACHE_KB": "a setting"}
LEAST_CACHE_KB = 64     # the least cache there is (bench_ecd.NOCACHE_KB, fs.cache_min_kb's floor)

MET, MISSED = "met", "missed"
STRADDLES = "no verdict: its runs straddle the target"
ONE_RUN = "one run: no verdict"
NOT_TESTED = "not tested: the cache never asked the VM"
NO_CONTROL = "no control measured: not a target"

NO_PENALTY = ((0, "fixed"), "no penalty")
IGNORED = ((None, "ignored"), "the bias learned and ignored")   # vm.penalty_mode=ignored, any penalty
NOCACHE = ("nocache", "the fixed 64 KB cache")

# One target: its bench ("ifs" or "ecd"), its claim, the configuration it is a claim of, the
# controls it may be judged against (the first that has rows at the point), the points it holds
# at, and its test: test(config, point) -> (word, figure text), or None without rows there.
Target = collections.namedtuple("Target", "bench claim subject controls where test")


def on_bound(values, ok):
    """A bound on a point's runs (SPREADS above): met, missed, or its runs straddle it."""
    n = sum(1 for v in values if ok(v))
    return MET if n == len(values) else MISSED if n == 0 else STRADDLES


def _pages(xs):
    return spread(xs, lambda x: "{:,}".format(int(round(x))))


def _secs(xs):
    return spread([x / 1000 for x in xs], lambda x: "%.2f" % x, " s")


def _pct(xs):
    return spread(xs, lambda x: "%+.0f" % x, " %")


def ifs_test(figure, ok, fmt, toucher):
    """A bound on a figure of an IFS point's runs: figure(a) -> each run's figure of the row a
    (ifs_tables.aggregate). toucher: the bound is the toucher's, which only the cache's asks of
    the VM could have broken (the docstring's last paragraph)."""
    def test(agg, config, s, subject):
        if config[0] is None:           # a mode whatever its penalty (IGNORED)
            config = next((k[:2] for k in sorted(agg, key=str) if k[1] == config[1] and k[2] == s), config)
        a = agg.get(config + (s,))
        if a is None:
            return None
        values = figure(a)
        if not values:
            return None
        if toucher and subject and not a.get("fs_asks_vm"):
            return NOT_TESTED, fmt(values)
        if len(values) < 2:             # no spread to clear the bound with (SPREADS above)
            return ONE_RUN, fmt(values)
        return on_bound(values, ok), fmt(values)
    return test


def ecd_test(runs, config, m, subject):
    """ECD's variable-cache target at memory m: config's elapsed times against the fastest fixed
    cache's there (SPREADS above); runs: {(m, config): [each run's elapsed ms]}."""
    mine = runs.get((m, config))
    fixed = {c: v for (mm, c), v in runs.items() if mm == m and c.endswith("M")}
    if not mine or not fixed:
        return None
    best = min(fixed, key=lambda c: statistics.median(fixed[c]))
    whole = lambda xs: spread([x / 1000 for x in xs], lambda x: "%.0f" % x, " s")
    figure = "%s against fixed %s's %s" % (whole(mine), best, whole(fixed[best]))
    if len(mine) < 2 or len(fixed[best]) < 2:
        return ONE_RUN, figure
    return (MISSED if min(mine) > max(fixed[best]) else MET), figure


def _penalty_targets(subject, controls, who):
    toucher_ins = lambda a: a["of"]["toucher_pageins"]
    return [
        Target("ifs", "%s: the toucher's page-ins 0 at S >= 5 s" % who, subject, controls, lambda s: s >= 5,
               ifs_test(toucher_ins, lambda x: x == 0, _pages, True)),
        Target("ifs", "%s: the toucher's page-ins at most %d at S = 1 s" % (who, S1_PAGEINS), subject, controls,
               lambda s: s == 1, ifs_test(toucher_ins, lambda x: x <= S1_PAGEINS, _pages, True)),
        Target("ifs", "%s: its slowest touch at most %.1f s" % (who, INSTANT_MS / 1000), subject, controls,
               lambda s: True, ifs_test(lambda a: a["slowest_of"], lambda x: x <= INSTANT_MS, _secs, True)),
        Target("ifs", "%s: sort within %d %% of sort alone" % (who, DEG_PCT), subject, controls, lambda s: True,
               ifs_test(lambda a: a["deg_of"], lambda x: x <= DEG_PCT, _pct, False)),
    ]


TARGETS = _penalty_targets((120, "fixed"), [NO_PENALTY], "the 120 s penalty") + \
    _penalty_targets((0, "adaptive"), [IGNORED, NO_PENALTY], "the adaptive arbiter") + [
        Target("ecd", "the variable cache (no penalty) about as fast as the fastest fixed cache", "p0", [NOCACHE],
               lambda m: True, ecd_test)]


def fixed_cache_targets(sizes):
    """The targets of each fixed cache of sizes (KB) but the least, the control of their cost."""
    least = ((LEAST_CACHE_KB, "cache"), "the fixed %d KB cache" % LEAST_CACHE_KB)
    out = []
    for kb in sorted(sizes):
        if kb == LEAST_CACHE_KB:
            continue
        who = "the %d KB fixed cache" % kb
        out += [Target("ifs", "%s: the toucher's page-ins 0" % who, (kb, "cache"), [NO_PENALTY], lambda s: True,
                       ifs_test(lambda a: a["of"]["toucher_pageins"], lambda x: x == 0, _pages, False)),
                Target("ifs", "%s: its slowest touch at most %.1f s" % (who, INSTANT_MS / 1000), (kb, "cache"),
                       [NO_PENALTY], lambda s: True,
                       ifs_test(lambda a: a["slowest_of"], lambda x: x <= INSTANT_MS, _secs, False)),
                Target("ifs", "%s: sort within %d %% of sort alone" % (who, FIXED_CACHE_COST), (kb, "cache"), [least],
                       lambda s: True, ifs_test(lambda a: a["deg_of"], lambda x: x <= FIXED_CACHE_COST, _pct, False))]
    return out


def decide(own, control):
    """The verdict of a point: own and control are (word, figure) or None (no rows); control
    also names its label. See the docstring's table."""
    if own == NOT_TESTED:               # the penalty never came into play (the docstring's end)
        return own
    if control is None:
        return NO_CONTROL
    word, label = control
    if word == MET:
        return "cannot fail (its control, %s, meets it too)" % label
    if word == STRADDLES:
        return "cannot fail (its control, %s, meets it in some runs)" % label
    if word != MISSED:                  # one run: no range to tell the control's from the bound
        return word
    return own


def judge(target, data, points):
    """[{point, figure, verdict, control, control_figure}] of a target at each of points that
    it holds at and its configuration has rows at. data: an IFS aggregate (ifs_tables.aggregate)
    or ECD's runs (ecd_runs)."""
    out = []
    for p in sorted(points):
        if not target.where(p):
            continue
        own = target.test(data, target.subject, p, True)
        if own is None:
            continue
        got, label = None, target.controls[-1][1]
        for config, name in target.controls:
            got = target.test(data, config, p, False)
            if got is not None:
                label = name
                break
        out.append({"target": target, "point": p, "figure": own[1], "control": label,
                    "control_figure": got[1] if got else "not run",
                    "verdict": decide(own[0], (got[0], label) if got else None)})
    return out


def judge_ifs(agg):
    """Every IFS target judged on one preset's aggregate (ifs_tables.aggregate)."""
    points = {s for (v, m, s) in agg}
    every = [t for t in TARGETS if t.bench == "ifs"] + fixed_cache_targets({v for (v, m, s) in agg if m == "cache"})
    return [j for t in every for j in judge(t, agg, points)]


def ecd_runs(rows):
    """{(paper MB, config): [each run's elapsed ms]} of ecd.csv's rows (ecd_paper.config_key)."""
    from ecd_paper import config_key
    out = {}
    for r in rows:
        out.setdefault((int(r["mem_paper_mb"]), config_key(r)), []).append(float(r["elapsed_ms"]))
    return out


def judge_ecd(rows):
    """ECD's targets judged on ecd.csv's rows (ours)."""
    runs = ecd_runs(rows)
    points = {m for (m, c) in runs}
    return [j for t in TARGETS if t.bench == "ecd" for j in judge(t, runs, points)]


def kind(verdict):
    """What a point's verdict is: met, missed, no verdict (the runs cannot tell), no target."""
    if verdict in (MET, MISSED):
        return verdict
    return "no target" if verdict.startswith("cannot fail") or verdict.endswith("not a target") else "no verdict"


def tally(judged):
    """'3 met, 1 missed, 2 no target' (the kinds that occur, in that order)."""
    kinds = [kind(j["verdict"]) for j in judged]
    return ", ".join("%d %s" % (kinds.count(k), k) for k in (MET, MISSED, "no verdict", "no target") if k in kinds)


def point_label(j):
    return ("S = %g s" if j["target"].bench == "ifs" else "%d MB") % j["point"]


def markdown(judged):
    """The targets as a table: the claim, where, its figure, the control and its figure, the verdict."""
    out = ["| target | at | figure | control | control's figure | verdict |", "|---|---|---|---|---|---|"]
    for j in judged:
        out.append("| %s | %s | %s | %s | %s | %s |" % (j["target"].claim, point_label(j), j["figure"], j["control"],
                                                        j["control_figure"], j["verdict"]))
    return "\n".join(out)


def printed(judged):
    """The targets as the benchmarks print them under their tables (bench_ifs, bench_ecd)."""
    if not judged:
        return "Targets: none of this run's points has a target's configuration."
    return "Targets, each beside the control that must fail it (%s):\n%s" % (tally(judged), markdown(judged))


def sentences(judged):
    """The targets in prose, one clause a point: 'the 120 s penalty: ... at S = 30 s 0 [0–0]
    (no penalty: 273 [270–280]): met'."""
    by = {}
    for j in judged:
        by.setdefault(j["target"].claim, []).append("at %s %s (%s: %s): %s" % (
            point_label(j), j["figure"], j["control"], j["control_figure"], j["verdict"]))
    return ["%s, %s" % (claim, ", ".join(parts)) for claim, parts in by.items()]
