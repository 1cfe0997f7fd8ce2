#!/usr/bin/env python3
"""make bench-fork: the thesis's Table 7-1 in QEMU. fork+exit+wait in the parent against its
resident size, for each fork mode the kernel has (vm.fork=cowcor, vm.fork=copy) and with the
pages memory-resident or on backing store (when the kernel can push them out). Guest time under
-icount shift=0: exact and repeatable. Prints a table; writes build/bench/fork.csv."""
import csv, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [0, 64, 128, 256, 512, 1024, 2048, 4096]
ITER = int(os.environ.get("ITER", "20"))


def run(cmdline, args):
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools/runqemu.py"), "--kernel", os.path.join(ROOT, "build/kernel.elf"),
         "--append", cmdline, "--disk", os.path.join(ROOT, "build/fs.img"), "--mem", "64", "--icount",
         "--timeout", "600"],
        input=("forkbench -n %d %s\n" % (ITER, args)).encode(), stdout=subprocess.PIPE).stdout.decode()
    return out


def main():
    os.makedirs(os.path.join(ROOT, "build/bench"), exist_ok=True)
    rows, copy4k, raw = [], None, ""
    for mode in ("cowcor", "copy"):
        out = raw = run("vm.fork=%s" % mode, " ".join(map(str, SIZES)))
        if "unknown setting 'vm.fork'" in out:
            print("bench-fork: this kernel has no vm.fork setting: it always copies")
        else:
            # Pages on backing store need vm.pageout (the demand-paged VM).
            back = run("vm.fork=%s" % mode, "-b " + " ".join(map(str, SIZES)))
            if "vm.pageout:" in back:
                print("bench-fork: this kernel cannot push pages to backing store; resident rows only")
            else:
                out += back
        m = re.search(r"^copy4k (\d+)", out, re.M)
        if m:
            copy4k = int(m.group(1))
        for kb, label, ns in re.findall(r"^fork (\d+) (\S+) (\d+)", out, re.M):
            fmode, where = label.split("/")
            rows.append((int(kb), fmode, where, int(ns)))
        if "unknown setting 'vm.fork'" in out:
            break
    if not rows:
        sys.exit("bench-fork: no figures; console output:\n" + raw)
    print("fork+exit+wait, guest time under -icount shift=0 (1 ns = 1 instruction), %d forks each" % ITER)
    print("guest copy of one 4 KB page in the same runs: %s ns" % copy4k)
    print("%8s  %-8s  %-9s  %12s" % ("KB", "mode", "pages", "ms per fork"))
    for kb, mode, where, ns in rows:
        print("%8d  %-8s  %-9s  %12.3f" % (kb, mode, where, ns / 1e6))
    with open(os.path.join(ROOT, "build/bench/fork.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["resident_kb", "fork_mode", "pages", "ns_per_fork", "copy4k_ns", "clock"])
        for kb, mode, where, ns in rows:
            w.writerow([kb, mode, where, ns, copy4k, "icount shift=0 (guest ns)"])


if __name__ == "__main__":
    main()
