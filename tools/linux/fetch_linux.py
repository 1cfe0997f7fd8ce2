#!/usr/bin/env python3
"""Debian 12's 32-bit Linux kernel and busybox, fetched into build/linux/ and unpacked there;
nothing is installed on the host.

The benchmark of Linux beside our kernel (tools/bench/bench_linux.py) boots Debian's own
kernel for older PCs (linux-image-*-686, i386) with busybox-static (i386) as its whole user
land. Neither package may touch the host's dpkg database, and `dpkg --add-architecture i386`
would change the host's apt for good, so this reads the archive the way apt does, by hand:

  1. The mirror is the first Debian one the host's apt is configured with
     (/etc/apt/sources.list, sources.list.d/*.list and *.sources), else deb.debian.org;
     LINUX_MIRROR overrides it.
  2. dists/bookworm/InRelease, checked with gpgv against the host's Debian archive keyring
     when both are there; it names the SHA256 of main/binary-i386/Packages.xz, which is
     fetched and checked against it.
  3. In that index: linux-image-686 (a meta-package) depends on the real kernel package,
     linux-image-6.1.0-N-686; busybox-static is named as is. Each .deb is downloaded from
     the index's Filename and checked against its SHA256.
  4. dpkg-deb -x unpacks each into build/linux/root/ (vmlinuz, modules, config; busybox).

The versions found are pinned in build/linux/packages.lock: later runs use the cached .debs
of that lock (checked again by their SHA256) without asking the mirror, so that every
benchmark of a build tree runs the same Linux. `--refresh` looks again (a point release
replaces the kernel package on the mirror, and the pinned one is then gone from it).

    fetch_linux.py [--dir build/linux] [--refresh] [--quiet]

Prints one line a step; exits with a one-line reason when the archive cannot be reached.
"""
import argparse, glob, hashlib, json, lzma, os, re, shutil, subprocess, sys, tempfile, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = "bookworm"
ARCH = "i386"
KERNEL_META = "linux-image-686"
BUSYBOX = "busybox-static"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


class FetchError(Exception):
    pass


# --- pure parts (tests/host/test_linux_tools.py) ---------------------------------------------
def apt_mirrors(texts):
    """The Debian mirrors named by apt's source files (their texts, one-line .list or deb822
    .sources): the main archive's URIs, security and other archives left out."""
    found = []
    for text in texts:
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            m = re.match(r"deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
            uris = [m.group(1)] if m and not m.group(2).endswith("-security") else []
            m = re.match(r"URIs:\s*(.+)", line)
            if m:
                uris = m.group(1).split()
            for u in uris:
                u = u.rstrip("/")
                if u.startswith("http") and "security" not in u and u.endswith("/debian") and u not in found:
                    found.append(u)
    return found


def parse_packages(text):
    """{package name: {field: value}} of a Packages index (the newest version of each name)."""
    out = {}
    for para in text.split("\n\n"):
        fields, last = {}, None
        for line in para.splitlines():
            if line[:1] in (" ", "\t") and last:
                fields[last] += "\n" + line.strip()
            elif ":" in line:
                last, _, v = line.partition(":")
                fields[last] = v.strip()
        name = fields.get("Package")
        if name and (name not in out or version_key(fields.get("Version", "")) > version_key(out[name].get("Version", ""))):
            out[name] = fields
    return out


def version_key(v):
    """Enough of Debian's version order for the kernel's and busybox's versions: epoch, then the
    numbers and words in turn."""
    epoch, _, rest = v.rpartition(":") if ":" in v else ("0", "", v)
    return (int(epoch or 0), [int(x) if x.isdigit() else x for x in re.findall(r"\d+|[A-Za-z]+", rest)])


def kernel_package(index):
    """The real kernel package the meta-package depends on (linux-image-6.1.0-N-686)."""
    meta = index.get(KERNEL_META)
    if not meta:
        raise FetchError("%s is not in the %s index" % (KERNEL_META, ARCH))
    for dep in meta.get("Depends", "").split(","):
        name = dep.strip().split()[0] if dep.strip() else ""
        if re.fullmatch(r"linux-image-[\d.]+-\d+-686", name) and name in index:
            return name
    raise FetchError("%s depends on no linux-image-*-686 of the index: %r" % (KERNEL_META, meta.get("Depends")))


def release_sha256(release_text, path):
    """The SHA256 that a Release file gives for path (main/binary-i386/Packages.xz)."""
    part = release_text.split("\nSHA256:", 1)
    if len(part) < 2:
        raise FetchError("the Release file has no SHA256 list")
    for line in part[1].splitlines()[1:]:
        if not line.startswith(" "):
            break
        f = line.split()
        if len(f) == 3 and f[2] == path:
            return f[0]
    raise FetchError("the Release file does not list %s" % path)


# --- the network and the disk -----------------------------------------------------------------
def say(quiet, text):
    if not quiet:
        print("fetch-linux: " + text, flush=True)


def get(url, timeout=60):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.read()
    except Exception as e:        # any failure to reach the archive is one kind for the caller
        raise FetchError("cannot fetch %s: %s" % (url, e))


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def mirror():
    if os.environ.get("LINUX_MIRROR"):
        return os.environ["LINUX_MIRROR"].rstrip("/")
    texts = []
    for p in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")) + \
            sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        try:
            with open(p) as f:
                texts.append(f.read())
        except OSError:
            pass
    found = apt_mirrors(texts)
    return found[0] if found else DEFAULT_MIRROR


def signed_release(base, cache, quiet):
    """The text of InRelease, its signature checked when gpgv and the keyring are there."""
    data = get("%s/dists/%s/InRelease" % (base, SUITE))
    if shutil.which("gpgv") and os.path.exists(KEYRING):
        with tempfile.NamedTemporaryFile(dir=cache, suffix=".InRelease") as f:
            f.write(data)
            f.flush()
            p = subprocess.run(["gpgv", "--keyring", KEYRING, f.name], capture_output=True)
        if p.returncode != 0:
            raise FetchError("InRelease of %s: bad signature: %s" % (base, p.stderr.decode(errors="replace")[-300:]))
        say(quiet, "InRelease signed by Debian's archive key")
    else:
        say(quiet, "InRelease not checked (no gpgv or no %s); the packages' sums still are" % KEYRING)
    return data.decode("utf-8", "replace")


def resolve(base, cache, quiet):
    """[(package, version, Filename, SHA256)] for the kernel and busybox, from the index."""
    release = signed_release(base, cache, quiet)
    path = "main/binary-%s/Packages.xz" % ARCH
    want = release_sha256(release, path)
    data = get("%s/dists/%s/%s" % (base, SUITE, path), timeout=300)
    if sha256(data) != want:
        raise FetchError("%s: SHA256 differs from the Release file's" % path)
    index = parse_packages(lzma.decompress(data).decode("utf-8", "replace"))
    out = []
    for name in (kernel_package(index), BUSYBOX):
        if name not in index:
            raise FetchError("%s is not in the %s index" % (name, ARCH))
        p = index[name]
        out.append(dict(package=name, version=p["Version"], filename=p["Filename"], sha256=p["SHA256"]))
    return out


def download(base, pkg, cache, quiet):
    """The .deb in the cache, fetched if missing or damaged; its SHA256 checked either way."""
    path = os.path.join(cache, os.path.basename(pkg["filename"]))
    if os.path.exists(path):
        with open(path, "rb") as f:
            if sha256(f.read()) == pkg["sha256"]:
                return path
    say(quiet, "downloading %s %s" % (pkg["package"], pkg["version"]))
    data = get("%s/%s" % (base, pkg["filename"]), timeout=600)
    if sha256(data) != pkg["sha256"]:
        raise FetchError("%s: SHA256 differs from the index's" % pkg["filename"])
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)
    return path


def fetch(out_dir, refresh=False, quiet=False):
    """Makes out_dir/root (the unpacked packages) and out_dir/packages.lock; returns the lock's
    content. Does nothing but check when the lock and the unpacked tree are there."""
    cache = os.path.join(out_dir, "debs")
    os.makedirs(cache, exist_ok=True)
    lock_path = os.path.join(out_dir, "packages.lock")
    root = os.path.join(out_dir, "root")
    lock = None
    if os.path.exists(lock_path) and not refresh:
        with open(lock_path) as f:
            lock = json.load(f)
        if os.path.exists(os.path.join(root, ".unpacked")) and all(
                os.path.exists(os.path.join(cache, os.path.basename(p["filename"]))) for p in lock["packages"]):
            return lock
    base = lock["mirror"] if lock else mirror()
    if lock is None:
        say(quiet, "reading the %s %s index of %s" % (SUITE, ARCH, base))
        lock = dict(mirror=base, suite=SUITE, arch=ARCH, packages=resolve(base, cache, quiet))
    try:
        debs = [download(base, p, cache, quiet) for p in lock["packages"]]
    except FetchError as e:
        if refresh or not os.path.exists(lock_path):
            raise
        say(quiet, "the pinned packages are gone from the mirror (%s): reading the index again" % e)
        return fetch(out_dir, refresh=True, quiet=quiet)
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    for deb in debs:
        say(quiet, "unpacking %s" % os.path.basename(deb))
        p = subprocess.run(["dpkg-deb", "-x", deb, root], capture_output=True)
        if p.returncode != 0:
            raise FetchError("dpkg-deb -x %s: %s" % (deb, p.stderr.decode(errors="replace").strip()))
    open(os.path.join(root, ".unpacked"), "w").close()
    with open(lock_path + ".tmp", "w") as f:
        json.dump(lock, f, indent=1)
    os.replace(lock_path + ".tmp", lock_path)
    say(quiet, "%s in %s" % (", ".join("%s %s" % (p["package"], p["version"]) for p in lock["packages"]),
                             os.path.relpath(root)))
    return lock


def kernel_files(out_dir):
    """(vmlinuz, its modules' folder, its config) in the unpacked tree."""
    root = os.path.join(out_dir, "root")
    vmlinuz = sorted(glob.glob(os.path.join(root, "boot", "vmlinuz-*")))
    if not vmlinuz:
        raise FetchError("no boot/vmlinuz-* in %s: run fetch_linux.py" % root)
    release = os.path.basename(vmlinuz[-1])[len("vmlinuz-"):]
    return vmlinuz[-1], os.path.join(root, "lib", "modules", release), os.path.join(root, "boot", "config-" + release)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "linux"))
    ap.add_argument("--refresh", action="store_true", help="read the index again instead of the lock")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    try:
        fetch(a.dir, a.refresh, a.quiet)
    except FetchError as e:
        sys.exit("fetch-linux: %s" % e)


if __name__ == "__main__":
    main()
