"""Makes sure pytest and pytest-xdist (to run boot tests on both cores) are importable.

Installed as Debian packages when run as root with apt-get (the package lists are refreshed
if the first try fails: a fresh system has none); otherwise the exact command is printed."""
import importlib.util, os, shutil, subprocess, sys

MODULES = (("pytest", "python3-pytest", "pytest"), ("xdist", "python3-pytest-xdist", "pytest-xdist"))


def missing():
    importlib.invalidate_caches()
    return [m for m in MODULES if importlib.util.find_spec(m[0]) is None]


def main():
    need = missing()
    if not need:
        return
    names = " ".join(m[2] for m in need)
    debian = sys.executable.startswith("/usr/bin/") and shutil.which("apt-get")
    if not debian:
        cmd = [sys.executable, "-m", "pip", "install"] + [m[2] for m in need]
        sys.exit("tests: %s missing; install with: %s" % (names, " ".join(cmd)))
    cmd = ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + [m[1] for m in need]
    if os.geteuid() != 0:
        sys.exit("tests: %s missing; install with: sudo %s" % (names, " ".join(cmd)))
    print("tests: installing", names, flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    quiet = dict(stdout=subprocess.DEVNULL, env=env)
    if subprocess.call(cmd, **quiet) != 0:
        subprocess.call(["apt-get", "update", "-qq"], **quiet)
        subprocess.call(cmd, **quiet)
    if missing():
        sys.exit("tests: could not install %s; run: sudo %s" % (names, " ".join(cmd)))


if __name__ == "__main__":
    main()
