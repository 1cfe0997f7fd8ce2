"""The layers of docs/ARCHITECTURE.md, kept by CI rather than by memory: every #include of the
kernel, the user programs and the host tools is checked against docs/architecture-rules.json
(which layer a file is in, what that layer may include), and the calls a layer must not make
(the file cache calling vm_*, the VM calling cache_*, the floor calling either pool by name).
Each rule is shown to catch a planted violation."""
import fnmatch
import json
import os
import re

import pytest

from conftest import ROOT

RULES = json.loads((ROOT / "docs" / "architecture-rules.json").read_text())
SOURCE_DIRS = ("kernel", "drivers", "scaffold", "fs", "vm", "user", "mkfs", "tools")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def sources():
    """{repo-relative path: text} of every C source and header the rules speak of."""
    out = {}
    for top in SOURCE_DIRS:
        for d, _, files in os.walk(ROOT / top):
            for f in files:
                if f.endswith((".c", ".h", ".S")):
                    p = os.path.relpath(os.path.join(d, f), ROOT)
                    out[p] = open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
    return out


def layer_of(path):
    for layer in RULES["layers"]:
        if any(fnmatch.fnmatchcase(path, pat) for pat in layer["files"]):
            return layer
    return None


def resolve(path, inc, known):
    """Where a quoted include of path lands, as the compilers' -I options find it: beside the
    file first, then the root (-I.), kernel/ (-Ikernel) and user/include (-Iuser/include)."""
    for base in (os.path.dirname(path), "", "kernel", "user/include"):
        cand = os.path.normpath(os.path.join(base, inc))
        if cand in known:
            return cand
    return None


def violations(files):
    bad = []
    for path, text in sorted(files.items()):
        layer = layer_of(path)
        if layer is None:
            continue
        for kind, inc in INCLUDE.findall(text):
            target = "<system>" if kind == "<" else resolve(path, inc, files)
            if target is None:
                bad.append("%s: #include \"%s\" resolves to no file of the tree" % (path, inc))
            elif not any(fnmatch.fnmatchcase(target, pat) for pat in layer["may_include"]):
                bad.append("%s (%s) includes %s: the %s layer may include only %s" % (
                    path, layer["name"], target, layer["name"], ", ".join(layer["may_include"])))
        code = COMMENTS.sub("", text)
        for rule in RULES["calls"]:
            if any(fnmatch.fnmatchcase(path, pat) for pat in rule["files"]) and path.endswith(".c"):
                for m in re.finditer(rule["must_not_call"], code):
                    bad.append("%s calls %s: %s" % (path, m.group(0).rstrip("( \t"), rule["why"]))
    return bad


def test_every_include_and_call_keeps_the_layers():
    assert violations(sources()) == []


def test_every_kernel_source_is_in_a_layer():
    loose = [p for p in sources() if p.split("/")[0] in ("kernel", "drivers", "fs", "vm", "scaffold", "user")
             and layer_of(p) is None]
    assert loose == [], "files no layer of docs/architecture-rules.json names: %s" % loose


@pytest.mark.parametrize("path, plant, want", [
    ("fs/cache.c", '#include "vm/vm.h"\n', "fs/cache.c (fs) includes vm/vm.h"),
    ("vm/fault.c", '#include "fs/fs.h"\n', "vm/fault.c (vm) includes fs/fs.h"),
    ("kernel/mem/negotiate.c", '#include "fs/cache.h"\n', "kernel/mem/negotiate.c (floor) includes fs/cache.h"),
    ("drivers/pci.c", '#include "kernel/mem/coremap.h"\n#include "vm/vm.h"\n', "drivers/pci.c (drivers) includes vm/vm.h"),
    ("fs/layout.c", '#include "kernel/klib.h"\n', "fs/layout.c (pure) includes kernel/klib.h"),
    ("user/cat.c", '#include "kernel/proc.h"\n', "user/cat.c (user) includes kernel/proc.h"),
    ("fs/dir.c", "static void f(void) { vm_fault(0); }\n", "fs/dir.c calls vm_fault"),
    ("vm/exec.c", "static void f(void) { cache_get(1, 2); }\n", "vm/exec.c calls cache_get"),
    ("kernel/mem/negotiate.c", "static void f(void) { vm_offer(true); }\n", "kernel/mem/negotiate.c calls vm_offer"),
    ("kernel/proc.c", '#include "scaffold/disk_ceiling.c"\n', "kernel/proc.c (kernel) includes scaffold/disk_ceiling.c"),
    # the floor knows no system call and no lab: it includes neither, calls neither
    ("kernel/mem/negotiate.c", '#include "kernel/syscall.h"\n', "kernel/mem/negotiate.c (floor) includes kernel/syscall.h"),
    ("kernel/mem/refault.c", '#include "kernel/arbiters.h"\n', "kernel/mem/refault.c (floor) includes kernel/arbiters.h"),
    ("kernel/mem/coremap.c", '#include "vm/vm.h"\n', "kernel/mem/coremap.c (floor) includes vm/vm.h"),
    ("kernel/mem/refault.c", "static void f(void) { arbiter_refault(0, 1, 2, 3, 4, 0); }\n",
     "kernel/mem/refault.c calls arbiter_refault"),
    ("kernel/mem/negotiate.c", "static int f(void) { return argint(0); }\n", "kernel/mem/negotiate.c calls argint"),
    ("kernel/mem/negotiate.c", "static int f(void) { return copy_to_user(0, 0, 0); }\n",
     "kernel/mem/negotiate.c calls copy_to_user"),
])
def test_a_planted_violation_is_caught(path, plant, want):
    files = sources()
    assert path in files, path
    files[path] = plant + files[path]
    found = violations(files)
    assert any(v.startswith(want) for v in found), found


def test_the_floor_may_call_the_labs_registered_hook():
    """A member of the registered hook (neg_arbiter->arbitrate) is the floor's own call, not one
    of the lab's functions by name."""
    files = sources()
    files["kernel/mem/refault.c"] += "\nstatic void f(const struct neg_arbiter *a) { a->reset(); a->arbitrate(0, 0, 0, 0, 0, 0, 0); }\n"
    assert violations(files) == violations(sources())


def test_a_call_inside_a_comment_is_not_one():
    files = sources()
    files["fs/dir.c"] = "/* unlike vm_fault(), ... */\n// cache_get() too\n" + files["fs/dir.c"]
    assert violations(files) == violations(sources())


MAX_LINES = 600


def too_long(files):
    """The kernel's sources (kernel, drivers, fs, vm, scaffold) longer than MAX_LINES lines: a
    file past that holds more than one concept, and is cut where the concepts part."""
    return sorted("%s: %d lines" % (p, t.count("\n")) for p, t in files.items()
                  if p.split("/")[0] in ("kernel", "drivers", "fs", "vm", "scaffold") and t.count("\n") > MAX_LINES)


def test_every_kernel_source_is_at_most_600_lines():
    assert too_long(sources()) == []


def test_a_source_one_line_too_long_is_named():
    files = sources()
    files["fs/cache.c"] = "x\n" * (MAX_LINES + 1)
    assert too_long(files) == ["fs/cache.c: %d lines" % (MAX_LINES + 1)]
