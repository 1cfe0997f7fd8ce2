"""tools/linux/: the Linux guest's parts that need no network and no QEMU. Reading the Debian
archive (apt's sources, the Release file, the Packages index and the meta-package's
dependency), the module order of the initramfs from each module's own .modinfo, the cpio
archive the kernel unpacks, and the disk (its partition table, its swap header, and what
mke2fs put in its ext2), each held against a small made-up input."""
import os
import struct
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "linux"))
import fetch_linux, initramfs, linuxdisk  # noqa: E402


# --- the archive ---------------------------------------------------------------------------------
def test_the_mirror_is_apts_main_archive_not_security():
    lst = "# comment\ndeb http://ftp.fr.debian.org/debian bookworm main\n" \
          "deb http://security.debian.org/debian-security bookworm-security main\n"
    sources = "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n\n" \
              "Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n"
    assert fetch_linux.apt_mirrors([lst, sources]) == ["http://ftp.fr.debian.org/debian", "http://deb.debian.org/debian"]
    assert fetch_linux.apt_mirrors(["deb [arch=amd64] http://example.org/debian/ bookworm main"]) == \
        ["http://example.org/debian"]
    assert fetch_linux.apt_mirrors(["deb http://ppa.example.org/ubuntu jammy main"]) == []


INDEX = """Package: linux-image-686
Version: 6.1.176-1
Depends: linux-image-6.1.0-50-686 (= 6.1.176-1)
Filename: pool/main/l/linux-signed-i386/linux-image-686_6.1.176-1_i386.deb
SHA256: aa

Package: linux-image-6.1.0-50-686
Version: 6.1.176-1
Depends: kmod, linux-base (>= 4.3~)
Filename: pool/main/l/linux-signed-i386/linux-image-6.1.0-50-686_6.1.176-1_i386.deb
SHA256: bb
Description: Linux 6.1 for older PCs
 a second line of the description

Package: busybox-static
Version: 1:1.35.0-4+deb12u1
Filename: pool/main/b/busybox/busybox-static_1.35.0-4+deb12u1_i386.deb
SHA256: cc

Package: busybox-static
Version: 1:1.35.0-4+deb12u1+b1
Filename: pool/main/b/busybox/busybox-static_1.35.0-4+deb12u1+b1_i386.deb
SHA256: dd
"""


def test_the_index_gives_the_real_kernel_package_and_the_newest_busybox():
    index = fetch_linux.parse_packages(INDEX)
    assert fetch_linux.kernel_package(index) == "linux-image-6.1.0-50-686"
    assert index["busybox-static"]["SHA256"] == "dd"
    assert index["linux-image-6.1.0-50-686"]["Description"].endswith("a second line of the description")


def test_a_meta_package_without_its_kernel_is_an_error():
    index = fetch_linux.parse_packages(INDEX.split("\n\nPackage: linux-image-6.1.0-50-686")[0])
    with pytest.raises(fetch_linux.FetchError, match="depends on no linux-image"):
        fetch_linux.kernel_package(index)
    with pytest.raises(fetch_linux.FetchError, match="not in the"):
        fetch_linux.kernel_package({})


def test_versions_are_ordered_as_debian_does_for_these_names():
    v = fetch_linux.version_key
    assert v("6.1.176-1") > v("6.1.158-1") > v("6.1.99-1")
    assert v("1:1.35.0-4+deb12u1+b1") > v("1:1.35.0-4+deb12u1") > v("1.36.0-1")


def test_the_release_file_names_the_index_sum():
    release = "Origin: Debian\nMD5Sum:\n 00 1 main/binary-i386/Packages.xz\nSHA256:\n" \
              " 1111 12 main/binary-amd64/Packages.xz\n 2222 34 main/binary-i386/Packages.xz\n"
    assert fetch_linux.release_sha256(release, "main/binary-i386/Packages.xz") == "2222"
    with pytest.raises(fetch_linux.FetchError):
        fetch_linux.release_sha256(release, "main/binary-armel/Packages.xz")


# --- modules and the initramfs --------------------------------------------------------------------
def fake_module(path, info):
    """A 32-bit ELF file with a .modinfo section of info's "key=value" strings, as a .ko has."""
    modinfo = b"".join(("%s=%s" % kv).encode() + b"\0" for kv in info)
    shstr = b"\0.shstrtab\0.modinfo\0"
    body = modinfo + shstr
    shoff = 52 + len(body)
    head = b"\x7fELF\x01\x01\x01" + b"\0" * 9 + struct.pack("<HHIIIIIHHHHHH", 1, 3, 1, 0, 0, shoff, 0, 52, 0, 0, 40, 3, 1)
    secs = struct.pack("<10I", *([0] * 10))
    secs += struct.pack("<10I", 1, 3, 0, 0, 52 + len(modinfo), len(shstr), 0, 0, 1, 0)
    secs += struct.pack("<10I", 11, 1, 2, 0, 52, len(modinfo), 0, 0, 1, 0)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head + body + secs)


MODULES = {   # the shape of Debian's: ext4 needs jbd2, mbcache, crc16 and a crc32c by alias
    "kernel/fs/ext4/ext4.ko": [("softdep", "pre: crypto-crc32c"), ("alias", "ext2"), ("depends", "jbd2,mbcache,crc16"),
                               ("name", "ext4")],
    "kernel/fs/jbd2/jbd2.ko": [("softdep", "pre: crypto-crc32c"), ("depends", ""), ("name", "jbd2")],
    "kernel/fs/mbcache.ko": [("depends", ""), ("name", "mbcache")],
    "kernel/lib/crc16.ko": [("depends", ""), ("name", "crc16")],
    "kernel/crypto/crc32c_generic.ko": [("alias", "crypto-crc32c"), ("alias", "crc32c"), ("depends", ""),
                                        ("name", "crc32c_generic")],
    "kernel/arch/x86/crypto/crc32c-intel.ko": [("alias", "crypto-crc32c"), ("depends", ""), ("name", "crc32c_intel")],
    "kernel/drivers/virtio/virtio.ko": [("depends", ""), ("name", "virtio")],
    "kernel/drivers/virtio/virtio_ring.ko": [("depends", ""), ("name", "virtio_ring")],
    "kernel/drivers/virtio/virtio_pci.ko": [("depends", "virtio_ring,virtio"), ("name", "virtio_pci")],
    "kernel/drivers/block/virtio_blk.ko": [("depends", "virtio,virtio_ring"), ("name", "virtio_blk")],
}


@pytest.fixture
def linux_tree(tmp_path):
    """build/linux as fetch_linux leaves it, with made-up modules and busybox."""
    release = "6.1.0-50-686"
    moddir = tmp_path / "root" / "lib" / "modules" / release
    for rel, info in MODULES.items():
        fake_module(str(moddir / rel), info)
    (moddir / "modules.builtin").write_text("kernel/drivers/tty/serial/8250.ko\n")
    (tmp_path / "root" / "boot").mkdir(parents=True)
    (tmp_path / "root" / "boot" / ("vmlinuz-" + release)).write_bytes(b"kernel")
    (tmp_path / "root" / "bin").mkdir()
    (tmp_path / "root" / "bin" / "busybox").write_bytes(b"\x7fELF busybox")
    return tmp_path


def test_modinfo_is_read_from_the_elf_section(linux_tree):
    with open(linux_tree / "root/lib/modules/6.1.0-50-686/kernel/fs/ext4/ext4.ko", "rb") as f:
        info = initramfs.modinfo(f.read())
    assert info["depends"] == ["jbd2,mbcache,crc16"] and info["name"] == ["ext4"]


def test_every_module_comes_after_what_it_needs(linux_tree):
    index = initramfs.module_index(str(linux_tree / "root/lib/modules/6.1.0-50-686"))
    order = initramfs.load_order(index, ["virtio_pci", "virtio_blk", "ext4"])
    assert sorted(order) == sorted(["virtio", "virtio_ring", "virtio_pci", "virtio_blk", "crc32c_generic", "jbd2",
                                    "mbcache", "crc16", "ext4"])        # the generic crc32c, not the SSE4.2 one
    for name, (_, info) in index.items():
        if name in order:
            for dep in [d for v in info.get("depends", []) for d in v.split(",") if d]:
                assert order.index(dep) < order.index(name), (dep, name, order)
    assert order.index("crc32c_generic") < order.index("jbd2") < order.index("ext4")


def test_a_missing_or_circular_module_is_an_error(linux_tree):
    index = initramfs.module_index(str(linux_tree / "root/lib/modules/6.1.0-50-686"))
    with pytest.raises(initramfs.ModuleError, match="nvme"):
        initramfs.load_order(index, ["nvme"])
    index["virtio"][1]["depends"] = ["virtio_blk"]
    with pytest.raises(initramfs.ModuleError, match="circle"):
        initramfs.load_order(index, ["virtio_blk"])


def test_the_archive_is_read_back_as_written():
    blob = initramfs.cpio([("bin", "dir", b""), ("bin/busybox", "exec", b"x" * 5), ("bin/sh", "link", "busybox"),
                           ("init", "exec", "#!/bin/sh\n")])
    assert len(blob) % 4 == 0 and blob.startswith(b"070701")
    got = initramfs.cpio_read(blob)
    assert [(n, d) for n, _, d in got] == [("bin", b""), ("bin/busybox", b"xxxxx"), ("bin/sh", b"busybox"),
                                           ("init", b"#!/bin/sh\n")]
    assert [m >> 12 for _, m, _ in got] == [0o04, 0o10, 0o12, 0o10]       # dir, file, link, file
    assert got[1][1] & 0o111 and not initramfs.cpio_read(initramfs.cpio([("a", "file", b"")]))[0][1] & 0o111


def test_the_initramfs_holds_busybox_init_and_the_modules_in_order(linux_tree):
    out = str(linux_tree / "initramfs.cpio")
    order = initramfs.build(out, str(linux_tree))
    files = {n: d for n, _, d in initramfs.cpio_read(open(out, "rb").read())}
    assert files["bin/busybox"] == b"\x7fELF busybox"
    assert files["init"] == open(os.path.join(ROOT, "tools", "linux", "init-stage1.sh"), "rb").read()
    assert files["modules"].decode().split() == order
    for name in order:
        assert files["lib/modules/%s.ko" % name].startswith(b"\x7fELF")
    # A run's script, appended as a second archive, is a second archive the kernel reads on.
    run = initramfs.cpio_read(initramfs.run_cpio("echo hello\n"))
    assert run == [("run.sh", run[0][1], b"echo hello\n")]


# --- the disk -------------------------------------------------------------------------------------
def test_the_partition_table_and_the_swap_header():
    sector = linuxdisk.mbr([(0x83, 2048, 4096), (0x82, 6144, 2048)])
    assert len(sector) == 512 and linuxdisk.parse_mbr(sector) == [(0x83, 2048, 4096), (0x82, 6144, 2048)]
    page = linuxdisk.swap_header(8 << 20)
    assert page[-10:] == b"SWAPSPACE2"
    version, last, bad = struct.unpack_from("<III", page, 1024)
    assert (version, last, bad) == (1, 2047, 0)
    with pytest.raises(linuxdisk.DiskError):
        linuxdisk.swap_header(4096)


def test_the_disk_holds_ext2_with_busybox_init2_the_programs_and_the_files(tmp_path, linux_tree):
    if subprocess.run(["sh", "-c", "command -v mke2fs || test -x /sbin/mke2fs"], capture_output=True).returncode:
        pytest.skip("no mke2fs (e2fsprogs) on this host")
    progs = tmp_path / "bin"
    progs.mkdir()
    (progs / "sort").write_bytes(b"\x7fELF sort")
    (progs / "toucher").write_bytes(b"\x7fELF toucher")
    (progs / "sh").write_bytes(b"\x7fELF our sh")      # host-only (linuxdisk.HOST_ONLY): not on the disk
    extra = tmp_path / "input.txt"
    extra.write_text("b\na\n")
    img = str(tmp_path / "disk.img")
    names, p1, p2 = linuxdisk.build(img, fs_mb=8, swap_mb=2, files=[str(extra)], programs=str(progs),
                                    busybox=str(linux_tree / "root" / "bin" / "busybox"))
    assert names == ["sort", "toucher"]
    with open(img, "rb") as f:
        data = f.read()
    assert linuxdisk.parse_mbr(data[:512]) == [(0x83,) + p1, (0x82,) + p2]
    assert len(data) == (p2[0] + p2[1]) * 512
    assert data[(p2[0] + 8) * 512 - 10:(p2[0] + 8) * 512] == b"SWAPSPACE2"     # the swap area's first page
    part = tmp_path / "part1.img"
    part.write_bytes(data[p1[0] * 512:(p1[0] + p1[1]) * 512])
    debugfs = "debugfs" if subprocess.run(["sh", "-c", "command -v debugfs"], capture_output=True).returncode == 0 \
        else "/sbin/debugfs"

    def cat(path):
        return subprocess.run([debugfs, "-R", "cat " + path, str(part)], capture_output=True).stdout

    assert cat("/usr/bin/sort") == b"\x7fELF sort"
    assert cat("/bin/busybox") == b"\x7fELF busybox" and cat("/usr/bin/sh") == b""
    assert cat("/input.txt") == b"b\na\n"
    assert cat("/sbin/init2") == open(os.path.join(ROOT, "tools", "linux", "init-stage2.sh"), "rb").read()
    stats = subprocess.run([debugfs, "-R", "stats", str(part)], capture_output=True, text=True).stdout
    assert "Block size:               4096" in stats
    assert "has_journal" not in stats                                  # ext2: no journal


# --- fetching, with the network played by a dictionary ----------------------------------------------
@pytest.fixture
def archive(tmp_path, monkeypatch):
    """A mirror of one real .deb (made by dpkg-deb -b) at pool/new.deb; fetch_linux.get serves
    it and refuses everything else, as a mirror does for a package a point release removed."""
    if subprocess.run(["sh", "-c", "command -v dpkg-deb"], capture_output=True).returncode:
        pytest.skip("no dpkg-deb on this host")
    pkg = tmp_path / "pkg"
    (pkg / "DEBIAN").mkdir(parents=True)
    (pkg / "DEBIAN" / "control").write_text("Package: linux-image-6.1.0-51-686\nVersion: 2\nArchitecture: i386\n"
                                            "Maintainer: t <t@t>\nDescription: t\n")
    (pkg / "boot").mkdir()
    (pkg / "boot" / "vmlinuz-6.1.0-51-686").write_bytes(b"kernel 51")
    subprocess.run(["dpkg-deb", "-b", str(pkg), str(tmp_path / "new.deb")], check=True, capture_output=True)
    served = {"http://m/pool/new.deb": (tmp_path / "new.deb").read_bytes()}
    asked = []

    def get(url, timeout=60):
        asked.append(url)
        if url not in served:
            raise fetch_linux.FetchError("cannot fetch %s: HTTP Error 404" % url)
        return served[url]
    new = dict(package="linux-image-6.1.0-51-686", version="2", filename="pool/new.deb",
               sha256=fetch_linux.sha256(served["http://m/pool/new.deb"]))
    monkeypatch.setattr(fetch_linux, "get", get)
    monkeypatch.setattr(fetch_linux, "resolve", lambda base, cache, quiet: [dict(new)])
    monkeypatch.setattr(fetch_linux, "mirror", lambda: "http://m")
    return tmp_path / "linux", new, asked


def test_a_fetch_unpacks_checks_and_pins(archive):
    out, new, asked = archive
    lock = fetch_linux.fetch(str(out), quiet=True)
    assert lock["packages"] == [new] and lock["mirror"] == "http://m"
    assert (out / "root" / "boot" / "vmlinuz-6.1.0-51-686").read_bytes() == b"kernel 51"
    assert fetch_linux.kernel_files(str(out))[0].endswith("vmlinuz-6.1.0-51-686")
    n = len(asked)
    fetch_linux.fetch(str(out), quiet=True)          # pinned, cached, unpacked: the mirror is not asked
    assert len(asked) == n


def test_a_pin_gone_from_the_mirror_is_replaced_and_a_bad_sum_refused(archive, monkeypatch):
    out, new, asked = archive
    out.mkdir()
    (out / "packages.lock").write_text('{"mirror": "http://m", "suite": "bookworm", "arch": "i386", "packages": '
                                       '[{"package": "linux-image-6.1.0-50-686", "version": "1", '
                                       '"filename": "pool/old.deb", "sha256": "00"}]}')
    lock = fetch_linux.fetch(str(out), quiet=True)
    assert "http://m/pool/old.deb" in asked and lock["packages"] == [new]
    new["sha256"] = "0" * 64
    monkeypatch.setattr(fetch_linux, "resolve", lambda base, cache, quiet: [dict(new)])
    os.unlink(out / "debs" / "new.deb")
    with pytest.raises(fetch_linux.FetchError, match="SHA256"):
        fetch_linux.fetch(str(out), refresh=True, quiet=True)
