#!/usr/bin/env python3
"""make bench-linux: the IFS mix of WRL 90/4 (tools/bench/bench_ifs.py) run under Linux 6.1 in
the same QEMU, so that a table can put Linux's row beside our kernel's.

WHAT STANDS FOR WHAT. The programs are ours, built from the same sources for Linux (user/lib/
linux/: make linux-programs): the same sort with the same -m budget and the same input (mklines
makes it, deterministic), the same toucher, filling its memory first (toucher -f, as the matched
preset of bench_ifs.py runs it: Linux maps a page that is only ever read, never written, to its
one shared zero page, so without -f the 15 MB toucher held 8 MB here and 15 MB in our kernel,
which gives every page a frame of its own, and sort had 7 MB more cache under Linux). The machine is the same QEMU (tools/runqemu.py):
the same virtio disk with the same throttle, the CPU slowed by the same -icount shift with its
clock held to the host's (align=on). Linux is Debian 12's i386 kernel (linux-image-*-686) with
busybox as its user land (tools/linux/), on one disk holding an ext2 file system (4 KB blocks)
and a swap partition, as our kernel keeps its files and its backing store on one disk.

MATCHED MEMORY. What counts is not the machine's size but what a program can hold on it, and
the kernels' own figures do not say it alike (ours: free frames and cache blocks less the
kernel's reserve; Linux's MemAvailable counts reclaimable slab and page cache it may not give
up, and busybox's text in use: at 64 MB it says 39.3 MB where a program keeps 33.2 MB). So it
is found by trying, the same way on both: user/memfit.c grows a heap 64 KB at a time, writes
all of it each step, and stops at the first page-out of the machine (ours: vm.pageouts;
Linux: pswpout). Our kernel is booted at --ours-mem MB and memfit run; Linux's kernel is
larger, so its machine is larger: it is booted at two sizes with memfit, the figure is
interpolated (it grows one for one with the machine) and the size at which Linux keeps at
least what ours keeps is chosen and booted to check (a MB more while short). Both kernels'
figures, memfit's and their own, are printed and written to build/bench/linux-mem.csv;
--linux-mem skips the search. (bench_linux_ecd.py matches by the kernels' own figures:
ECD's environment is sized by MemAvailable.)

SETUPS (--setup). default: Debian's settings. protected: the control rows, Linux set where our
kernel's rules differ and the paper does not study them, and the toucher protected as our
penalty protects it (protect_lines): swappiness 0, the dirty bounds in bytes at ours (10 and
20 % of the frames our pools share after boot, fs/dirtybound.c, where Linux's ratios are of
its dirtyable memory), the root mounted noatime, and the toucher in a cgroup of its own whose
memory.low covers its heap. Read the protected rows against our penalty's, the default ones
against our penalty 0. Each run prints the settings in force, kept in its row (settings).

ONE RUN is one boot on a private copy of a prepared disk (sort's input /in made and synced
beforehand, so it is on disk, not in the cache, when the run begins), at the benchmark's CPU
speed and disk throttle; a script (tools/linux/linuxboot.py hands it over) starts the sampler
(user/sampler.c built for Linux: every second one read() of /proc/meminfo and of /proc/vmstat
and one write() of a line, into a tmpfs) and the toucher (its output into the tmpfs too), waits
for the toucher's first round, reads the counters (one run of the sampler), runs sort between
two time stamps of /proc/uptime, waits for the toucher's round in progress to end (waitlines,
one process for the wait, up to 10 minutes: under Linux a round that began while sort ran can
outlast it by minutes), sleeps S + 2 s, reads the counters again. Sort alone is the same boot
without the toucher.

NOTHING OF THE HARNESS'S IN THE TIMED SECTIONS but that sampler. The runs used to sample with a
function of busybox's shell, whose `read` makes a poll and a one-byte read per character: its
`sample; sleep 1` loop came round every 1.24-1.5 s and took 10-25 % of the CPU while sort was
timed, and the wait after sort forked a grep every second while the toucher's round was timed.
--sampler-cost measures what sampling costs sort alone on both kernels, the same sampler on
ours (its counters through kstat()) as on Linux, with none, and with each kernel's other
sampler (ours: vmstat -i, which make bench-ifs runs; Linux: the shell's, as it was), --runs
boots of each, and prints sort's min/median/max and, on Linux, the sampler's own CPU time a
sample (/proc/PID/stat; ours counts no CPU time by process) (build/bench/sampler-cost.csv).
Every run's row has that CPU time too (sampler_cpu_ms).

WHAT A ROW REPORTS, in ifs.csv's columns where they apply (bench_ifs.COLUMNS): the toucher's
responses (the rounds that began while sort ran and the first after), sort's time (the two
stamps) and its own (-v), page-ins and page-outs of the whole machine (pswpin, pswpout of
/proc/vmstat), the toucher's page-ins (its major faults, which the library's getprocinfo reads
from /proc/PID/stat), all major faults (pgmajfault, for pageins_all), the disk's reads and
writes (/proc/diskstats), the file cache's least and greatest size from sort's start (Cached of
/proc/meminfo, sampled). What has no Linux counterpart stays empty: the penalty, the
negotiation's counters, the toucher's own page-outs (Linux does not count them by process).
The disk's requests by class across sort, as bench_ifs.py's (read_requests, read_kb,
write_requests, write_kb, flush_requests: /proc/diskstats' reads, read sectors, writes, written
sectors and flushes of vda), printed by class under the table beside ours.
Added at the end: free_after_boot_kb, available_after_boot_kb, kernel, and what
decides how Linux's figures read: hz (CONFIG_HZ of the kernel's own config), cmdline (its
command line, /proc/cmdline) and lru_gen (/sys/kernel/mm/lru_gen/enabled: 0x0000 is Debian's
default, the multi-gen LRU built in but off; "absent" when not built); setup, settings (the
settings in force) and memfit_kb (what memfit kept on this machine).

PRESETS.
  paper     bench_ifs.py's paper preset on Linux: its machine matched to ours at 10 MB by
            memfit, a toucher of what memfit kept on ours less 1 MB (bench_ifs.LEAVE_KB), sort
            of 3 MB with sort's default budget (-m 128), the disk at 1 MB/s and 25 requests a
            second, -icount shift=7 (7.8 MIPS), align=on; S = 5 and 30, and sort alone.
  matched   memory matched to ours at 20 MB (about 17 MB to programs), a 15 MB toucher, sort
            of 8 MB with -m 320, the disk at 512 KB/s and 100 requests a second, -icount
            shift=4 (62.5 MIPS), align=on; S = 5 and 30, and sort alone.
  short     for the test: full speed, no throttle, a 1 MB toucher, sort of 256 KB with -m 32,
            S = 1, a 64 MB machine (no search).

    bench_linux.py [--preset paper|matched|short] [--setup default|protected|both] [--intervals 5,30]
                   [--runs 1] [-j 1] [--ours-mem MB]
                   [--linux-mem MB] [--toucher-mb MB] [--sort-input SIZE] [--sort-kb KB]
                   [--throttle-bps N] [--throttle-iops N] [--icount SHIFT|none] [--no-standalone]
    bench_linux.py --sampler-cost [--preset ...] [--runs 3] [-j 1] [--cost-kernels ours,linux]

Writes build/bench/linux-ifs.csv (one line a run; a preset's lines replace its earlier ones),
linux-ifs-series.csv (cache, swap traffic and responses over time), linux-mem.csv (and with
--sampler-cost only sampler-cost.csv, a preset's and kernel's lines replacing their earlier ones), the console
of each run under build/bench/linux-logs and the figure linux-ifs-PRESET.png. The parsing below
is pure (console text in, numbers out); tests/host/test_bench_linux.py holds it."""
import argparse, csv, os, re, statistics, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "linux"))
from benchlib import ROOT, RUN_COLUMNS, Journal, boot_steps, bench_path, run_all, run_identity, spread   # noqa: E402
import linuxboot  # noqa: E402

NAME = "bench-linux"
PRESETS = {
    "matched": dict(ours_mem=20, linux_mem=None, toucher_mb=15.0, sort_input="8M", sort_kb=320,
                    throttle_bps=512 << 10, throttle_iops=100, icount=4, intervals="5,30"),
    # toucher_mb None: what memfit kept on our kernel at ours_mem, less LEAVE_KB (bench_ifs's paper
    # preset leaves 1 MB of what its free frames say, computed in the guest).
    "paper": dict(ours_mem=10, linux_mem=None, toucher_mb=None, sort_input="3M", sort_kb=128,
                  throttle_bps=1 << 20, throttle_iops=25, icount=7, intervals="5,30"),
    "short": dict(ours_mem=None, linux_mem=64, toucher_mb=1.0, sort_input="256K", sort_kb=32,
                  throttle_bps=None, throttle_iops=None, icount=None, intervals="1"),
}
SETUPS = ("default", "protected")
# The least machine this Linux boots on with its initramfs (34 MB hangs while booting, until the
# run's timeout): the search for a matched size starts there.
LINUX_LEAST_MB = 36
DIRTY_BACKGROUND_PCT, DIRTY_PCT = 10, 20     # fs/dirtybound.c's defaults (a host test reads them)
LOW_SLACK_KB = 512        # memory.low above the toucher's heap: its page tables, stack and text
SAMPLE_S = 1
VMSTAT = ["pswpin", "pswpout", "pgmajfault"]
MEMINFO = ["Cached", "MemFree", "SwapFree"]

# The columns of build/bench/ifs.csv (tools/bench/bench_ifs.py) that this benchmark fills or
# leaves empty, in their order there, then Linux's own. tests/host/test_bench_linux.py checks
# that every one of the first list is still one of ifs.csv's.
IFS_COLUMNS = ["preset", "kind", "interval_s", "penalty_s", "mode", "run", "policy", "mem_mb", "toucher_kb",
               "sort_input", "throttle_bps", "throttle_iops", "icount_shift", "rounds", "resp_min_ms", "resp_max_ms",
               "resp_avg_ms", "sort_ms", "sort_internal_ms", "pageins", "pageouts", "toucher_pageins",
               "toucher_pageouts", "cache_min_kb", "cache_max_kb", "fs_asks_vm", "fs_asks_vm_satisfied",
               "vm_asks_fs", "vm_asks_fs_satisfied", "age_lag_ms", "pageins_all", "disk_reads", "disk_writes",
               "sort_host_ms", "host_load", "read_requests", "write_requests", "read_kb", "write_kb", "flush_requests"]
# hz, cmdline, lru_gen: the Linux guest's tick (CONFIG_HZ), kernel command line and multi-gen LRU
# state (/sys/kernel/mm/lru_gen/enabled), which decide what its figures mean.
GUEST = ["hz", "cmdline", "lru_gen"]
# setup: default (Debian's settings) or protected (protect_lines); memfit_kb: what memfit kept on this
# machine (the memory matching's figure, also in linux-mem.csv).
COLUMNS = IFS_COLUMNS + ["sort_kb", "free_after_boot_kb", "available_after_boot_kb", "kernel"] + GUEST + [
    "sampler_cpu_ms", "setup", "memfit_kb", "settings"] + RUN_COLUMNS
SERIES = ["preset", "interval_s", "penalty_s", "mode", "run", "what", "t_s", "value", "pageins", "setup"]


class ParseError(Exception):
    pass


# --- the guest's script -------------------------------------------------------------------------
ROUND_WAIT_S = 600      # how long a run waits after sort for the toucher's round in progress
# The compiled sampler (user/sampler.c, built for Linux): what it reads every SAMPLE_S seconds
# into the tmpfs, and what it reads once at the two stamps around the timed section (the same,
# and vda's reads and writes of /proc/diskstats).
SAMPLED = "/proc/meminfo %s /proc/vmstat %s" % (" ".join(MEMINFO), " ".join(VMSTAT))
# /proc/diskstats' words after vda's name: requests completed by class and sectors of 512 bytes
# (Documentation/admin-guide/iostats.rst), the classes our kernel counts (bench_ifs.REQUESTS).
DISK = {"vda@1": "reads", "vda@5": "writes", "vda@3": "read_sectors", "vda@7": "write_sectors", "vda@16": "flushes"}
STAMPED = SAMPLED + " /proc/diskstats " + " ".join(DISK)
SAMPLERS = ("sampler", "none", "shell")


def shell_sampler():
    """The sampler these runs had before user/sampler.c: a function of busybox's shell whose
    `read` makes a poll and a one-byte read per character. Kept only so that --sampler-cost
    can say what it cost; no benchmark's run uses it."""
    return [
        "sample() {",
        "  read up rest < /proc/uptime",
        "  while read k v u; do case $k in %s) eval m_${k%%:}=$v;; esac; done < /proc/meminfo"
        % "|".join(k + ":" for k in MEMINFO),
        "  while read k v; do case $k in %s) eval v_$k=$v;; esac; done < /proc/vmstat" % "|".join(VMSTAT),
        "  echo \"@${up%%.*}${up#*.}0 %s %s\"" % (" ".join("$m_" + k for k in MEMINFO),
                                                  " ".join("$v_" + k for k in VMSTAT)),
        "}",
        "(echo \"@sampler %s %s\"; while :; do sample; sleep %d; done) > /mnt/samples &"
        % (" ".join(MEMINFO), " ".join(VMSTAT), SAMPLE_S),
    ]


# The protected setup (--setup protected): Linux's settings that stand where our kernel's differ
# and the paper does not study them, set as ours are, and the toucher protected as our penalty
# protects it. Each a command of the script; a failing one fails the run.
CGROUP = "/sys/fs/cgroup"
SETTINGS = "/proc/sys/vm/swappiness /proc/sys/vm/dirty_background_bytes /proc/sys/vm/dirty_bytes"


def protect_lines(p):
    """p: {dirty_background_bytes, dirty_bytes, low_bytes}. Swap only when nothing else is left
    (swappiness 0), the dirty bounds in bytes (ours: fs/dirtybound.c, 10 and 20 % of the frames
    the pools share, where Linux's ratios are of its dirtyable memory), no access times written
    (ours writes none: a read dirties no inode), and the toucher in a cgroup of its own whose
    memory.low keeps its pages from reclaim while the rest of the machine has any to give."""
    return ["echo 0 > /proc/sys/vm/swappiness",
            "echo %d > /proc/sys/vm/dirty_background_bytes" % p["dirty_background_bytes"],
            "echo %d > /proc/sys/vm/dirty_bytes" % p["dirty_bytes"],
            "mount -o remount,noatime /",
            "mount -t cgroup2 cgroup2 %s" % CGROUP,
            "echo +memory > %s/cgroup.subtree_control" % CGROUP,
            "mkdir %s/toucher" % CGROUP,
            "echo %d > %s/toucher/memory.low" % (p["low_bytes"], CGROUP)]


def script(toucher_mb, interval, sort_input_path, sort_kb, sampler="sampler", protect=None):
    """The commands of one run (busybox sh). Lines it prints for the host begin with '@'.
    Nothing of the shell's runs between the two stamps but sort: the sampler in the background
    is the compiled one (sampler="none": no sampler, "shell": the old one, for --sampler-cost),
    the counters are read at the stamps by one run of it, and the wait after sort for the
    toucher's round is one process (waitlines), not a grep a second. protect: the protected
    setup's figures (protect_lines), or None for Debian's settings; either way the settings in
    force are printed ("@setup ...") and kept with the row."""
    lines = ["mount -t tmpfs -o size=4m tmpfs /mnt", ": > /mnt/samples"]
    if protect:
        lines += ["%s || exit 1" % l for l in protect_lines(protect)]
    lines += ["echo \"@setup $(cat %s | tr '\\n' ' ')$(grep ' / ' /proc/mounts | cut -d' ' -f4)\"" % SETTINGS]
    if sampler == "sampler":
        # By its path, not through init2's function of its name: the background job is then the
        # sampler itself (a function would run it as a child of a subshell), so that $! is its
        # pid and /proc/$!/stat its own CPU time.
        lines += ["/usr/bin/sampler -i %d -n 0 %s > /mnt/samples &" % (SAMPLE_S * 1000, SAMPLED)]
    elif sampler == "shell":
        lines += shell_sampler()
    elif sampler != "none":
        raise ValueError("sampler %r: one of %s" % (sampler, ", ".join(SAMPLERS)))
    lines += ["sampler_pid=$!" if sampler != "none" else "sampler_pid="]
    if interval is not None:
        toucher = "toucher -t -m %g -f -s %g -n 100000" % (toucher_mb, interval)
        if protect:
            # Into its cgroup before it allocates anything: a shell that moves itself there and
            # becomes the toucher, so that $! is the toucher's pid.
            toucher = "/bin/sh -c 'echo $$ > %s/toucher/cgroup.procs && exec /usr/bin/%s'" % (CGROUP, toucher)
        lines += [
            "%s > /mnt/toucher &" % toucher,
            "toucher=$!",
            "waitlines /mnt/toucher 'touch 1 ' 1 %d > /dev/null" % ROUND_WAIT_S,
            "echo \"@cgroup $(cat /proc/$toucher/cgroup) $(cat %s/toucher/memory.low 2>/dev/null)\"" % CGROUP,
        ]
    lines += [
        "echo @before; sampler %s" % STAMPED,
        "read up rest < /proc/uptime; echo \"@stamp 0 ${up%%.*}${up#*.}0\"",
        "sort -v -m %d -o /tmp/out %s" % (sort_kb, sort_input_path),
        "st=$?",
        "read up rest < /proc/uptime; echo \"@stamp 1 ${up%%.*}${up#*.}0\"",
    ]
    if interval is not None:
        # A round the toucher began while sort ran may outlast sort by minutes when Linux has
        # swapped the toucher out: wait for it to end (up to ROUND_WAIT_S), or it is not seen.
        lines += [
            "waitlines /mnt/toucher 'touch ' +1 %d > /dev/null" % ROUND_WAIT_S,
            "sleep %g" % (interval + 2),
        ]
    lines += [
        "echo @after; sampler %s" % STAMPED,
        # The sampler's own CPU time and its reaped children's (the shell's sleeps), from
        # /proc/PID/stat: read after the timed sections, before it is killed.
        "[ -n \"$sampler_pid\" ] && echo \"@cpu $(cat /proc/$sampler_pid/stat)\"",
        "kill $sampler_pid %s" % ("$toucher" if interval is not None else ""),
        "echo '@samples'; cat /mnt/samples",
        "echo '@toucher'; cat /mnt/toucher 2>/dev/null",
        "echo '@end'",
        "exit $st",
    ]
    return "\n".join(lines) + "\n"


# --- parsing: console text in, numbers out ------------------------------------------------------
TOUCH = re.compile(r"^touch (\d+) (\d+) ms, (\d+) page-ins, at (\d+) ms$", re.M)
SORT_V = re.compile(r"sort: (\d+) lines, (\d+) runs in (\d+) ms, (\d+) merge passes and the last merge in (\d+) ms")
SAMPLER_HEAD = re.compile(r"^@sampler (.+)$", re.M)
USER_HZ = 100          # the unit of /proc/PID/stat's times (i386 Linux's USER_HZ, not its HZ)


def sampler_cpu_ms(out):
    """The background sampler's CPU time in ms, its own and its reaped children's (utime, stime,
    cutime, cstime: fields 14-17 of /proc/PID/stat, after the name in parentheses), or "" when
    the run had no sampler or was recorded before this was printed."""
    m = re.search(r"^@cpu \d+ \(.*\) (.*)$", out, re.M)
    if not m:
        return ""
    f = m.group(1).split()          # from field 3, the state, on
    if len(f) < 15 or not all(x.isdigit() for x in f[11:15]):
        raise ParseError("the sampler's /proc/PID/stat %r has no times" % m.group(0)[:120])
    return sum(int(x) for x in f[11:15]) * 1000 // USER_HZ


SETUP_LINE = re.compile(r"^@setup (\d+) (\d+) (\d+) (\S+)$", re.M)
CGROUP_LINE = re.compile(r"^@cgroup \d+::(\S+) ?(\d*)\s*$", re.M)


def settings(out):
    """The settings a run had (the script's @setup and @cgroup lines) as one cell:
    "swappiness=60 dirty_background_bytes=0 dirty_bytes=0 root=rw,relatime" and, when the
    toucher ran, its cgroup and that cgroup's memory.low ("toucher_cgroup=/toucher
    memory.low=1572864"; the default's mounts no cgroup file system, and its toucher's
    /proc/PID/cgroup is empty); "" for a run recorded before them."""
    m = SETUP_LINE.search(out)
    if not m:
        return ""
    text = "swappiness=%s dirty_background_bytes=%s dirty_bytes=%s root=%s" % m.groups()
    c = CGROUP_LINE.search(out)
    if c:
        text += " toucher_cgroup=%s" % c.group(1) + (" memory.low=%s" % c.group(2) if c.group(2) else "")
    return text


def sample_values(text, names):
    """(uptime ms, {name: value}) of one sample line's text after its '@'."""
    vals = text.split()
    if len(vals) != len(names) + 1 or not all(v.isdigit() for v in vals):
        raise ParseError("a sample %r has not the %d values of %s" % (text, len(names), " ".join(names)))
    return int(vals[0]), dict(zip(names, map(int, vals[1:])))


def sampler_output(text):
    """(names, [(uptime ms, {name: value})]) of what user/sampler.c wrote: its header
    "@sampler NAME..." and a line "@UPTIME VALUE..." a sample. A line short of a value, or with
    a value that is no number ("?": a name gone from its source), is an error; so is a header
    that is not there when samples are. A last line cut short (the sampler killed while
    writing it: its one write() makes that all but impossible) is one too."""
    head = SAMPLER_HEAD.search(text)
    rows = [l[1:] for l in text.splitlines() if l.startswith("@") and not l.startswith("@sampler ")]
    if not head:
        if rows:
            raise ParseError("samples without the sampler's header")
        return [], []
    names = head.group(1).split()
    return names, [sample_values(r, names) for r in rows]


def stamp_sample(out, what, old_names):
    """The counters read at a stamp (@before, @after): one run of the sampler after the mark
    "@WHAT" (its header and one sample), or in a run recorded before user/sampler.c, the shell's
    "@WHAT @UPTIME VALUE..." in the names of "@head"."""
    m = re.search(r"^@%s\n(@sampler .+\n@\d+(?: \S+)*)$" % what, out, re.M)
    if m:
        names, samples = sampler_output(m.group(1))
        return samples[0][1]
    m = re.search(r"^@%s @(.+)$" % what, out, re.M)
    if not m or old_names is None:
        raise ParseError("no counters %s sort" % what)
    return sample_values(m.group(1), old_names)[1]


def parse_run(out, toucher):
    """The numbers of one run from its console text (see the module's docstring)."""
    meminfo = linuxboot.boot_meminfo(out)
    if meminfo is None:
        raise ParseError("no /proc/meminfo after boot")
    if "\n@before" not in out:
        raise ParseError("the script did not start")
    head = re.search(r"^@head (.+)$", out, re.M)         # runs recorded before user/sampler.c
    old_names = head.group(1).split() if head else None
    r = {"free_after_boot_kb": meminfo.get("MemFree"), "available_after_boot_kb": meminfo.get("MemAvailable")}
    k = re.search(r"^linux-init: Linux (\S+) up", out, re.M)
    r["kernel"] = k.group(1) if k else ""
    r.update(linuxboot.boot_facts(out))
    r["sampler_cpu_ms"] = sampler_cpu_ms(out)
    r["settings"] = settings(out)
    stamps = dict((int(a), int(b)) for a, b in re.findall(r"^@stamp (\d) (\d+)$", out, re.M))
    if 0 not in stamps or 1 not in stamps:
        raise ParseError("sort's time stamps are missing (sort did not run to its end?)")
    t0, t1 = stamps[0], stamps[1]
    m = SORT_V.search(out)
    if not m:
        raise ParseError("sort did not finish (no line of sort -v)")
    r.update(sort_ms=t1 - t0, sort_internal_ms=int(m.group(3)) + int(m.group(5)), sort_runs=int(m.group(2)),
             sort_passes=int(m.group(4)), t0=t0, t1=t1)
    ba = {what: stamp_sample(out, what, old_names) for what in ("before", "after")}
    r["before_after"] = ba
    r["pageins"] = ba["after"]["pswpin"] - ba["before"]["pswpin"]
    r["pageouts"] = ba["after"]["pswpout"] - ba["before"]["pswpout"]
    r["pageins_all"] = ba["after"]["pgmajfault"] - ba["before"]["pgmajfault"]
    have = [k for k in DISK if k in ba["before"] and k in ba["after"]]
    if have:
        # Runs recorded before the sectors and flushes were read have the first two.
        d = {DISK[k]: ba["after"][k] - ba["before"][k] for k in have}
        r["disk_reads"], r["disk_writes"] = d["reads"], d["writes"]
        r["read_requests"], r["write_requests"] = d["reads"], d["writes"]
        if "read_sectors" in d:
            r["read_kb"], r["write_kb"], r["flush_requests"] = d["read_sectors"] // 2, d["write_sectors"] // 2, d["flushes"]
    else:
        disk = dict((int(a), (int(b), int(c))) for a, b, c in re.findall(r"^@disk (\d) (\d+) (\d+)$", out, re.M))
        if 0 in disk and 1 in disk:
            r["disk_reads"] = disk[1][0] - disk[0][0]
            r["disk_writes"] = disk[1][1] - disk[0][1]
    body = out.split("\n@samples\n", 1)
    if len(body) < 2:
        raise ParseError("no samples (the script did not reach its end)")
    # No sampler (--sampler-cost's "none") leaves the block empty: the mark follows at once.
    samples_text, _, rest = ("\n" + body[1]).partition("\n@toucher\n")
    if old_names is not None and not SAMPLER_HEAD.search(samples_text):
        samples = [sample_values(l[1:], old_names) for l in samples_text.splitlines() if l.startswith("@")]
    else:
        samples = sampler_output(samples_text)[1]
    r["samples"] = samples
    # The sampler's, and the two taken just before sort and after the last sleep.
    since = [s["Cached"] for t, s in samples if t >= t0] + [ba["before"]["Cached"], ba["after"]["Cached"]]
    if since:
        r["cache_min_kb"], r["cache_max_kb"] = min(since), max(since)
    rounds = [tuple(map(int, m.groups())) for m in TOUCH.finditer(rest.partition("\n@end")[0])]
    r["rounds_all"] = rounds
    if not toucher:
        return r
    during = [x for x in rounds if x[0] >= 2 and x[3] < t1 and x[3] + x[1] >= t0]
    after = [x for x in rounds if x[3] >= t1][:1]
    counted = during + after
    if not counted:
        raise ParseError("no round of the toucher during or after sort")
    ms = [x[1] for x in counted]
    r.update(rounds=len(counted), resp_min_ms=min(ms), resp_max_ms=max(ms),
             resp_avg_ms=round(statistics.mean(ms), 1), toucher_pageins=sum(x[2] for x in counted))
    return r


def ours_free_kb(out, reserve):
    """What our kernel leaves to programs after boot: its free frames and cache blocks (the
    cache gives them up) less the kernel's reserve, in KB, from vmstat's two lines."""
    vals = [int(v) for v in re.findall(r"^\s*(?:mem\.frames\.free|fs\.cache\.blocks)\s+(\d+)\s*$", out, re.M)]
    if len(vals) != 2:
        raise ParseError("vmstat printed no free frames and cache blocks")
    return (vals[0] + vals[1] - reserve) * 4


def kernel_reserve():
    """KERNEL_RESERVE of kernel/mem/negotiate.c: the free frames only the kernel takes."""
    with open(os.path.join(ROOT, "kernel", "mem", "negotiate.c")) as f:
        return int(re.search(r"#define\s+KERNEL_RESERVE\s+(\d+)", f.read()).group(1))


def matched_mem(points, target_kb):
    """The least machine size (MB) whose figure (memfit's, or MemAvailable) is at least
    target_kb, by the line through two (MB, KB) points."""
    (m1, a1), (m2, a2) = points[:2]
    if m1 == m2 or a2 == a1:
        raise ParseError("two boots of different sizes are needed for the line")
    slope = (a2 - a1) / (m2 - m1)
    need = m1 + (target_kb - a1) / slope
    return max(int(need) + (0 if need == int(need) else 1), 1)


# --- the runs ------------------------------------------------------------------------------------
MEMFIT = re.compile(r"^memfit: (\d+) KB written and kept", re.M)


def memfit_kb(out):
    """What user/memfit.c kept (KB), from its line."""
    m = MEMFIT.search(out)
    if not m:
        raise ParseError("memfit printed no size")
    return int(m.group(1))


def ours_after_boot(mem, log):
    """Our kernel's figures at mem MB: free_kb (free frames and cache blocks less the reserve,
    what vmstat says is left to programs), shared_kb (free frames and cache blocks: the frames
    the pools share right after boot, of which our dirty bounds are shares), and memfit_kb."""
    line = "vmstat mem.frames.free fs.cache.blocks"
    rc, out, _, _ = boot_steps([(None, line + "\nmemfit\n")], mem=mem, log=log, timeout=600)
    if rc != 0:
        sys.exit("%s: our kernel failed to boot at %d MB: see %s" % (NAME, mem, os.path.relpath(log)))
    text = out.split("$ " + line, 1)[-1]
    try:
        return dict(free_kb=ours_free_kb(text, kernel_reserve()), shared_kb=ours_free_kb(text, 0),
                    memfit_kb=memfit_kb(text))
    except ParseError as e:
        sys.exit("%s: %s: see %s" % (NAME, e, os.path.relpath(log)))


def linux_after_boot(mem, img, log, memfit=True):
    """Linux's /proc/meminfo after boot at mem MB, with memfit_kb when memfit."""
    rc, out = linuxboot.run("memfit\n" if memfit else "true\n", img, mem, log=log, timeout=900)
    info = linuxboot.boot_meminfo(out)
    if rc != 0 or info is None:
        sys.exit("%s: Linux failed to boot at %d MB: see %s" % (NAME, mem, os.path.relpath(log)))
    if memfit:
        try:
            info["memfit_kb"] = memfit_kb(out)
        except ParseError as e:
            sys.exit("%s: %s: see %s" % (NAME, e, os.path.relpath(log)))
    return info


# What each kernel's figure is, by the matching's kind: memfit (what a program writes and keeps,
# both kernels alike: the IFS mix's) or available (ours free + cache - reserve against Linux's
# MemAvailable: ECD's environment is sized by MemAvailable).
MATCH = {"memfit": ("memfit_kb", "memfit_kb"), "available": ("free_kb", "MemAvailable")}


def match_memory(ours_mem, linux_mem, probe_disk, logs, progress, mem_row, probes=(20, 28), least=LINUX_LEAST_MB,
                 by="memfit"):
    """(Linux's MB, its /proc/meminfo after boot, with memfit_kb when by is memfit): linux_mem if
    given, else the least size, and at least least MB, at which Linux's figure of MATCH[by] is at
    least ours at ours_mem MB (the module's docstring), found by booting ours_mem + each of
    probes and going up a MB while short. mem_row gets both kernels' figures, for linux-mem.csv."""
    ours_key, linux_key = MATCH[by]
    fit, search = by == "memfit", linux_mem is None
    if ours_mem is not None and (search or fit):
        ours = ours_after_boot(ours_mem, os.path.join(logs, "ours-%d.log" % ours_mem))
        progress("our kernel at %d MB: %d KB to programs by vmstat, memfit kept %d KB" % (
            ours_mem, ours["free_kb"], ours["memfit_kb"]))
        mem_row.update(ours_mem_mb=ours_mem, ours_free_kb=ours["free_kb"], ours_memfit_kb=ours["memfit_kb"],
                       ours_shared_kb=ours["shared_kb"])
    if search:
        points = []
        for m in (max(ours_mem + probes[0], least), max(ours_mem + probes[1], least + 8)):
            info = linux_after_boot(m, probe_disk, os.path.join(logs, "linux-%d.log" % m), fit)
            points.append((m, info[linux_key]))
            progress("Linux at %d MB: MemAvailable %d KB, MemFree %d KB%s" % (
                m, info["MemAvailable"], info["MemFree"], ", memfit kept %d KB" % info["memfit_kb"] if fit else ""))
        linux_mem = max(matched_mem(points, ours[ours_key]), least)
    info = linux_after_boot(linux_mem, probe_disk, os.path.join(logs, "linux-%d.log" % linux_mem), fit)
    # Linux's figure grows a little slower than the machine (its watermarks and tables grow
    # with it): a size the line chose may fall short, and the next one up is tried.
    while search and info[linux_key] < ours[ours_key]:
        progress("Linux at %d MB: %s %d KB, short of %d KB" % (linux_mem, linux_key, info[linux_key], ours[ours_key]))
        linux_mem += 1
        info = linux_after_boot(linux_mem, probe_disk, os.path.join(logs, "linux-%d.log" % linux_mem), fit)
    progress("Linux at %d MB: MemAvailable %d KB, MemFree %d KB%s%s" % (
        linux_mem, info["MemAvailable"], info["MemFree"], ", memfit kept %d KB" % info["memfit_kb"] if fit else "",
        "" if not search else " (ours: %d KB)" % ours[ours_key]))
    mem_row.update(linux_mem_mb=linux_mem, linux_available_kb=info["MemAvailable"], linux_free_kb=info["MemFree"],
                   linux_total_kb=info["MemTotal"], linux_memfit_kb=info.get("memfit_kb", ""), matched_by=by)
    return linux_mem, info


MEM_COLUMNS = ["preset", "matched_by", "ours_mem_mb", "ours_free_kb", "ours_shared_kb", "ours_memfit_kb",
               "linux_mem_mb", "linux_available_kb", "linux_free_kb", "linux_total_kb", "linux_memfit_kb"]


def prepare(cfg, preset, logs):
    """build/bench/linux-ifs-PRESET.img: a fresh Linux disk with /in made and synced at full speed."""
    base = linuxboot.disk(bench_path("linux-disk.img"))
    img = bench_path("linux-ifs-%s.img" % preset)
    log = os.path.join(logs, "%s-prepare.log" % preset)
    rc, out = linuxboot.run("mklines /in %s && sync && ls -l /in\n" % cfg["sort_input"], base, 128, log=log,
                            keep=img, timeout=900)
    if rc != 0:
        sys.exit("%s: could not make sort's input: see %s" % (NAME, os.path.relpath(log)))
    return img


def protection(cfg, mem_row, info):
    """The protected setup's figures: the dirty bounds as shares of what our kernel's pools share
    after boot (linux-mem.csv's ours_shared_kb; without a boot of ours, of what memfit kept on
    Linux), memory.low the toucher's heap and LOW_SLACK_KB."""
    base = mem_row.get("ours_shared_kb") or info.get("memfit_kb") or info["MemAvailable"]
    return dict(dirty_background_bytes=base * 1024 * DIRTY_BACKGROUND_PCT // 100,
                dirty_bytes=base * 1024 * DIRTY_PCT // 100,
                low_bytes=int(cfg["toucher_mb"] * 1024 + LOW_SLACK_KB) * 1024)


def one_run(cfg, img, interval, log, sampler="sampler", protect=None):
    text = script(cfg["toucher_mb"], interval, "/in", cfg["sort_kb"], sampler, protect)
    rc, out = linuxboot.run(text, img, cfg["linux_mem"], log=log, timeout=3600, icount=cfg["icount"],
                            align=cfg["icount"] is not None, throttle_bps=cfg["throttle_bps"],
                            throttle_iops=cfg["throttle_iops"])
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, os.path.relpath(log)))
    try:
        return parse_run(out, interval is not None)
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, os.path.relpath(log)))


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path, columns, rows, preset, setups=None):
    """rows replace path's earlier rows of preset (of those setups only, when given: a row
    written before setups were recorded is the default's)."""
    keep = [r for r in read_rows(path) if r.get("preset") != preset or
            (setups is not None and (r.get("setup") or "default") not in setups)]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(keep)
        for r in rows:
            w.writerow({k: r.get(k, "") for k in columns})


def series_rows(results, preset):
    out = []
    for r in results:
        base = dict(preset=preset, interval_s=r["interval_s"], penalty_s="", mode="", run=r["run"], setup=r["setup"])
        first = next((s for t, s in r["samples"] if t >= r["t0"]), None)
        for t, s in r["samples"]:
            ts = "%.2f" % ((t - r["t0"]) / 1000)
            out.append(dict(base, what="cache_kb", t_s=ts, value=s["Cached"], pageins=""))
            out.append(dict(base, what="free_kb", t_s=ts, value=s["MemFree"], pageins=""))
            if first:
                out.append(dict(base, what="pswpin", t_s=ts, value=s["pswpin"] - first["pswpin"], pageins=""))
                out.append(dict(base, what="pswpout", t_s=ts, value=s["pswpout"] - first["pswpout"], pageins=""))
        out.append(dict(base, what="sort_end", t_s="%.2f" % ((r["t1"] - r["t0"]) / 1000), value="", pageins=""))
        for n, ms, ins, start in r["rounds_all"]:
            if n >= 2:
                out.append(dict(base, what="touch_ms", t_s="%.2f" % ((start - r["t0"]) / 1000), value=ms, pageins=ins))
    return out


def table_text(rows, preset):
    """Each run of the preset, by setup (each against its own sort alone), then the disk's
    requests by class (ifs_tables.disk_table)."""
    import ifs_tables
    mine = [dict(r, setup=r.get("setup") or "default") for r in rows if r["preset"] == preset]
    lines = []
    for u in [u for u in SETUPS if any(r["setup"] == u for r in mine)]:
        rs = [r for r in mine if r["setup"] == u]
        alone = [int(r["sort_ms"]) for r in rs if r["kind"] == "standalone"]
        base = statistics.median(alone) if alone else None
        lines += ["Linux, preset %s, setup %s (sort alone %s)" % (preset, u, "%.1f s" % (base / 1000) if base else "not run"),
                  "%4s %4s %21s %16s %7s %7s %8s %11s" % ("S", "run", "response min/max/avg", "sort s (deg)", "swapin",
                                                           "swapout", "majflt", "cache KB")]
        for r in sorted(rs, key=lambda r: (r["kind"] != "standalone", float(r["interval_s"] or 0), int(r["run"]))):
            sec = float(r["sort_ms"]) / 1000
            deg = "%.0f%%" % ((float(r["sort_ms"]) / base - 1) * 100) if base and r["kind"] == "ifs" else "-"
            resp = ("%6.2f %6.2f %6.2f" % tuple(float(r[k]) / 1000 for k in ("resp_min_ms", "resp_max_ms", "resp_avg_ms"))
                    if r["kind"] == "ifs" else "%20s" % "sort alone")
            lines.append("%4s %4s %21s %8.1f (%5s) %7s %7s %8s %5s-%-5s" % (
                r["interval_s"] or "-", r["run"], resp, sec, deg, r["pageins"], r["pageouts"], r["pageins_all"],
                r["cache_min_kb"], r["cache_max_kb"]))
        lines.append("")
    lines += ["The disk's requests during sort, by class (medians of the runs [min-max]):",
              ifs_tables.markdown(ifs_tables.disk_table(mine, lambda r: ("Linux " + r["setup"],)))]
    return "\n".join(lines)


# --- what sampling costs (--sampler-cost) --------------------------------------------------------
# Sort alone (the preset's sort, input and budget, on its machine), RUNS times with each way of
# sampling, on both kernels: the compiled sampler (user/sampler.c) on each, none, and each
# kernel's other: on ours vmstat -i (what make bench-ifs runs beside sort), on Linux the busybox
# function these runs had before. The figure is sort's time between its two stamps (guest time).
OURS_SAMPLED = "fs.cache.blocks vm.pageins.backing mem.frames.free"     # bench_ifs.SAMPLED's
OURS_SAMPLERS = {"none": "", "sampler": "sampler -i %d -n 0 kstat %s &\n" % (SAMPLE_S * 1000, OURS_SAMPLED),
                 "vmstat": "vmstat -i %d 0 %s &\n" % (SAMPLE_S * 1000, OURS_SAMPLED)}
COST_CONFIGS = [("ours", "none"), ("ours", "sampler"), ("ours", "vmstat"),
                ("linux", "none"), ("linux", "sampler"), ("linux", "shell")]
COST_LABEL = {("ours", "none"): "none", ("ours", "sampler"): "sampler (kstat, 1 s)",
              ("ours", "vmstat"): "vmstat -i (bench-ifs's, 1 s)", ("linux", "none"): "none",
              ("linux", "sampler"): "sampler (/proc, 1 s)", ("linux", "shell"): "busybox read (before, 1 s)"}
COST_COLUMNS = ["preset", "kernel", "sampler", "run", "mem_mb", "sort_input", "sort_kb", "throttle_bps",
                "throttle_iops", "icount_shift", "sort_ms", "samples_in_sort", "samples", "sampler_cpu_ms",
                "host_load"] + GUEST + RUN_COLUMNS
OURS_SAMPLER_HEAD = re.compile(r"@sampler [^\n]*\n")


def parse_ours_cost(out, typed):
    """(sort's ms between its two stamps, the samples taken meanwhile) of one run of ours, from
    its console and the lines typed: the samplers' lines (vmstat -i's and user/sampler.c's, the
    same "@UPTIME V V V") are taken out wherever they fell, as bench_ifs does."""
    import bench_ifs
    clean, _, samples, _ = bench_ifs.background(out)
    cmds = bench_ifs.split_commands(OURS_SAMPLER_HEAD.sub("", clean), typed)
    try:
        t0, t1 = bench_ifs.stamp(cmds, 0), bench_ifs.stamp(cmds, 1)
    except bench_ifs.ParseError as e:
        raise ParseError(str(e))
    return t1 - t0, sum(1 for t, _ in samples if t0 <= t <= t1)


def ours_cost_run(icfg, sampler, log):
    """One boot of ours at bench_ifs's preset icfg: the sampler (or none), then sort alone
    between two stamps, then the sampler killed."""
    import bench_ifs
    measure = "%s\n%s\n%s\n" % (bench_ifs.STAMP, bench_ifs.sort_line(icfg), bench_ifs.STAMP)
    done = r"(?s)sort: \d+ lines.*@\d+ \d+\n.*\$ "
    kill = lambda out: "".join("kill -%s\n" % j for j in re.findall(r"^\[(\d+)\]$", bench_ifs.background(out)[0],
                                                                   re.M))
    setup = "sysctl vm.policy=%s\n" % icfg["policy"]
    if OURS_SAMPLERS[sampler]:
        steps = [(None, setup + OURS_SAMPLERS[sampler]), (r"\[\d+\]\n", measure), (done, kill)]
    else:
        steps = [(None, setup + measure)]
    rc, out, typed, _ = boot_steps(steps, image=icfg["image"], mem=icfg["mem"], icount=icfg["icount"],
                                   throttle_bps=icfg["throttle_bps"], throttle_iops=icfg["throttle_iops"],
                                   timeout=3600, log=log, align=icfg["align"], clock=icfg.get("clock"))
    if rc != 0:
        raise ParseError("the guest failed (exit %d): see %s" % (rc, os.path.relpath(log)))
    try:
        return parse_ours_cost(out, typed)
    except ParseError as e:
        raise ParseError("%s: see %s" % (e, os.path.relpath(log)))


def cost_table(rows):
    """The figures of --sampler-cost: per kernel and sampler, sort's min/median/max and the
    median's change against the same kernel without a sampler."""
    lines = ["What sampling costs sort alone (s of guest time between its stamps; median against none;",
             "samples taken while sort ran; Linux's sampler's own CPU ms a sample, median, from /proc/PID/stat)",
             "%-6s %-30s %4s %8s %8s %8s %9s %8s %8s" % ("kernel", "sampler", "runs", "min", "median", "max",
                                                        "vs none", "samples", "CPU ms")]
    med = {}
    for kernel, sampler in COST_CONFIGS:
        mine = [r for r in rows if r["kernel"] == kernel and r["sampler"] == sampler]
        if not mine:
            continue
        lo, mid, hi = spread([int(r["sort_ms"]) / 1000 for r in mine])
        med[kernel, sampler] = mid
        base = med.get((kernel, "none"))
        vs = "-" if sampler == "none" or not base else "%+.1f %%" % ((mid / base - 1) * 100)
        n = statistics.median(int(r["samples_in_sort"]) for r in mine)
        per = [int(r["sampler_cpu_ms"]) / int(r["samples"]) for r in mine
               if str(r.get("sampler_cpu_ms", "")).isdigit() and str(r.get("samples", "")).isdigit() and int(r["samples"])]
        lines.append("%-6s %-30s %4d %8.2f %8.2f %8.2f %9s %8g %8s" % (
            kernel, COST_LABEL[kernel, sampler], len(mine), lo, mid, hi, vs, n,
            "%.1f" % statistics.median(per) if per else "-"))
    return "\n".join(lines)


def sampler_cost(a, cfg, logs, progress):
    """--sampler-cost: RUNS boots of sort alone for each of COST_CONFIGS (the kernels chosen),
    interleaved run by run so that a change of the host's load falls on every configuration;
    writes build/bench/sampler-cost.csv and prints cost_table."""
    import bench_ifs
    kernels = [k for k in a.cost_kernels.split(",") if k]
    configs = [c for c in COST_CONFIGS if c[0] in kernels]
    icfg = dict(bench_ifs.PRESETS["matched"], mem=cfg["ours_mem"] or bench_ifs.PRESETS["matched"]["mem"],
                sort_input=cfg["sort_input"], sort_kb=cfg["sort_kb"], throttle_bps=cfg["throttle_bps"],
                throttle_iops=cfg["throttle_iops"], icount=cfg["icount"], align=cfg["icount"] is not None)
    if "ours" in kernels:
        icfg["image"] = bench_ifs.prepare_image("sampler-cost", cfg["sort_input"], logs)
    img = prepare(cfg, a.preset, logs) if "linux" in kernels else None
    hz = linuxboot.kernel_hz() or ""
    jobs = [(k, c) for k in range(1, a.runs + 1) for c in configs]
    progress("sampler cost: %d boots of sort alone (%s), %d at once" % (len(jobs), ", ".join(
        "%s %s" % c for c in configs), a.jobs))
    done = [0]

    def job(j):
        k, (kernel, sampler) = j
        log = os.path.join(logs, "cost-%s-%s-%s-run%d.log" % (a.preset, kernel, sampler, k))
        load = "%.1f" % os.getloadavg()[0]
        row = dict(preset=a.preset, kernel=kernel, sampler=sampler, run=k, sort_input=cfg["sort_input"],
                   sort_kb=cfg["sort_kb"], throttle_bps=cfg["throttle_bps"] or "",
                   throttle_iops=cfg["throttle_iops"] or "", icount_shift="" if cfg["icount"] is None else cfg["icount"],
                   host_load=load)
        row.update(run_identity(a.preset))
        if kernel == "ours":
            ms, n = ours_cost_run(icfg, sampler, log)
            row.update(mem_mb=icfg["mem"], sort_ms=ms, samples_in_sort=n)
        else:
            r = one_run(cfg, img, None, log, sampler)
            row.update(mem_mb=cfg["linux_mem"], sort_ms=r["sort_ms"], hz=hz, cmdline=r["cmdline"],
                       lru_gen=r["lru_gen"], samples_in_sort=sum(1 for t, _ in r["samples"] if r["t0"] <= t <= r["t1"]),
                       samples=len(r["samples"]), sampler_cpu_ms=r["sampler_cpu_ms"])
        done[0] += 1
        progress("[%d/%d] %s, %s, run %d: sort %.2f s, %d samples meanwhile" % (
            done[0], len(jobs), kernel, COST_LABEL[kernel, sampler], k, row["sort_ms"] / 1000, row["samples_in_sort"]))
        return row

    results, failures = run_all(NAME, job, jobs, a.jobs, ParseError)
    path = bench_path("sampler-cost.csv")
    # This preset's rows of the kernels measured now replace their earlier ones; the other
    # kernel's (--cost-kernels ours, then linux) stay.
    keep = [r for r in read_rows(path) if r.get("preset") != a.preset or r.get("kernel") not in kernels]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COST_COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows({k: r.get(k, "") for k in COST_COLUMNS} for r in keep + results)
    print()
    print(cost_table([r for r in read_rows(path) if r["preset"] == a.preset]))
    print("written: " + os.path.relpath(path))
    if failures:
        sys.exit("%s: %d runs failed (above); the others are written" % (NAME, len(failures)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="matched")
    ap.add_argument("--intervals", help="the toucher's sleep intervals, seconds")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("-j", type=int, default=1, dest="jobs", help="QEMUs at once (1)")
    ap.add_argument("--ours-mem", type=int, help="MB of our kernel's machine whose free memory Linux gets")
    ap.add_argument("--linux-mem", type=int, help="MB of Linux's machine (no search)")
    ap.add_argument("--toucher-mb", type=float)
    ap.add_argument("--sort-input", help="the size of sort's input (mklines: 8M, 256K)")
    ap.add_argument("--sort-kb", type=int, help="sort's -m budget")
    ap.add_argument("--throttle-bps", type=int)
    ap.add_argument("--throttle-iops", type=int)
    ap.add_argument("--icount", help="-icount shift, or none (full speed)")
    ap.add_argument("--no-standalone", action="store_true")
    ap.add_argument("--setup", choices=SETUPS + ("both",), default="default",
                    help="default: Debian's settings; protected: the control rows (protect_lines); both")
    ap.add_argument("--no-figures", action="store_true")
    ap.add_argument("--sampler-cost", action="store_true",
                    help="only measure what sampling costs sort alone, on both kernels (--runs of each)")
    ap.add_argument("--cost-kernels", default="ours,linux", help="--sampler-cost's kernels (ours,linux)")
    ap.add_argument("--resume", action="store_true", help="keep the runs the journal has of this preset and code "
                    "(build/bench/journal-linux.jsonl: benchlib.Journal) and run only the others")
    a = ap.parse_args(argv)
    cfg = dict(PRESETS[a.preset])
    for k in ("ours_mem", "linux_mem", "toucher_mb", "sort_input", "sort_kb", "throttle_bps", "throttle_iops",
              "intervals"):
        if getattr(a, k) is not None:
            cfg[k] = getattr(a, k)
    if a.icount is not None:
        cfg["icount"] = None if a.icount == "none" else a.icount
    try:
        intervals = [float(x) if "." in x else int(x) for x in str(cfg["intervals"]).split(",") if x]
    except ValueError:
        sys.exit("%s: --intervals takes seconds separated by commas" % NAME)
    logs = bench_path("linux-logs")
    os.makedirs(logs, exist_ok=True)
    t_start = time.monotonic()

    def progress(text):
        print("%s: %s (%.0f s so far)" % (NAME, text, time.monotonic() - t_start), flush=True)

    try:
        linuxboot.ready()
        probe_disk = linuxboot.disk(bench_path("linux-disk.img"))
    except Exception as e:
        sys.exit("%s: %s" % (NAME, e))
    if a.sampler_cost and "linux" not in a.cost_kernels.split(","):
        return sampler_cost(a, cfg, logs, progress)
    # A machine matched before (the journal, --resume) is not searched for again: each probe is
    # a boot of Linux. The sampler's cost keeps no journal.
    journal = None if a.sampler_cost else Journal("linux", dict(cfg, preset=a.preset), a.resume)
    matched = journal.result(("machine",)) if journal else None
    if matched:
        cfg["linux_mem"], info, mem_row = matched
        progress("Linux at %d MB as matched before (the journal)" % cfg["linux_mem"])
    else:
        mem_row = dict(preset=a.preset)
        cfg["linux_mem"], info = match_memory(cfg["ours_mem"], cfg["linux_mem"], probe_disk, logs, progress, mem_row)
        if journal:
            journal.record(("machine",), (cfg["linux_mem"], info, mem_row))
    write_rows(bench_path("linux-mem.csv"), MEM_COLUMNS, [mem_row], a.preset)
    if cfg["toucher_mb"] is None:
        import bench_ifs
        cfg["toucher_mb"] = (mem_row["ours_memfit_kb"] - bench_ifs.LEAVE_KB) / 1024
    setups = SETUPS if a.setup == "both" else (a.setup,)
    protect = protection(cfg, mem_row, info)

    if a.sampler_cost:
        return sampler_cost(a, cfg, logs, progress)
    img = prepare(cfg, a.preset, logs)
    progress("sort's input (%s) made on the disk" % cfg["sort_input"])
    jobs = [(u, None, k) for u in setups for k in range(1, a.runs + 1)] if not a.no_standalone else []
    jobs += [(u, s, k) for u in setups for s in intervals for k in range(1, a.runs + 1)]
    print("%s: preset %s: Linux at %d MB (memfit kept %s KB), setup %s, toucher %.2f MB, sort of %s with -m %d, disk %s B/s and %s requests/s, "
          "CPU %s; %d boots, %d at once" % (NAME, a.preset, cfg["linux_mem"], info.get("memfit_kb", "?"),
          " and ".join(setups), cfg["toucher_mb"], cfg["sort_input"],
          cfg["sort_kb"], cfg["throttle_bps"] or "any", cfg["throttle_iops"] or "any",
          "full speed" if cfg["icount"] is None else "-icount shift=%s,align=on" % cfg["icount"], len(jobs), a.jobs),
          flush=True)
    done = [0]

    def job(j):
        u, s, k = j
        tag = "%s-%s%s-run%d" % (a.preset, "alone" if s is None else "s%g" % s, "" if u == "default" else "-" + u, k)
        load = "%.1f" % os.getloadavg()[0]
        r = one_run(cfg, img, s, os.path.join(logs, tag + ".log"), protect=protect if u == "protected" else None)
        r.update(setup=u, memfit_kb=info.get("memfit_kb", ""))
        r.update(preset=a.preset, kind="standalone" if s is None else "ifs", interval_s="" if s is None else s,
                 penalty_s="", mode="", run=k, policy="linux", mem_mb=cfg["linux_mem"],
                 toucher_kb="" if s is None else int(cfg["toucher_mb"] * 1024), sort_input=cfg["sort_input"],
                 sort_kb=cfg["sort_kb"], throttle_bps=cfg["throttle_bps"] or "", throttle_iops=cfg["throttle_iops"] or "",
                 icount_shift="" if cfg["icount"] is None else cfg["icount"], host_load=load,
                 hz=linuxboot.kernel_hz() or "")
        r.update(run_identity(a.preset))
        done[0] += 1
        tail = "" if s is None else ", toucher %d page-ins, touches %d-%d ms" % (
            r["toucher_pageins"], r["resp_min_ms"], r["resp_max_ms"])
        progress("[%d/%d] %s, %s run %d: sort %.1f s (%d runs, %d passes), %d swap-ins, %d swap-outs, cache %s-%s KB%s"
                 % (done[0], len(jobs), u, "sort alone" if s is None else "S=%g" % s, k, r["sort_ms"] / 1000,
                    r["sort_runs"], r["sort_passes"], r["pageins"], r["pageouts"], r.get("cache_min_kb", "?"),
                    r.get("cache_max_kb", "?"), tail))
        return r

    results, failures = run_all(NAME, job, jobs, a.jobs, ParseError, journal)
    write_rows(bench_path("linux-ifs.csv"), COLUMNS, results, a.preset, setups)
    write_rows(bench_path("linux-ifs-series.csv"), SERIES, series_rows(results, a.preset), a.preset, setups)
    print()
    print(table_text(read_rows(bench_path("linux-ifs.csv")), a.preset))
    written = ["build/bench/linux-ifs.csv", "build/bench/linux-ifs-series.csv", "build/bench/linux-mem.csv"]
    if not a.no_figures:
        import bench_figures
        png = bench_path("linux-ifs-%s.png" % a.preset)
        bench_figures.linux_ifs(bench_path("linux-ifs.csv"), bench_path("linux-ifs-series.csv"), a.preset, png)
        written.append(os.path.relpath(png))
    print("written: " + ", ".join(written))
    if failures:
        sys.exit("%s: %d runs failed (above); the others are written" % (NAME, len(failures)))


if __name__ == "__main__":
    main()
