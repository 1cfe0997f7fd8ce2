"""Which arbiter is the kernel's default, by a rule written down and applied to measured rows
(issue 36: "the arbiter's default decided again on these benchmarks, with the rule written in
the docs"). make bench-ifs prints the decision under its targets; docs/negotiation.md states the
rule and the decision it gave.

THE RULE. The incumbent is vm.penalty_mode=fixed, Sprite's penalty (kernel/mem/negotiate.c). A
candidate, vm.penalty_mode=adaptive, replaces it only on the benchmark that presses as Sprite's
did -- the IFS paper preset, calibrated against Table 3 -- and only if at every calibrated S
(ifs_tables.CALIBRATED_S):

  1. every target the incumbent meets there the candidate meets too, its control failing it
     (targets.py: a target its control meets too, or one with no verdict, does not count as
     met); a target neither meets (on the calibrated preset, sort within 20 % of sort alone)
     is said and decides nothing;
  2. it is not behind the incumbent on the toucher: neither its slowest touch nor its page-ins
     (headline.verdict on the runs' spreads; touches all under the instant 0.1 s are level);
  3. it is not behind the incumbent on sort's time;

and at one S at least it is ahead, on the toucher or on sort. Otherwise the incumbent stays.
The incumbent is measured as fixed 120 s, the penalty the paper measured; the kernel's 1200 s
is the same mode with a larger constant, and at S <= 30 s a toucher idle at most 30 s is
protected by either alike. A point that lacks either side's rows decides nothing ("not
decided"), and neither does a point of one run (no spread)."""
import headline
import targets
from ifs_tables import CALIBRATED_S, spread

INCUMBENT = (120, "fixed")
CANDIDATE = (0, "adaptive")
NAMES = {INCUMBENT: "fixed (the 120 s penalty measured)", CANDIDATE: "adaptive"}


def _seconds(values):
    return spread([v / 1000 for v in values], lambda x: "%.2f" % x, " s")


def decide(agg):
    """(the default's mode, [reasons]) on the paper preset's aggregate (ifs_tables.aggregate):
    "adaptive" when the rule gives it the place, "fixed" when the incumbent stays, None when
    the rows do not decide (a point missing, one run a point)."""
    every = targets.judge_ifs(agg)
    judged = [j for j in every if j["target"].subject == CANDIDATE]
    claim = lambda j: j["target"].claim.split(": ", 1)[1]       # the claim without whose it is
    held = {(j["point"], claim(j)) for j in every if j["target"].subject == INCUMBENT and j["verdict"] == targets.MET}
    reasons, against, ahead, undecided = [], False, False, False
    for s in CALIBRATED_S:
        a, b = agg.get(CANDIDATE + (float(s),)), agg.get(INCUMBENT + (float(s),))
        if a is None or b is None:
            reasons.append("S = %g s: not decided (%s has no rows)" % (s, NAMES[CANDIDATE if a is None else INCUMBENT]))
            undecided = True
            continue
        for j in judged:
            if j["point"] == s and j["verdict"] != targets.MET:
                if (s, claim(j)) in held:
                    reasons.append("S = %g s: %s: %s, where the incumbent meets it" % (s, j["target"].claim, j["verdict"]))
                    against = True
                else:
                    reasons.append("S = %g s: %s: %s, and the incumbent does not meet it either" % (
                        s, j["target"].claim, j["verdict"]))
        words = [("slowest touch", headline.verdict(a["slowest_of"], b["slowest_of"], targets.INSTANT_MS),
                  _seconds(a["slowest_of"]), _seconds(b["slowest_of"])),
                 ("toucher's page-ins", headline.verdict(a["of"]["toucher_pageins"], b["of"]["toucher_pageins"]),
                  spread(a["of"]["toucher_pageins"], _count), spread(b["of"]["toucher_pageins"], _count)),
                 ("sort", headline.verdict(a["of"]["sort_ms"], b["of"]["sort_ms"]),
                  _seconds(a["of"]["sort_ms"]), _seconds(b["of"]["sort_ms"]))]
        if any(w == headline.ONE_RUN for _, w, _, _ in words):
            reasons.append("S = %g s: not decided (one run a point)" % s)
            undecided = True
            continue
        for what, word, mine, theirs in words:
            reasons.append("S = %g s: %s %s on the %s (%s against %s)" % (s, NAMES[CANDIDATE], word, what, mine, theirs))
            against |= word == "behind"
            ahead |= word == "ahead"
    if against:
        return "fixed", reasons
    if undecided:
        return None, reasons
    if not ahead:
        return "fixed", reasons + ["%s level with the incumbent everywhere: the incumbent stays" % NAMES[CANDIDATE]]
    return "adaptive", reasons


def _count(x):
    return "%.0f" % x


def printed(agg):
    mode, reasons = decide(agg)
    head = {None: "The arbiter's default: not decided by these rows",
            "fixed": "The arbiter's default: fixed stays (default_rule.py)",
            "adaptive": "The arbiter's default: adaptive earns it (default_rule.py)"}[mode]
    return head + "".join("\n  " + r for r in reasons)
