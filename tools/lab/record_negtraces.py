"""Records the arbiter lab's negotiation traces (traces/negotiation/*.negtrace.gz) in the kernel.

Each trace is one run of tools/lab/arbiter_runs.py with neg.arbiter_record=1, from the moment
the benchmark resets the negotiation's counters to its end: every negotiation, every page given
up, every refault, and the pages the aging clock found used again (kernel/arbiters.c says what
a record holds; tools/lab/arbitersim/negtrace.c the text format written here).

  ifs-p0      the IFS paper preset at S = 30 s under global LRU (penalty 0): the toucher loses
              its pages to sort's cache and pays for them at its next touch, so the trace holds
              the refaults a learning arbiter learns from, and give-ups of both pools at every age
              (what the replay's cost model is made of)
  ecd-p0      the ECD phases at Sprite's 10 MB, one loop, penalty 0: memory moving between the
              pools at every phase
  ifs-adaptive  the IFS run under the kernel's own vm.penalty_mode=adaptive: its recorded
              decisions are the reference arbiter's, which tests/host/test_arbitersim.py replays

The recording writes 32 bytes an event to QEMU's debug console, one rep outsb, and no file in
the guest (the cache being recorded stays as it would be). What it costs the recorded run has
not been measured: the runs' figures in each trace's first line are the recorded run's own, to
set beside an unrecorded run of tools/lab/arbiter_runs.py.

    python3 tools/lab/record_negtraces.py [--only ifs-p0,ecd-p0,ifs-adaptive]"""
import argparse, gzip, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arbiter_runs as ar   # noqa: E402

ROOT = ar.ROOT
DEST = os.path.join(ROOT, "traces", "negotiation")
TRACES = {
    "ifs-p0": ("ifs", ("penalty", 0)),
    "ecd-p0": ("ecd", ("penalty", 0)),
    "ifs-adaptive": ("ifs", ("adaptive", 0)),
}


def header(what, how, r):
    mode = "adaptive" if how[0] == "adaptive" else "fixed"
    pen = how[1] if how[0] == "penalty" else 0
    if what == "ifs":
        return ("workload=ifs preset=paper interval_s=%d mem_mb=%d penalty_s=%d mode=%s sort_ms=%d "
                "toucher_pageins_after_first=%d slowest_ms=%d" % (ar.IFS_S, ar.IFS_CFG["mem"], pen, mode, r["sort_ms"],
                                                                 r["pageins_after_first"], r["slowest_ms"]))
    return ("workload=ecd mem_paper_mb=%d mem_mb=%d loops=%d penalty_s=%d mode=%s elapsed_ms=%d" % (
        ar.ECD_MB, ar.ECD_MB + 2, ar.ECD_CFG["loops"], pen, mode, r["elapsed_ms"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(TRACES))
    a = ap.parse_args()
    os.makedirs(ar.OUT, exist_ok=True)
    os.makedirs(DEST, exist_ok=True)
    for name in a.only.split(","):
        what, how = TRACES[name]
        raw = os.path.join(ar.OUT, name + ".bin")
        if os.path.exists(raw):
            os.unlink(raw)
        log = os.path.join(ar.OUT, "record-%s.log" % name)
        print("record: %s (%s, %s): booting" % (name, what, ar.label(how)), flush=True)
        try:
            r = ar.ifs_run(how, log, raw) if what == "ifs" else ar.ecd_run(how, log, raw)
        except ar.ParseError as e:
            sys.exit("record: %s: %s" % (name, e))
        with open(raw, "rb") as f:
            text = ar.records_to_text(f.read(), header(what, how, r))
        out = os.path.join(DEST, name + ".negtrace.gz")
        with open(out, "wb") as f:
            # mtime 0: the same records make the same bytes
            with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
                g.write(text.encode())
        print("record: %s: %d events, %s (%d KB)" % (name, text.count("\n") - 2, os.path.relpath(out, ROOT),
                                                     os.path.getsize(out) // 1024), flush=True)


if __name__ == "__main__":
    main()
