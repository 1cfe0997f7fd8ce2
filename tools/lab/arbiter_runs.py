"""The arbiter lab's runs in the kernel (docs/lab-arbiter.md): one IFS run and one ECD run under
an arbiter or a fixed penalty, each a fresh boot, optionally recording its negotiations.

WHAT RUNS. The IFS benchmark's `paper` preset as it was before its calibration (IFS_CFG;
tools/bench/bench_ifs.py: an 8 MB machine, the toucher holding all but 1 MB and touching it
every IFS_S seconds, sort of 1 MB beside it, the disk throttled to 1 MB/s and 50 requests a
second, 3.9 MIPS of guest time held to the host's clock and kept by the TSC) at one interval,
IFS_S = 30 s, where the paper's penalty mattered most (Table 3) and no penalty cost the toucher
most here; and the ECD benchmark (tools/bench/bench_ecd.py) at
Sprite's 10 MB with the variable cache, one loop of edit, compile, link and debug instead of
two. The steps are the benchmarks' own (their setup, their parsing); what differs is the line
that chooses the arbiter, `sysctl vm.arbiter=NAME` (or vm.arbiter=none and a fixed vm.penalty),
and, when recording, `sysctl neg.arbiter_record=1` typed just before the counters are reset,
with QEMU's debug console going to a file (kernel/arbiters.c writes the records there).

A run takes what the benchmark's run takes in wall-clock time (the guest's clock is held to the
host's): IFS about 100 s and ECD about 60 s after their boots and setup. Both are disk-bound, so
their figures are wall-clock ones, one run each: tools/lab/arbiter_grade.py says how much to
trust a difference.

    python3 tools/lab/arbiter_runs.py ifs|ecd|alone [--arbiter NAME | --penalty S] [--trace FILE]

prints the run's figures (for trying a setting by hand)."""
import argparse, os, re, struct, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import bench_ifs, bench_ecd, ecd_paper   # noqa: E402
from benchlib import boot_steps   # noqa: E402
from bench_ifs import ParseError   # noqa: E402

OUT = os.path.join(ROOT, "build", "grade", "arbiter")
IFS_S = 30
# The kernel pass keeps the machine its scale and noise allowances were measured on, the paper
# preset before issue 36 calibrated it (8 MB, a 1 MB sort, 3.9 MIPS, 50 requests a second: about
# 2.5 minutes a run); the calibrated preset has not been run through the grader.
IFS_CFG = dict(bench_ifs.PRESETS["paper"], mem=8, sort_input="1M", icount=8, throttle_iops=50)
ECD_MB = 10
ECD_CFG = dict(bench_ecd.COMMON, loops=1)
CHECK = "vmstat neg.arbiter_decisions neg.arbiter_errors"
# A run that has used 15 minutes of QEMU's CPU time (each takes 3 to 5 minutes, at most one core)
# has hung: an arbiter's hook that never returns stops the kernel with interrupts off. CPU time,
# not the wall clock, so that a loaded host never takes a slow run for a hung one; the wall clock
# (an hour) only for a guest that hangs idle.
RUN_CPU_LIMIT = 900
RUN_TIMEOUT = 3600
HUNG = 125                  # runqemu's status when the CPU limit was spent


def settings(how):
    """The lines that choose the decision: ("arbiter", NAME), ("penalty", SECONDS), or ("adaptive", 0):
    no arbiter, the kernel's own vm.penalty_mode=adaptive."""
    kind, value = how
    if kind == "arbiter":
        return "sysctl vm.arbiter=%s\n" % value
    if kind == "adaptive":
        return "sysctl vm.arbiter=none\nsysctl vm.penalty=0\nsysctl vm.penalty_mode=adaptive\n"
    return "sysctl vm.arbiter=none\nsysctl vm.penalty=%d\nsysctl vm.penalty_mode=fixed\n" % value


def label(how):
    return how[1] if how[0] == "arbiter" else "adaptive" if how[0] == "adaptive" else "penalty %d s" % how[1]


def check_chosen(out, how, log):
    if how[0] == "arbiter" and not re.search(r"^vm\.arbiter = %s$" % re.escape(how[1]), out, re.M):
        raise ParseError("the kernel has no arbiter %s (kernel/arbiters.c's table): see %s" % (how[1], log))


def arbiter_counts(out):
    """(decisions, errors) of the run's last CHECK."""
    cmds = bench_ifs.split_commands(bench_ifs.background(out)[0], [CHECK])
    got = cmds.get(CHECK, [])
    if not got:
        return None, None
    vals = [int(x) for x in re.findall(r"^\s*[\w.]+\s+(\d+)\s*$", got[-1], re.M)]
    return (vals[0], vals[1]) if len(vals) == 2 else (None, None)


def _prepared(path, lines, check, logs):
    if os.path.exists(path):
        return path
    os.makedirs(logs, exist_ok=True)
    log = os.path.join(logs, os.path.basename(path) + ".log")
    rc, out, _, _ = boot_steps([(None, lines)], mem=64, log=log, keep=path, timeout=600)
    if rc != 0 or not check(out):
        sys.exit("arbiter: could not prepare %s: see %s" % (os.path.relpath(path, ROOT), log))
    return path


def ifs_image(logs):
    return _prepared(os.path.join(OUT, "ifs.img"), "mklines /in %s\nsync\nls -l /in\n" % IFS_CFG["sort_input"],
                     lambda out: "No such" not in out.split("$ ls -l /in", 1)[-1], logs)


def ecd_image(logs):
    return _prepared(os.path.join(OUT, "ecd.img"), "mkdir /ecd\nphase -d /ecd init\nsync\nls -l /ecd\n",
                     lambda out: len(re.findall(r"^phase init: ", out, re.M)) == 3, logs)


def extra_for(trace):
    return ["-debugcon", "file:" + trace] if trace else []


def ifs_run(how, log, trace=None, alone=False):
    """The IFS run's figures: sort_ms, and (not alone) the toucher's rounds, page-ins and slowest touch."""
    logs = os.path.dirname(log)
    cfg = dict(IFS_CFG, image=ifs_image(logs))
    setup = settings(how) + bench_ifs.setup_lines(cfg, None, "fixed")
    chosen = {}

    def start_toucher(out):
        cmds = bench_ifs.split_commands(bench_ifs.background(out)[0], [bench_ifs.FREE])
        kb = bench_ifs.toucher_kb(out, bench_ifs.printed(cmds, bench_ifs.FREE))
        chosen["kb"] = kb
        return bench_ifs.toucher_line(cfg, kb, IFS_S)

    measure = ("%ssysctl neg.reset=1\nps\nvmstat %s\nvmstat %s\n%s\n%s\n%s\n" % (
        "sysctl neg.arbiter_record=1\n" if trace else "", " ".join(bench_ifs.DELTA), " ".join(bench_ifs.REQUESTS),
        bench_ifs.STAMP, bench_ifs.sort_line(cfg), bench_ifs.STAMP))

    def finish(out):
        jobs = re.findall(r"^\[(\d+)\]$", bench_ifs.background(out)[0], re.M)
        return "vmstat %s\nvmstat %s\nvmstat %s\nps\n%s\n%skill %s\n" % (
            " ".join(bench_ifs.COUNTERS), " ".join(bench_ifs.COST), " ".join(bench_ifs.REQUESTS), CHECK,
            "sysctl neg.arbiter_record=0\n" if trace else "", " ".join("-" + j for j in jobs))

    if alone:
        steps = [(None, setup), (r"\[\d+\]\n", measure), (r"(?s)sort: \d+ lines.*@\d+ \d+\n.*\$ ", finish)]
    else:
        steps = [(None, setup), (r"\[\d+\]\n", start_toucher), (r"touch 1 \d+ ms", measure),
                 (bench_ifs.round_after_sort, finish)]
    rc, out, typed, _ = boot_steps(steps, image=cfg["image"], mem=cfg["mem"], icount=cfg["icount"],
                                   throttle_bps=cfg["throttle_bps"], throttle_iops=cfg["throttle_iops"], timeout=RUN_TIMEOUT,
                                   log=log, align=cfg["align"], extra=extra_for(trace), cpu_limit=RUN_CPU_LIMIT,
                                   clock=cfg.get("clock"))
    if rc == HUNG:
        raise ParseError("the guest hung: %d s of CPU time and the run not done (a hook that never returns; the "
                         "console's ^P dump says where): see %s" % (RUN_CPU_LIMIT, log))
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, log))
    check_chosen(out, how, log)
    try:
        r = bench_ifs.parse_run(out, typed, not alone)
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, log))
    r["decisions"], r["errors"] = arbiter_counts(out)
    r["toucher_kb"] = chosen.get("kb")
    if not alone:
        # The rounds that overlapped sort and the first after it; the first of them is where an
        # arbiter that learns is allowed to pay (it cannot know the toucher before it refaults).
        rounds = [x for x in r["rounds_all"] if x[0] >= 2 and x[3] + x[1] >= r["t0"]]
        rounds = [x for x in rounds if x[3] < r["t1"]] + [x for x in rounds if x[3] >= r["t1"]][:1]
        r["pageins_after_first"] = sum(x[2] for x in rounds[1:])
        r["slowest_ms"] = max(x[1] for x in rounds) if rounds else 0
    return r


def ecd_run(how, log, trace=None):
    """The ECD run's figures: elapsed_ms and the disk's traffic (bench_ecd.parse_run's)."""
    logs = os.path.dirname(log)
    cfg = dict(ECD_CFG, image=ecd_image(logs))
    setup = settings(how) + "sysctl fs.cache_min_kb=%d\n%s\n" % (ecd_paper.SPRITE_MIN_CACHE_KB, bench_ecd.FREE)
    chosen = {}

    def start_env(out):
        text = bench_ifs.split_commands(bench_ifs.QEMU_LATE.sub("", out), [bench_ecd.FREE]).get(bench_ecd.FREE, [""])[0]
        try:
            chosen["env_kb"], chosen["usable_kb"] = bench_ecd.env_kb(text, ECD_MB)
        except ParseError:
            return "poweroff\n"
        return "phase -k %d -s %d env &\n" % (chosen["env_kb"], cfg["env_s"])

    work = "".join("phase -d /ecd %s\n" % p for p in bench_ecd.PHASES * cfg["loops"])
    measure = "%ssysctl neg.reset=1\n%s\n%s%s\n" % ("sysctl neg.arbiter_record=1\n" if trace else "",
                                                    bench_ecd.STAMP, work, bench_ecd.STAMP)

    def finish(out):
        jobs = re.findall(r"^\[(\d+)\]$", out, re.M)
        return "%s\n%s%s\n" % (CHECK, "sysctl neg.arbiter_record=0\n" if trace else "",
                               "kill %s" % " ".join("-" + j for j in jobs) if jobs else "")

    steps = [(None, setup), (re.escape(bench_ecd.FREE) + r"\n(\d+\n){4}", start_env),
             (bench_ecd.ENV_READY.pattern, measure), (r"(?s)(@\d+(?: \d+)+\n.*){2}\$ ", finish)]
    rc, out, typed, _ = boot_steps(steps, image=cfg["image"], mem=ECD_MB + 2, icount=cfg["icount"],
                                   throttle_bps=cfg["throttle_bps"], throttle_iops=cfg["throttle_iops"], timeout=RUN_TIMEOUT,
                                   log=log, align=cfg["align"], extra=extra_for(trace), cpu_limit=RUN_CPU_LIMIT,
                                   clock=cfg.get("clock"))
    if rc == HUNG:
        raise ParseError("the guest hung: %d s of CPU time and the run not done (a hook that never returns; the "
                         "console's ^P dump says where): see %s" % (RUN_CPU_LIMIT, log))
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, log))
    check_chosen(out, how, log)
    if "env_kb" not in chosen:
        raise ParseError("the environment did not start: see %s" % log)
    try:
        r = bench_ecd.parse_run(out, typed, cfg["loops"])
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, log))
    r["decisions"], r["errors"] = arbiter_counts(out)
    return r


# --- the recording's records, as text (tools/lab/arbitersim/negtrace.c reads them) -------------
def records_to_text(raw, header):
    """The kernel's records of eight 32-bit words (kernel/arbiters.c) as the trace's lines."""
    lines = ["# negtrace version=1 " + header]
    started = False
    for i in range(0, len(raw) - 31, 32):
        w = struct.unpack_from("<8I", raw, i)
        t, a, b, c = w[0] & 0xFF, (w[0] >> 8) & 0xFF, (w[0] >> 16) & 0xFF, w[0] >> 24
        if t == 6:
            started = True
            lines.append("# start time_ms=%d frames=%d" % (w[1], w[2]))
        elif not started:
            continue
        elif t == 1:
            lines.append("N %d %d %d %d %d %d %d %d %d %d" % (w[1], a, b, c, w[2], w[3], w[4], w[5], w[6], w[7]))
        elif t == 2:
            lines.append("G %d %d %d %d" % (w[1], a, w[2], w[3]))
        elif t == 3:
            lines.append("R %d %d %d %d %d %d %d" % (w[1], a, w[2], w[3], w[4], w[5], b))
        elif t == 4:
            lines.append("U %d %d %d %d" % (w[1], w[2], w[3], w[4]))
        elif t == 5:
            lines.append("X %d" % w[1])
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["ifs", "ecd", "alone"])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--arbiter")
    g.add_argument("--penalty", type=int, default=0)
    ap.add_argument("--trace", help="record the negotiations (the kernel's records, binary) into this file")
    a = ap.parse_args()
    how = ("arbiter", a.arbiter) if a.arbiter else ("penalty", a.penalty)
    os.makedirs(OUT, exist_ok=True)
    log = os.path.join(OUT, "%s-%s.log" % (a.what, label(how).replace(" ", "")))
    try:
        if a.what == "ecd":
            r = ecd_run(how, log, a.trace)
            print("ecd %s: %.1f s, FS %d KB read, VM %d KB read; decisions %s, errors %s" % (
                label(how), r["elapsed_ms"] / 1000, r["fs_read_kb"], r["vm_read_kb"], r["decisions"], r["errors"]))
        else:
            r = ifs_run(how, log, a.trace, alone=a.what == "alone")
            print("%s %s: sort %.1f s%s; decisions %s, errors %s" % (
                a.what, label(how), r["sort_ms"] / 1000, "" if a.what == "alone" else
                ", toucher %d page-ins after its first round, slowest touch %d ms" % (
                    r["pageins_after_first"], r["slowest_ms"]), r["decisions"], r["errors"]))
    except ParseError as e:
        sys.exit("arbiter: %s" % e)


if __name__ == "__main__":
    main()
