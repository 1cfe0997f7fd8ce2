#!/usr/bin/env python3
"""The Linux guest's initramfs: busybox, the modules the disk needs, and the first /init.

Debian's kernel has the virtio disk and the file system as modules (CONFIG_VIRTIO_PCI=m,
CONFIG_VIRTIO_BLK=m, CONFIG_EXT4_FS=m, which serves ext2 too), and a Debian system loads them
from an initramfs that initramfs-tools makes on the host; we make our own, small one, without
installing anything:

  - The modules: the ones asked for and everything they need, found in each module's own
    .modinfo section (the "depends=" a depmod would read, and "softdep=pre:" names such as
    crypto-crc32c, matched against the modules' aliases, the generic implementation preferred),
    ordered so that a module comes after what it needs. /modules lists them in that order for
    busybox's insmod; no depmod or modules.dep is needed.
  - The archive: cpio's "newc" format, as the kernel reads it (Documentation/
    driver-api/early-userspace/buffer-format.rst), written here so the host needs no cpio.
    A second archive may be appended to the first: the kernel unpacks both, in order, which
    is how a run hands the guest its script (run_cpio).
  - /init (tools/linux/init-stage1.sh): loads the modules, mounts the disk and switches to it,
    so that the initramfs's memory is freed before anything is measured.

    initramfs.py OUT.cpio [--modules virtio_pci,virtio_blk,ext4]   (from build/linux/root)
"""
import argparse, os, stat, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch_linux  # noqa: E402

WANTED = ["virtio_pci", "virtio_blk", "ext4"]


class ModuleError(Exception):
    pass


# --- modules ------------------------------------------------------------------------------------
def elf_section(data, name):
    """The bytes of the section called name of a 32-bit little-endian ELF file, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 1:
        raise ModuleError("not a 32-bit ELF file")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2e)

    def sh(i):
        return struct.unpack_from("<IIIIII", data, shoff + i * shentsize)   # name type flags addr offset size
    strtab = sh(shstrndx)
    for i in range(shnum):
        s = sh(i)
        start = strtab[4] + s[0]
        if data[start:data.index(b"\0", start)].decode() == name:
            return data[s[4]:s[4] + s[5]]
    return None


def modinfo(data):
    """{key: [values]} of a module's .modinfo section ("key=value" strings, NUL-separated)."""
    sec = elf_section(data, ".modinfo")
    info = {}
    for item in (sec or b"").split(b"\0"):
        k, eq, v = item.decode("utf-8", "replace").partition("=")
        if eq:
            info.setdefault(k, []).append(v)
    return info


def module_index(moddir):
    """{name: (path relative to moddir, modinfo)} of every module under moddir."""
    out = {}
    for dirpath, _, files in os.walk(moddir):
        for f in files:
            if f.endswith(".ko"):
                path = os.path.join(dirpath, f)
                with open(path, "rb") as fh:
                    info = modinfo(fh.read())
                name = (info.get("name") or [f[:-3]])[0].replace("-", "_")
                out[name] = (os.path.relpath(path, moddir), info)
    return out


def by_alias(index, alias):
    """The module that provides alias (its name, or one of its aliases); a generic one first."""
    alias = alias.replace("-", "_")
    found = [n for n, (_, info) in index.items()
             if n == alias or alias in [a.replace("-", "_") for a in info.get("alias", [])]]
    found.sort(key=lambda n: ("generic" not in n, n))
    return found[0] if found else None


def load_order(index, wanted):
    """The modules to load, each after all it needs (depends and pre-softdeps)."""
    order, state = [], {}

    def needs(name):
        info = index[name][1]
        deps = [d for v in info.get("depends", []) for d in v.split(",") if d]
        for v in info.get("softdep", []):
            words = v.split()
            if words and words[0] == "pre:":
                for alias in words[1:]:
                    if alias.endswith(":"):
                        break               # "pre: a b post: c"
                    m = by_alias(index, alias)
                    if m:
                        deps.append(m)
        return deps

    def visit(name, path):
        if name not in index:
            raise ModuleError("module %s (needed by %s) is not in the kernel's package" % (name, " <- ".join(path) or "us"))
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise ModuleError("modules depend on each other in a circle: " + " -> ".join(path + [name]))
        state[name] = 1
        for d in needs(name):
            visit(d.replace("-", "_"), path + [name])
        state[name] = 2
        order.append(name)
    for w in wanted:
        visit(w, [])
    return order


def builtin(moddir):
    """The modules built into the kernel (modules.builtin): asking for one is no error."""
    try:
        with open(os.path.join(moddir, "modules.builtin")) as f:
            return {os.path.basename(l.strip())[:-3].replace("-", "_") for l in f if l.strip()}
    except OSError:
        return set()


# --- cpio, newc ---------------------------------------------------------------------------------
def cpio_entry(name, mode, data=b"", ino=0, mtime=0):
    """One newc record: the header's 13 hex fields, the name with its NUL, the data, each
    padded to 4 bytes."""
    name_b = name.encode() + b"\0"
    head = b"070701" + b"".join(b"%08X" % v for v in (
        ino, mode, 0, 0, 1, mtime, len(data), 0, 0, 0, 0, len(name_b), 0))
    out = head + name_b
    out += b"\0" * (-len(out) % 4)
    out += data
    out += b"\0" * (-len(out) % 4)
    return out


def cpio(entries):
    """A newc archive of [(path, kind, data)], kind "dir", "file", "exec" or "link" (data is
    then the target), ended by its trailer."""
    out = []
    for i, (path, kind, data) in enumerate(entries, 1):
        mode = {"dir": stat.S_IFDIR | 0o755, "file": stat.S_IFREG | 0o644, "exec": stat.S_IFREG | 0o755,
                "link": stat.S_IFLNK | 0o777}[kind]
        if isinstance(data, str):
            data = data.encode()
        out.append(cpio_entry(path.lstrip("/"), mode, data or b"", ino=i))
    out.append(cpio_entry("TRAILER!!!", 0))
    return b"".join(out)


def cpio_read(blob):
    """[(path, mode, data)] of a newc archive (the tests read back what was written)."""
    out, pos = [], 0
    while pos < len(blob):
        if blob[pos:pos + 6] != b"070701":
            raise ValueError("no newc header at %d" % pos)
        f = [int(blob[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = f[1], f[6], f[11]
        pos += 110
        name = blob[pos:pos + namesize - 1].decode()
        pos += namesize + (-(110 + namesize) % 4)
        data = blob[pos:pos + size]
        pos += size + (-size % 4)
        if name == "TRAILER!!!":
            break
        out.append((name, mode, data))
    return out


def run_cpio(script):
    """The archive a run appends to the initramfs: its script as /run.sh."""
    return cpio([("run.sh", "exec", script)])


# --- the whole initramfs ------------------------------------------------------------------------
def build(out_path, linux_dir, wanted=WANTED):
    """Writes the initramfs; returns the modules it holds, in load order."""
    _, moddir, _ = fetch_linux.kernel_files(linux_dir)
    index = module_index(moddir)
    inside = builtin(moddir)
    order = load_order(index, [w for w in wanted if w not in inside])
    with open(os.path.join(linux_dir, "root", "bin", "busybox"), "rb") as f:
        busybox = f.read()
    with open(os.path.join(HERE, "init-stage1.sh")) as f:
        init = f.read()
    entries = [(d, "dir", b"") for d in ("bin", "dev", "proc", "sys", "newroot", "lib", "lib/modules")]
    entries += [("bin/busybox", "exec", busybox), ("bin/sh", "link", "busybox"), ("init", "exec", init)]
    for name in order:
        with open(os.path.join(moddir, index[name][0]), "rb") as f:
            entries.append(("lib/modules/%s.ko" % name, "file", f.read()))
    entries.append(("modules", "file", "".join(n + "\n" for n in order)))
    blob = cpio(entries)
    with open(out_path + ".tmp", "wb") as f:
        f.write(blob)
    os.replace(out_path + ".tmp", out_path)
    return order


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--linux-dir", default=os.path.join(fetch_linux.ROOT, "build", "linux"))
    ap.add_argument("--modules", default=",".join(WANTED))
    a = ap.parse_args(argv)
    try:
        order = build(a.out, a.linux_dir, a.modules.split(","))
    except (ModuleError, fetch_linux.FetchError) as e:
        sys.exit("initramfs: %s" % e)
    print("initramfs: %s: busybox and %s" % (a.out, ", ".join(order)))


if __name__ == "__main__":
    main()
