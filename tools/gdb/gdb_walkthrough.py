#!/usr/bin/env python3
"""Makes the transcripts of docs/gdb.md by running them: `make gdb-walkthrough`.

Each scenario boots the -Og kernel (build/debug/kernel.elf) waiting for gdb, feeds the guest's
shell its workload, and runs gdb in batch mode on the project's commands (tools/gdb/rungdb.py, as
`make gdb` does). The output of each gdb command is written into docs/gdb.md under "(gdb)
COMMAND", between the markers <!-- gdb:NAME --> and <!-- /gdb:NAME --> of the block its step
names; the prose around the blocks is left alone. Times, frame numbers and pids come from the
run, so they change from one regeneration to the next; the prose speaks of what every run
shows.

  python3 tools/gdb/gdb_walkthrough.py [--only SCENARIO] [--keep DIR]
  python3 tools/gdb/gdb_walkthrough.py --files DIR

--files writes the host files a scenario puts on its disk (big, the IFS scenario's 12 MB file)
into DIR and prints the command that boots each scenario by hand (then `make gdb`), as
docs/gdb.md says
(tests/host/test_gdb_doc.py holds the document to this file's scenarios).
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
DOC = os.path.join(ROOT, "docs", "gdb.md")
# The one launcher of QEMU (tools/runqemu.py), as the tests and the benchmarks boot through.
sys.path.insert(0, os.path.join(ROOT, "tools"))
import runqemu  # noqa: E402
MARK = "@@@walkthrough "

# (block, gdb command, lines kept: 0 for all; (head, tail) to cut the middle)
IFS_STEPS = [
    ("ifs-negbreak", "negbreak fs", 0),
    ("ifs-negbreak", "continue", 0),
    ("ifs-ps", "ps", 0),
    ("ifs-ps", "seg 10", 0),
    ("ifs-step", "info args", 0),
    ("ifs-step", "next", 0),
    ("ifs-step", "next", 0),
    ("ifs-step", "next", 0),
    ("ifs-step", "next", 0),
    ("ifs-step", "next", 0),
    ("ifs-step", "info locals", 0),
    ("ifs-step", "finish", 0),
    ("ifs-after", "negs 6", 0),
    ("ifs-after", "lru 6", 0),
    ("ifs-frames", "frames vm", (8, 4)),
    ("ifs-penalty", "set var 'kernel/mem/negotiate.c'::penalty_s = 120", 0),
    ("ifs-penalty", "negbreak fs-asks", 0),
    ("ifs-penalty", "continue", 0),
    ("ifs-penalty", "next", 0),
    ("ifs-penalty", "next", 0),
    ("ifs-penalty", "next", 0),
    ("ifs-penalty", "next", 0),
    ("ifs-penalty", "next", 0),
    ("ifs-penalty", "next", 0),
    ("ifs-penalty", "finish", 0),
    ("ifs-clock", "negbreak off", 0),
    ("ifs-clock", "set var 'kernel/mem/negotiate.c'::penalty_s = 0", 0),
    ("ifs-clock", "print 'vm/policy_clock.c'::clock_hand", 0),
    ("ifs-clock", "watch 'vm/policy_clock.c'::clock_hand", 0),
    ("ifs-clock", "continue", 0),
    ("ifs-clock", "bt 6", 0),
    ("ifs-clock", "continue", 0),
    ("ifs-clock", "delete", 0),
    ("ifs-aging", "print 'vm/aging.c'::age_hand", 0),
    ("ifs-aging", "tbreak age_tick", 0),
    ("ifs-aging", "continue", 0),
    ("ifs-aging", "finish", 0),
    ("ifs-aging", "print 'vm/aging.c'::age_hand", 0),
    ("ifs-aging", "counters vm.clock", 0),
    (None, "kill", 0),
]

COW_STEPS = [
    ("cow-break", 'break cow_fault if $_streq(current->name, "forktree") && $cor_slave(s - segtab, va) >= 0', 0),
    ("cow-break", "continue", 0),
    ("cow-break", "bt 3", 0),
    ("cow-before", "set $seg = s - segtab", 0),
    ("cow-before", "set $va = va", 0),
    ("cow-before", "set $slave = $cor_slave($seg, $va)", 0),
    ("cow-before", "cowlists $seg", 0),
    ("cow-before", "pt current->pid $va", 0),
    ("cow-before", "pt $seg_pid($slave) $va", 0),
    ("cow-after", "delete", 0),
    ("cow-after", "finish", 0),
    ("cow-after", "cowlists $seg", 0),
    ("cow-after", "pt $seg_pid($slave) $va", 0),
    ("cow-after", "pt current->pid $va", 0),
    ("cow-usym", "usym", 0),
    ("cow-usym", "tbreak *$ueip if 'kernel/proc.c'::current->pid == $upid", 0),
    ("cow-usym", "continue", 0),
    ("cow-usym", "bt", 0),
    (None, "kill", 0),
]

SCENARIOS = {
    "ifs": dict(mem=16, cmdline="vm.penalty=0", big=12 * 1024 * 1024,
                guest=[(None, "toucher -m 10 -s 5 -n 100 &\n"),
                       (r"touch 1 \d+", "wc -c /big\nwc -c /big\nwc -c /big\nwc -c /big\nmemhog 14\n")],
                steps=IFS_STEPS),
    "cow": dict(mem=16, cmdline="", big=0, guest=[(None, "forktree -k 16 -d 1 -w 2\n")], steps=COW_STEPS),
}


def make_files(tmp, big):
    """The scenario's host files in tmp: big, BIG bytes of 0..255 over and over (its contents
    matter to nobody: only that the cache cannot hold it)."""
    files = []
    if big:
        path = os.path.join(tmp, "big")
        with open(path, "wb") as f:
            f.write(bytes(range(256)) * (big // 256))
        files.append(path)
    return files


def by_hand(name, where):
    """The make command that boots a scenario as the document starts it by hand, its files
    written into where (a path from the project's root)."""
    sc = SCENARIOS[name]
    return "make qemu-gdb MEM=%d%s%s" % (sc["mem"], " FILES=%s/big" % where.rstrip("/") if sc["big"] else "",
                                         " CMDLINE=%s" % sc["cmdline"] if sc["cmdline"] else "")


def make_disk(tmp, big):
    disk = os.path.join(tmp, "fs.img")
    files = make_files(tmp, big)
    subprocess.run([os.path.join(BUILD, "mkfs"), "-o", disk, "-s", "128", "-b", os.path.join(BUILD, "user", "bin")]
                   + files, check=True, stdout=subprocess.DEVNULL)
    return disk


def feed(qemu, log, guest):
    pos = 0
    for rx, text in guest:
        while rx is not None:
            m = re.compile(rx, re.M).search(open(log, errors="replace").read(), pos)
            if m:
                pos = m.end()
                break
            if qemu.poll() is not None:
                return
            time.sleep(0.1)
        qemu.stdin.write(text.encode())
        qemu.stdin.flush()
    # stdin stays open: the shell waits for more, the background jobs go on until gdb kills QEMU


def run(name, sc, tmp):
    disk = make_disk(tmp, sc["big"])
    log = os.path.join(tmp, name + ".console")
    portfile = os.path.join(tmp, name + ".port")
    qemu = subprocess.Popen(runqemu.command(kernel=os.path.join(BUILD, "debug", "kernel.elf"), append=sc["cmdline"],
                                            disk=disk, mem=sc["mem"], gdb="auto", gdb_file=portfile, timeout=300),
                            stdin=subprocess.PIPE, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while not os.path.exists(portfile) and time.time() < deadline and qemu.poll() is None:
        time.sleep(0.05)
    threading.Thread(target=feed, args=(qemu, log, sc["guest"]), daemon=True).start()
    args = [sys.executable, os.path.join(ROOT, "tools", "gdb", "rungdb.py"), portfile, "-batch"]
    for i, (_, cmd, _) in enumerate(sc["steps"]):
        args += ["-ex", "echo %s%d\\n" % (MARK, i), "-ex", cmd]
    out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT, timeout=400).stdout
    qemu.wait(timeout=60)
    text = out.decode("utf-8", "replace")
    parts = re.split(r"^%s(\d+)\n" % re.escape(MARK), text, flags=re.M)
    outputs = {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    return [(block, cmd, cut(outputs.get(i, "(not run)\n"), keep)) for i, (block, cmd, keep) in enumerate(sc["steps"])]


def cut(text, keep):
    lines = text.rstrip("\n").splitlines()
    # absolute paths of this machine never go into the document
    lines = [l.replace(ROOT + "/", "") for l in lines]
    if keep and len(lines) > sum(keep) + 1:
        head, tail = keep
        lines = lines[:head] + ["[... %d lines]" % (len(lines) - head - tail)] + (lines[-tail:] if tail else [])
    return "\n".join(l for l in lines if l.strip() or True)


def fill(doc, results):
    blocks = {}
    for block, cmd, out in results:
        if block and cmd is None:
            blocks.setdefault(block, []).append(out)          # a console, not gdb
        elif block:
            blocks.setdefault(block, []).append("(gdb) %s\n%s" % (cmd, out) if out else "(gdb) %s" % cmd)
    for block, items in blocks.items():
        body = "```\n" + "\n".join(items).rstrip("\n") + "\n```\n"
        pattern = re.compile(r"(<!-- gdb:%s -->\n).*?(<!-- /gdb:%s -->)" % (re.escape(block), re.escape(block)), re.S)
        if not pattern.search(doc):
            sys.exit("gdb_walkthrough: docs/gdb.md has no block %s" % block)
        doc = pattern.sub(lambda m: m.group(1) + body + m.group(2), doc)
    return doc


def panic_transcript(tmp):
    """What `corrupt panic fault` prints on the console of the optimised kernel (no gdb)."""
    disk = make_disk(tmp, 0)
    out = subprocess.run(runqemu.command(kernel=os.path.join(BUILD, "kernel.elf"), append="debug.corrupt=1", disk=disk,
                                         mem=16, timeout=60), input=b"corrupt panic fault\n",
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode("utf-8", "replace")
    start = out.index("$ corrupt panic fault")
    end = out.index("runqemu:", start) if "runqemu:" in out[start:] else len(out)
    return [("panic", None, out[start:end].strip())]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", choices=sorted(SCENARIOS) + ["panic"])
    p.add_argument("--keep", help="keep the consoles and disks here")
    p.add_argument("--files", metavar="DIR", help="write the scenarios' host files into DIR, print how to boot them")
    a = p.parse_args()
    if a.files:
        os.makedirs(a.files, exist_ok=True)
        for name, sc in SCENARIOS.items():
            for f in make_files(a.files, sc["big"]):
                print("gdb_walkthrough: %s written (%d MB)" % (os.path.relpath(f), sc["big"] >> 20))
            print("%s: %s    # then make gdb" % (name, by_hand(name, a.files)))
        return
    tmp = a.keep or tempfile.mkdtemp(prefix="gdbwalk-")
    os.makedirs(tmp, exist_ok=True)
    doc = open(DOC).read()
    try:
        for name, sc in SCENARIOS.items():
            if a.only and name != a.only:
                continue
            print("gdb_walkthrough: %s ..." % name, flush=True)
            doc = fill(doc, run(name, sc, tmp))
        if not a.only or a.only == "panic":
            print("gdb_walkthrough: panic ...", flush=True)
            doc = fill(doc, panic_transcript(tmp))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)     # a disk image of 128 MB a run
    with open(DOC + ".tmp", "w") as f:
        f.write(doc)
    os.replace(DOC + ".tmp", DOC)
    print("gdb_walkthrough: docs/gdb.md updated")


if __name__ == "__main__":
    main()
