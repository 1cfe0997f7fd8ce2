"""make traces: records the shipped reference traces (traces/*.trace) in the kernel and copies
them out of the disk image; then tools/lab/tracesim.py replays them.

The traces keep the order of references: each runs under `trace -r` (vm.trace_order=1, soft
faults on each page's first use in an epoch, vm/trace.c), with an epoch of 100 ms. The sampled
traces they replace (one sample of every page's bits per epoch, no order) are kept in
traces/sampled/ for comparison (--sampled records those again).

Two boots of a 64 MB machine (memory to spare: a page that came in and went out within one
epoch would be missing from its trace) on private copies of build/fs-pristine.img. The first, at
full speed, runs the small workloads, each under `trace -r -e 100 -w NAME -o /traces/NAME.trace
COMMAND`:

  sort      an external sort of 8 MB in a 1 MB budget (runs, temporaries, an 8-way merge)
  toucher   the interactive program: touches its 2 MB every 2 s, six times (periodic)
  ifs       WRL 90/4's mix: the toucher (every 1 s) in the background while sort runs
  forktree  a build-like fork/exec workload: fork trees whose leaves exec, nine of them
  vmtest    Irlam's: two processes sweeping 2 MB each for 1 s (cyclic)

The second is the workstation session, minutes long as Hagmann's traces were hours: the ECD
benchmark's environment (phase env, 5 MB, a quarter touched every 5 s) and a toucher (2 MB every
2 s) in the background, while the edit, compile, link and debug phases run six times, each loop
followed by a sort of 2 MB; the shell starts the trace with sysctl and `trace -f` drains it into
the file while everything runs. The CPU is slowed to 15.6 MIPS (-icount 6 with align: a quarter
of make bench-ecd's 3.9 MIPS), so that a phase lasts seconds and uses its pages again over many
epochs, as the programs it stands for did; at full speed a phase is over within one epoch and
the trace is nearly all first touches. The machine has 24 MB (the session's programs need about
16) and the epoch is 200 ms: a sample of every frame, and a soft fault, cost the same number of
instructions at any speed, so at a slow CPU they must be fewer (at 3.9 MIPS, 100 ms epochs and
64 MB, sampling alone took 45 % of the CPU; tools/lab/trace_cost.py measures the cost).

  session   the above, about five minutes

    python3 tools/lab/record_traces.py [--out DIR] [--only NAME,...] [--sampled]
                                       [--session-mem MB] [--policy NAME] [--measure]

--session-mem, --policy and --measure record the session in another machine, under another
policy, and print the kernel's own faults, page-ins and evictions over the traced work and the
most frames its VM held: replayed at that size, the trace gives the simulator's count for the
very references the kernel saw (docs/lab-replacement.md: within 4 % of the kernel's refaults
under clock, LRU and FIFO in 16 MB).

The kernel's timing varies with the host, so two recordings differ; the shipped traces are
one recording, and every figure in the docs comes from them. A trace over 1 MB is shipped
gzipped (NAME.trace.gz; the simulator reads either)."""
import argparse, gzip, os, re, shutil, subprocess, sys, tempfile

# benchlib boots a private copy of the image, as the benchmarks do (tools/bench/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from benchlib import ROOT, private_boot, boot_steps   # noqa: E402

EPOCH_MS = 100
GZIP_OVER = 1 << 20

SETUP = ["mkdir /traces", "mklines /in 8M 7"]
WORKLOADS = [
    ("sort", "sort -m 1024 -o /out /in"),
    ("toucher", "toucher -m 2 -s 2 -n 6 -q"),
    ("ifs", "sh -c 'toucher -m 2 -s 1 -n 6 -q & sort -m 1024 -o /out2 /in; sleep 7'"),
    ("forktree", "sh -c '" + "; ".join(["forktree -e", "forktree -e -k 64", "forktree -e -w 3"] * 3) + "'"),
    ("vmtest", "vmtest -t 1000 4"),
]
# The session: what runs while the trace follows (see the essay), and the same without the
# trace for the grader's kernel pass (tools/lab/grade.py).
SESSION_SETUP = ["mkdir /ecd", "phase -d /ecd init", "mklines /in2 2M 7", "sync"]
SESSION_BACKGROUND = ["phase -s 5 -k 5120 env &", "toucher -m 2 -s 2 -n 100000 -q &"]
SESSION_WORK = ["phase -d /ecd %s" % p for p in ("edit", "compile", "link", "debug")] + \
               ["sort -m 256 -o /out2 /in2"]
SESSION_LOOPS = 6
SESSION_CPU = dict(icount=6, align=True)
SESSION_MEM = 24
SESSION_EPOCH_MS = 200
ENV_READY = r"phase env: \d+ KB ready\n"


def command(name, cmd, sampled=False):
    return "trace %s-e %d -w %s -o /traces/%s.trace %s" % ("" if sampled else "-r ", EPOCH_MS, name, name, cmd)


def copy_out(img, name, out_dir):
    """The guest's /traces/NAME.trace into out_dir, gzipped when large; its path."""
    path = os.path.join(out_dir, name + ".trace")
    for old in (path, path + ".gz"):
        if os.path.exists(old):
            os.remove(old)
    with open(path, "wb") as f:
        subprocess.run([os.path.join(ROOT, "build/fsck"), img, "--cat", "/traces/%s.trace" % name],
                       stdout=f, check=True)
    if os.path.getsize(path) > GZIP_OVER:
        with open(path, "rb") as f, gzip.GzipFile(path + ".gz", "wb", mtime=0) as g:
            shutil.copyfileobj(f, g)
        os.remove(path)
        path += ".gz"
    return path


def record(workloads, out_dir, mem=64, timeout=1800, sampled=False):
    """Boots once, runs the workloads under trace, copies each trace into out_dir; returns
    {name: path}. Exits with the console's tail when a workload or its trace failed."""
    lines = SETUP + [command(n, c, sampled) for n, c in workloads] + ["audit"]
    with tempfile.TemporaryDirectory() as d:
        img, args = private_boot(d, mem, timeout)
        text = "".join(l + '\necho "?=$?"\n' for l in lines)
        p = subprocess.run(args, input=text.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode("utf-8", "replace")
        statuses = re.findall(r"^\?=(\d+)", out, re.M)
        if p.returncode != 0 or statuses != ["0"] * len(lines) or "audit: ok" not in out:
            sys.exit("record_traces: a workload failed (exit %d, statuses %s); the console:\n%s"
                     % (p.returncode, statuses, out[-4000:]))
        paths = {}
        os.makedirs(out_dir, exist_ok=True)
        for name, _ in workloads:
            paths[name] = copy_out(img, name, out_dir)
        return paths, out


def session_lines():
    """The session's foreground work, as typed (both loops)."""
    return SESSION_WORK * SESSION_LOOPS


# What --measure reads before and after the traced work, and the VM's frames sampled meanwhile.
MEASURE = ["vm.faults", "vm.pageins", "vm.evictions"]


def measured(out):
    """--measure's counters over the traced work and the most frames the VM held, or None."""
    stamp = "vmstat -n " + " ".join(MEASURE)
    got = []
    for m in re.finditer(re.escape(stamp) + r"\n", out):
        nums = re.findall(r"^(\d+)$", out[m.end():m.end() + 4000], re.M)[:len(MEASURE)]
        if len(nums) == len(MEASURE):
            got.append([int(n) for n in nums])
    a = out.find(stamp + "\n")
    frames = [int(v) for v in re.findall(r"^@\d+ (\d+)$", out[a:out.find(stamp + "\n", a + 1)], re.M)]
    if len(got) != 2 or not frames:
        return None
    r = {k: got[1][i] - got[0][i] for i, k in enumerate(MEASURE)}
    r["frames"] = max(frames)
    return r


def record_session(out_dir, mem=SESSION_MEM, timeout=3600, policy=None, measure=False):
    """The workstation session under a followed ordered trace; ({"session": path}, console).
    policy: vm.policy for the run (default the kernel's, clock). measure: the kernel's own faults,
    page-ins and evictions over the traced work and the VM's frames each second, printed, so that
    the simulator can replay the trace at the memory the VM had and be held against the kernel
    on the very references it saw (docs/lab-replacement.md)."""
    start = SESSION_SETUP + ["mkdir /traces"] + (["sysctl vm.policy=%s" % policy] if policy else []) + \
        ["sysctl vm.trace_order=1", "sysctl vm.trace_epoch_ms=%d" % SESSION_EPOCH_MS,
         "trace -f -w session -o /traces/session.trace &"] + SESSION_BACKGROUND
    stamp = ["vmstat -n " + " ".join(MEASURE)] if measure else []
    work = (["vmstat -i 1000 0 mem.frames.vm &"] if measure else []) + stamp + session_lines() + stamp + \
        ["echo session-done"]

    def finish(out):
        jobs = re.findall(r"^\[(\d+)\]$", out, re.M)
        return "kill %s\nsysctl vm.trace_epoch_ms=0\n" % " ".join("-" + j for j in jobs[1:])

    steps = [(None, "\n".join(start) + "\n"), (ENV_READY, "\n".join(work) + "\n"),
             (r"\nsession-done\n", finish), (r"trace: \d+ records.*\n", "audit\n"), ("audit: ", "")]
    with tempfile.TemporaryDirectory() as d:
        keep = os.path.join(d, "fs.img")
        log = os.path.join(ROOT, "build", "traces", "session-record.log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        print("record_traces: the session; its console in %s" % os.path.relpath(log, ROOT), flush=True)
        rc, out, _, _ = boot_steps(steps, mem=mem, timeout=timeout, keep=keep, log=log, **SESSION_CPU)
        if rc != 0 or "audit: ok" not in out or not re.search(r"trace: \d+ records.*, 0 lost", out):
            sys.exit("record_traces: the session failed (exit %d); the console:\n%s" % (rc, out[-4000:]))
        os.makedirs(out_dir, exist_ok=True)
        if measure:
            r = measured(out)
            if r is None:
                sys.exit("record_traces: the session's counters could not be read; the console:\n%s" % out[-4000:])
            print("record_traces: the kernel under the trace, %d MB, vm.policy=%s: %d faults, %d page-ins, "
                  "%d evictions; the VM held at most %d frames (replay the trace at that size)" % (
                      mem, policy or "clock", r["vm.faults"], r["vm.pageins"], r["vm.evictions"], r["frames"]))
        return {"session": copy_out(keep, "session", out_dir)}, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "traces"))
    ap.add_argument("--only", help="comma list of workloads (default: all, and session)")
    ap.add_argument("--sampled", action="store_true", help="the old sampled traces (no order), into traces/sampled")
    ap.add_argument("--session-mem", type=int, default=SESSION_MEM, help="MB of the session's machine")
    ap.add_argument("--policy", help="vm.policy while the session is traced (default: the kernel's)")
    ap.add_argument("--measure", action="store_true",
                    help="print the kernel's faults, page-ins and evictions under the session's trace, and its VM's frames")
    a = ap.parse_args()
    names = [w[0] for w in WORKLOADS] + ["session"]
    only = a.only.split(",") if a.only else names
    if set(only) - set(names):
        sys.exit("record_traces: no workload named %s (%s)" % (a.only, ", ".join(names)))
    if a.sampled and a.out == ap.get_default("out"):
        a.out = os.path.join(ROOT, "traces", "sampled")
    chosen = [w for w in WORKLOADS if w[0] in only]
    paths, out = {}, ""
    if chosen:
        paths, out = record(chosen, a.out, sampled=a.sampled)
    if "session" in only and not a.sampled:
        p, o = record_session(a.out, mem=a.session_mem, policy=a.policy, measure=a.measure)
        paths.update(p)
        out += o
    for line in re.findall(r"^trace: .*", out, re.M):
        print(line)
    for name, path in paths.items():
        print("%s: %d bytes" % (os.path.relpath(path, ROOT), os.path.getsize(path)))


if __name__ == "__main__":
    main()
