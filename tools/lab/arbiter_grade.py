"""make grade LAB=arbiter ARBITER=NAME: grades an arbiter, as docs/lab-arbiter.md states.

1. THE REPLAY (host, build/arbitersim compiled with the arbiter's file): the recorded
   negotiations of traces/negotiation/ replayed through it, beside global LRU (lru, penalty 0),
   Sprite's fixed 120 s (p120) and the reference arbiter. Every answer must be NEG_FS or NEG_VM
   (else: incorrect, 0). Per trace the simulator's proxy, the disk reads its decisions would
   cost (tools/lab/arbitersim/main.c), gives a score: 100 * (W - C) / (W - B), within 0..100, B
   and W the best and worst of the three anchors. The replay score is the mean over the traces.
2. THE KERNEL PASS (unless --host-only; the kernel's table, kernel/arbiters.c, must have the
   arbiter): tools/lab/arbiter_runs.py's IFS run (the paper preset, S = 30 s) and ECD run (10 MB,
   one loop) with vm.arbiter=NAME, beside the same runs with penalty 0, penalty 120 s and the
   reference (measured once per kernel and kept in build/grade/arbiter/anchors.json; in the
   students' tree, which has no reference, its figures come from arbiter_anchors.json beside
   this file, measured by the instructor with --record-anchors). The kernel must never have refused an
   answer (neg.arbiter_errors 0) and the runs must finish (a kernel that panics or hangs under
   the arbiter is incorrect). Four figures, 25 points each, lower is better:
     the toucher's page-ins after its first round under pressure (the rounds that overlapped
       sort and the first after it, less the first of them: a learning arbiter may pay once),
     its slowest touch among those rounds (ms),
     sort's degradation: its time over sort alone's, less 1,
     ECD's elapsed time;
   each scored 25 * (W - x) / (W - B) within 0..25, B and W the best and worst of the three
   anchors, W at least B and the figure's noise (NOISE: one run each, wall clock) so that
   anchors within noise of each other do not turn noise into points.
3. The score: the kernel pass's points when it ran, else the replay's; both are printed.

    python3 tools/lab/arbiter_grade.py NAME [--file kernel/arbiter_NAME.c] [--host-only] [--traces T...]
    python3 tools/lab/arbiter_grade.py --record-anchors      (the instructor, in the full tree)

Exit status 0 for a correct arbiter, 1 for an incorrect one, 2 when grading could not run.
The last line is "grade: NAME: correct|incorrect, score N/100" (tools/lab/grade.py --dir reads it)."""
import argparse, csv, glob, hashlib, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
OUT = os.path.join(BUILD, "grade", "arbiter")
TRACES = os.path.join(ROOT, "traces", "negotiation")
ANCHORS_TRACKED = os.path.join(ROOT, "tools", "lab", "arbiter_anchors.json")
ANCHORS = [("penalty", 0), ("penalty", 120), ("arbiter", "reference")]
FIGURES = ["pageins_after_first", "slowest_ms", "sort_degradation", "ecd_elapsed_ms"]
NOISE = {"pageins_after_first": 16, "slowest_ms": 250, "sort_degradation": 0.03, "ecd_elapsed_ms": 0.03}
WHAT = {"pageins_after_first": "toucher page-ins after its first round", "slowest_ms": "slowest touch ms",
        "sort_degradation": "sort's degradation", "ecd_elapsed_ms": "ECD elapsed ms"}


def fail(msg):
    print("grade: " + msg)
    sys.exit(2)


def simulator(name, path):
    """build/arbitersim compiled with the arbiter's file (its struct arbiter_NAME)."""
    src = sorted(set(glob.glob(os.path.join(ROOT, "tools/lab/arbitersim/*.c")) +
                     [os.path.join(ROOT, "tools/lab/tracefile.c"), os.path.join(ROOT, "tools/lab/callwatch.c")] +
                     [os.path.join(ROOT, "kernel/mem/negotiate_rule.c")] +
                     glob.glob(os.path.join(ROOT, "kernel/arbiter_reference.c"))))
    tag = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:8]
    out = os.path.join(BUILD, "grade", "arbitersim-%s-%s" % (name, tag))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cc = os.environ.get("HOSTCC", "cc")
    r = subprocess.run([cc, "-O2", "-g", "-Wall", "-Wextra", "-Wno-unused-parameter", "-I", ROOT,
                        "-DARBITER_EXTRA=arbiter_%s" % name, "-o", out] + src + [os.path.abspath(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("%s does not compile with the simulator:\n%s" % (path, r.stdout[-3000:]))
    return out


def host_part(sim, name, traces, call_limit_ms=1000):
    """(correct, problems, {trace: score}, the simulator's table). A hook that loops is stopped
    by the simulator after call_limit_ms of CPU time in one call (tools/lab/callwatch.c)."""
    scores, problems, text = {}, [], ""
    for t in traces:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "sim.csv")
            ref = name != "reference" and os.path.exists(os.path.join(ROOT, "kernel", "arbiter_reference.c"))
            r = subprocess.run([sim, "-a", name + ",lru,p120" + (",reference" if ref else ""),
                                "-t", str(call_limit_ms), "-c", path, t], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            rows = list(csv.DictReader(open(path, newline=""))) if os.path.exists(path) else []
        text += r.stdout
        if r.returncode < 0:
            print(text, end="")
            fail("arbitersim: the run of %s on %s died (signal %d: the arbiter crashed the simulator)"
                 % (name, os.path.basename(t), -r.returncode))
        if r.returncode == 2:
            fail("the simulator could not run:\n" + r.stdout[-2000:])
        if r.returncode == 3:       # the simulator's line says which hook looped, and where
            problems += [l for l in r.stdout.splitlines() if "did not return within" in l]
            break
        problems += [l[len("error: "):] for l in r.stdout.splitlines() if l.startswith("error:")]
        for row in rows:
            if row["arbiter"] == name:
                scores[row["trace"]] = float(row["score"])
            ALL_SCORES.setdefault(row["arbiter"], []).append(float(row["score"]))
    return not problems, problems, scores, text


# Every arbiter's replay scores, trace by trace, as host_part read them (the anchors' for the ranking).
ALL_SCORES = {}


# --- the kernel pass ------------------------------------------------------------------------
def kernel_tag():
    with open(os.path.join(BUILD, "kernel.elf"), "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()[:12]


def figures(how, tag):
    """The four figures of one arbiter or penalty (and the decisions and errors), from its IFS and
    ECD runs; raises ParseError."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import arbiter_runs as ar
    os.makedirs(OUT, exist_ok=True)
    lab = ar.label(how).replace(" ", "")
    print("grade: kernel pass, %s: IFS (paper preset, S = %d s)" % (ar.label(how), ar.IFS_S), flush=True)
    ifs = ar.ifs_run(how, os.path.join(OUT, "ifs-%s-%s.log" % (lab, tag)))
    print("grade: kernel pass, %s: ECD (%d MB, %d loop)" % (ar.label(how), ar.ECD_MB, ar.ECD_CFG["loops"]), flush=True)
    ecd = ar.ecd_run(how, os.path.join(OUT, "ecd-%s-%s.log" % (lab, tag)))
    return {"pageins_after_first": ifs["pageins_after_first"], "slowest_ms": ifs["slowest_ms"],
            "sort_ms": ifs["sort_ms"], "ecd_elapsed_ms": ecd["elapsed_ms"],
            "errors": (ifs["errors"] or 0) + (ecd["errors"] or 0),
            "decisions": (ifs["decisions"] or 0) + (ecd["decisions"] or 0)}


def sort_alone(tag):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import arbiter_runs as ar
    print("grade: kernel pass: sort alone (its time is what a degradation is measured from)", flush=True)
    os.makedirs(OUT, exist_ok=True)
    return ar.ifs_run(("penalty", 0), os.path.join(OUT, "alone-%s.log" % tag), alone=True)["sort_ms"]


def anchors(tag):
    """{label: figures} of the three anchors and "alone": sort alone's ms. Measured once per kernel
    (build/grade/arbiter/anchors.json); the reference's from the tracked file when the kernel has none."""
    import arbiter_runs as ar
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "anchors.json")
    got = json.load(open(path)) if os.path.exists(path) else {}
    got = got if got.get("kernel") == tag else {"kernel": tag}
    if "alone" not in got:
        got["alone"] = sort_alone(tag)
        json.dump(got, open(path, "w"), indent=1)
    for how in ANCHORS:
        lab = ar.label(how)
        if lab in got:
            continue
        absent = how[0] == "arbiter" and not os.path.exists(os.path.join(ROOT, "kernel", "arbiter_%s.c" % how[1]))
        try:
            if absent:          # the students' tree: no run can have it
                raise ar.ParseError("the tree has no arbiter %s" % how[1])
            got[lab] = figures(how, tag)
        except ar.ParseError as e:
            if how[0] != "arbiter" or "has no arbiter" not in str(e) or not os.path.exists(ANCHORS_TRACKED):
                raise
            print("grade: kernel pass, %s: its figures from %s" % (lab, os.path.relpath(ANCHORS_TRACKED, ROOT)))
            tracked = json.load(open(ANCHORS_TRACKED))
            got[lab] = dict(tracked[lab], from_file=True)
            got[lab]["sort_degradation"] = tracked[lab]["sort_ms"] / tracked["alone"] - 1
        json.dump(got, open(path, "w"), indent=1)
    for k, v in got.items():
        if isinstance(v, dict) and "sort_ms" in v and "sort_degradation" not in v:
            v["sort_degradation"] = v["sort_ms"] / got["alone"] - 1
    return got


def points(x, values, noise):
    best, worst = min(values), max(values)
    worst = max(worst, best + noise)
    return max(0.0, min(25.0, 25.0 * (worst - x) / (worst - best)))


def kernel_points(fig, anch):
    """({figure: points}, the table's lines)."""
    import arbiter_runs as ar
    labels = [ar.label(h) for h in ANCHORS]
    out, lines = {}, []
    lines.append("%-40s %12s %s" % ("figure", "yours", " ".join("%14s" % l for l in labels)))
    for f in FIGURES:
        vals = [anch[l][f] for l in labels]
        noise = NOISE[f] * min(vals) if f == "ecd_elapsed_ms" else NOISE[f]
        out[f] = points(fig[f], vals, noise)
        fmt = "%14.3f" if f == "sort_degradation" else "%14d"
        lines.append("%-40s %12s %s   %4.1f points" % (WHAT[f], (fmt % fig[f]).strip(), " ".join(fmt % v for v in vals),
                                                        out[f]))
    return out, lines


# The replay's own arbiters that stand for the kernel pass's anchors (tools/lab/arbitersim/main.c).
REPLAY_OF = {"penalty 0 s": "lru", "penalty 120 s": "p120", "reference": "reference"}


def which_grade(name, replay, kernel):
    """The lines that rank the arbiter among the anchors by the replay ({arbiter: mean replay
    score}, the replay's names: lru, p120) and by the kernel pass ({label: points}), both named by
    the kernel pass's labels (penalty 0 s...), and say
    which one is the grade, and why, when the two orders differ. Only the anchors both have are
    ranked (the students' tree replays no reference)."""
    common = [k for k, r in REPLAY_OF.items() if k in kernel and r in replay]
    order = lambda d: " > ".join(sorted(d, key=lambda k: -d[k]))
    by_replay = {name: replay[name], **{k: replay[REPLAY_OF[k]] for k in common}}
    by_kernel = {name: kernel[name], **{k: kernel[k] for k in common}}
    lines = ["grade: ranking by the replay's score: %s; by the kernel pass's points: %s" % (
        order(by_replay), order(by_kernel))]
    if order(by_replay) == order(by_kernel):
        lines.append("grade: they agree; the grade is the kernel pass's points")
    else:
        lines.append("grade: they disagree; the grade is the kernel pass's points, not the replay's score: the kernel "
                     "pass measures what the arbiter did to the programs (page-ins, touch times, sort's and ECD's "
                     "times), where the replay's proxy only estimates each decision's disk reads from the recorded "
                     "run's refaults and cannot see how a different decision changes the offers after it")
    return lines


def record_anchors():
    """The instructor's: the reference's figures and sort alone's into the tracked file."""
    tag = kernel_tag()
    got = anchors(tag)
    keep = {"alone": got["alone"], "reference": {k: got["reference"][k] for k in ("pageins_after_first", "slowest_ms",
                                                                                  "sort_ms", "ecd_elapsed_ms")}}
    with open(ANCHORS_TRACKED, "w") as f:
        json.dump(keep, f, indent=1)
        f.write("\n")
    print("grade: wrote %s" % os.path.relpath(ANCHORS_TRACKED, ROOT))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("arbiter", nargs="?")
    ap.add_argument("--file", help="the arbiter's file (default kernel/arbiter_NAME.c)")
    ap.add_argument("--host-only", action="store_true", help="only the replay (no QEMU)")
    ap.add_argument("--traces", nargs="*", help="default: traces/negotiation/*.negtrace.gz")
    ap.add_argument("--record-anchors", action="store_true", help="measure the anchors, write the reference's")
    ap.add_argument("--call-limit", type=int, default=1000,
                    help="CPU ms a hook's call may take in the simulator (a hook that loops is stopped there)")
    a = ap.parse_args()
    if a.record_anchors:
        record_anchors()
        return
    name = a.arbiter
    if not name or not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        fail("give an arbiter NAME: lowercase letters, digits and _ (%r)" % name)
    path = a.file or os.path.join(ROOT, "kernel", "arbiter_%s.c" % name)
    if not os.path.exists(path):
        fail("no %s: give --file" % os.path.relpath(path, ROOT))
    traces = a.traces or sorted(glob.glob(os.path.join(TRACES, "*.negtrace.gz")))
    if not traces:
        fail("no traces in traces/negotiation (tools/lab/record_negtraces.py records them)")
    in_tree = os.path.join(ROOT, "kernel", "arbiter_%s.c" % name)
    same_as_table = os.path.exists(in_tree) and open(in_tree, "rb").read() == open(path, "rb").read()
    sim = simulator(name, path) if name != "reference" else os.path.join(BUILD, "arbitersim")
    print("grade: %s on %d recorded traces (simulator)" % (name, len(traces)), flush=True)
    ok, problems, scores, table = host_part(sim, name, traces, a.call_limit)
    print(table, end="")
    for t, s in scores.items():
        print("grade: replay score on %s: %.0f" % (t, s))
    replay = sum(scores.values()) / len(scores) if scores else 0.0
    print("grade: replay score (mean over the traces): %.0f" % replay)
    kernel, kproblems = None, []
    if a.host_only:
        print("grade: kernel pass skipped (--host-only)")
    elif not ok:
        print("grade: kernel pass skipped: the replay found the arbiter incorrect")
    elif not same_as_table:
        print("grade: kernel pass skipped: kernel/arbiter_%s.c is not this file (the kernel runs what the tree "
              "has: copy it there, add it to kernel/arbiters.c's table and make)" % name)
    else:
        if not os.path.exists(os.path.join(BUILD, "kernel.elf")):
            fail("build/kernel.elf is missing: run make first")
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import arbiter_runs as ar
        tag = kernel_tag()
        try:
            anch = anchors(tag)
            fig = figures(("arbiter", name), tag)
            fig["sort_degradation"] = fig["sort_ms"] / anch["alone"] - 1
        except ar.ParseError as e:
            if "has no arbiter" in str(e):
                print("grade: kernel pass skipped: %s" % e)
            else:
                kproblems.append("kernel: %s (a panic, a hang, or a run that never finished)" % e)
        else:
            if fig["errors"]:
                kproblems.append("kernel: decide gave %d answers that were neither NEG_FS nor NEG_VM "
                                 "(neg.arbiter_errors; the console names the first)" % fig["errors"])
            pts, lines = kernel_points(fig, anch)
            for l in lines:
                print("grade: " + l)
            kernel = sum(pts.values())
            print("grade: kernel pass: %.0f points (%d decisions)" % (kernel, fig["decisions"]))
            anchor_points = {ar.label(h): sum(kernel_points(anch[ar.label(h)], anch)[0].values()) for h in ANCHORS}
            replay_means = {a: sum(v) / len(v) for a, v in ALL_SCORES.items() if v}
            for l in which_grade(name, replay_means, dict(anchor_points, **{name: kernel})):
                print(l)
    if kernel is None and ok and not kproblems:
        print("grade: the grade is the replay's score: no kernel pass ran")
    correct = ok and not kproblems
    for p in problems[:3] + kproblems:
        print("grade: INCORRECT: " + p)
    score = round(kernel if kernel is not None else replay) if correct else 0
    print("grade: %s: %s, score %d/100" % (name, "correct" if correct else "incorrect", score))
    sys.exit(0 if correct else 1)


if __name__ == "__main__":
    main()
