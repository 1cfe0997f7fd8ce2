"""A kernel panic names where it came from: its backtrace gives each return address's function,
file and line (kernel/ksyms.c, the table tools/setup/ksyms.py makes from the kernel itself), and a
kernel trap on the way says in which function it struck. `corrupt panic` panics on purpose
(debug.corrupt=1, scaffold/vm_corrupt.c), `corrupt panic fault` by a page fault in the kernel. Every
named line is held against the host's addr2line on the same kernel."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT, boot

sys.path.insert(0, str(ROOT / "tools" / "setup"))
import ksyms  # noqa: E402

KERNELS = {"optimised": BUILD / "kernel.elf", "debug": BUILD / "debug" / "kernel.elf"}


def line_of(path, text):
    return next(i + 1 for i, l in enumerate(open(ROOT / path)) if text in l)


def backtrace(out):
    """[(address, [(function, file, line), ...innermost first])] and the trap lines, in order."""
    assert "backtrace (innermost first):" in out, out
    text = out.split("backtrace (innermost first):\n", 1)[1]
    frames, traps = [], []
    for l in text.splitlines():
        m = re.fullmatch(r"  0x([0-9a-f]{8}) (\w+) \(([\w/.]+):(\d+)\)", l)
        if m:
            frames.append((int(m.group(1), 16), [(m.group(2), m.group(3), int(m.group(4)))]))
            continue
        m = re.fullmatch(r"\s+inlined in (\w+) \(([\w/.]+):(\d+)\)", l)
        if m and frames:
            frames[-1][1].append((m.group(1), m.group(2), int(m.group(3))))
            continue
        m = re.fullmatch(r"  -- trap (\d+) in the kernel at eip 0x([0-9a-f]{8}) (\w+)\+0x([0-9a-f]+)", l)
        if m:
            traps.append((len(frames), int(m.group(1)), m.group(3)))
            continue
        break
    return frames, traps


def addr2line(kernel, addrs):
    """What the host's addr2line says of each return address's call: [(function, file, line)]."""
    tool = shutil.which("i686-linux-gnu-addr2line") or shutil.which("addr2line")
    out = {}
    for a in addrs:
        p = subprocess.run([tool, "-f", "-i", "-e", str(kernel), "0x%x" % (a - 1)], stdout=subprocess.PIPE,
                           text=True, check=True)
        lines = p.stdout.splitlines()
        chain = []
        for fn, loc in zip(lines[0::2], lines[1::2]):
            file, _, num = re.sub(r" \(discriminator \d+\)$", "", loc).rpartition(":")
            chain.append((fn, ksyms.relative(file), int(num)))     # as the kernel's table names it
        out[a] = chain
    return out


@pytest.mark.parametrize("build", ["optimised", "debug"])
def test_panic_backtrace_names_the_function_that_panicked(disk, build):
    kernel = KERNELS[build]
    r = boot("corrupt panic\n", disk=disk, mem=16, cmdline="debug.corrupt=1", kernel=kernel)
    assert r.rc == 1, r
    assert re.search(r"^kernel panic: corrupt panic: asked for by pid \d+ \(debug.corrupt=1\)", r.out, re.M), r
    frames, traps = backtrace(r.out)
    names = [chain[0][0] for _, chain in frames]
    assert names[:5] == ["panic_on_request", "sys_vmcorrupt", "syscall_dispatch", "trap", "alltraps"], (names, r)
    assert frames[0][1][0][1:] == ("scaffold/vm_corrupt.c", line_of("scaffold/vm_corrupt.c", 'panic("corrupt panic:')), r
    assert frames[1][1][0][1:] == ("scaffold/vm_corrupt.c", line_of("scaffold/vm_corrupt.c", "panic_on_request(myproc()->pid)")), r
    assert not traps, r
    host = addr2line(kernel, [a for a, _ in frames])
    for a, chain in frames:
        assert chain == host[a], (hex(a), chain, host[a])


@pytest.mark.parametrize("build", ["optimised", "debug"])
def test_kernel_fault_backtrace_names_where_it_struck(disk, build):
    kernel = KERNELS[build]
    r = boot("corrupt panic fault\n", disk=disk, mem=16, cmdline="debug.corrupt=1", kernel=kernel)
    assert r.rc == 1, r
    assert re.search(r"^kernel trap 14 \(page fault\) err 0x2 eip 0x[0-9a-f]{8} \(fault_on_request\+0x0\) "
                     r"cr2 0x00001000$", r.out, re.M), r
    frames, traps = backtrace(r.out)
    assert len(traps) == 1 and traps[0][1:] == (14, "fault_on_request"), (traps, r)
    # below the trap: the function that called the one that faulted, and the system call
    after = [chain[0] for _, chain in frames[traps[0][0]:]]
    assert after[0] == ("sys_vmcorrupt", "scaffold/vm_corrupt.c", line_of("scaffold/vm_corrupt.c", "    fault_on_request();")), (after, r)
    assert [f[0] for f in after[1:4]] == ["syscall_dispatch", "trap", "alltraps"], (after, r)
    # above it: the panic's own caller, kernel_exception (inlined into trap, or not)
    assert frames[0][1][0][0] == "kernel_exception", r
    host = addr2line(kernel, [a for a, _ in frames])
    for a, chain in frames:
        assert chain == host[a], (hex(a), chain, host[a])
