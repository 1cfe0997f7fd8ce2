"""The project's own Python for the tests and benchmarks: a virtual environment in build/py
with pytest, pytest-xdist (boot tests on both cores) and matplotlib (the benchmarks' figures).

    python3 tools/setup/pydeps.py [--dir build/py] [--modules pytest,xdist,matplotlib]

Why an environment of our own: the machine's `python3` may be Debian's, whose packages apt
installs, or another installation (pyenv, a CI image's own build, a user's venv) that apt
cannot reach and whose site-packages we should not change. Whatever python3 runs this file,
the tests then run with build/py/bin/python3, which has what they need:

1. build/py is made with `python3 -m venv --system-site-packages`, so whatever the host Python
   already has (Debian's python3-pytest, a pyenv's pytest) is used as it is and nothing is
   downloaded when nothing is missing.
2. What is still missing is installed into build/py with pip, from PyPI; the host's own
   site-packages are never written.
3. Where that cannot be done (Debian's python3 without python3-venv, or no route to PyPI) and
   we are root on a machine with apt-get, Debian's packages are installed (python3-venv,
   python3-pytest, python3-pytest-xdist, python3-matplotlib) and build/py is made again from
   /usr/bin/python3, which sees them.
4. Otherwise the exact commands to run are printed, and the exit status is 1.

Prints nothing when build/py already has everything; one line per step otherwise."""
import argparse, os, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# import name -> (PyPI name, Debian package)
PACKAGES = {"pytest": ("pytest", "python3-pytest"),
            "xdist": ("pytest-xdist", "python3-pytest-xdist"),
            "matplotlib": ("matplotlib", "python3-matplotlib")}
DEBIAN_PY = "/usr/bin/python3"


def say(msg):
    print("pydeps: " + msg, flush=True)


def missing(py, modules):
    """The modules py cannot import (all of them if py does not run)."""
    code = "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
    try:
        p = subprocess.run([py, "-c", code] + modules, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
    except OSError:
        return list(modules)
    return p.stdout.decode().split() if p.returncode == 0 else list(modules)


def quiet(cmd, env=None):
    """Runs cmd; returns (ok, the last lines of its output)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    except OSError as e:
        return False, str(e)
    return p.returncode == 0, "\n".join(p.stdout.decode("utf-8", "replace").splitlines()[-5:])


def make_venv(base, venv, with_pip):
    shutil.rmtree(venv, ignore_errors=True)
    cmd = [base, "-m", "venv", "--system-site-packages"] + ([] if with_pip else ["--without-pip"]) + [venv]
    return quiet(cmd)


def apt_install(pkgs):
    """Debian's packages, as root, non-interactively; the lists refreshed if the first try fails."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + pkgs
    ok, log = quiet(cmd, env)
    if not ok:
        quiet(["apt-get", "update", "-qq"], env)
        ok, log = quiet(cmd, env)
    return ok, log


def can_apt():
    return shutil.which("apt-get") is not None and os.geteuid() == 0 and os.path.exists(DEBIAN_PY)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "py"))
    ap.add_argument("--modules", default=",".join(PACKAGES), help="import names (default: %(default)s)")
    a = ap.parse_args()
    modules = [m for m in a.modules.split(",") if m]
    unknown = [m for m in modules if m not in PACKAGES]
    if unknown:
        sys.exit("pydeps: unknown module %s (known: %s)" % (", ".join(unknown), ", ".join(PACKAGES)))
    venv = os.path.abspath(a.dir)
    py = os.path.join(venv, "bin", "python3")
    if os.path.exists(py) and not missing(py, modules):
        return

    # 1-2: an environment on the Python that runs us, then pip for what it lacks.
    base = sys.executable
    say("making %s from %s" % (os.path.relpath(venv), base))
    ok, log = make_venv(base, venv, with_pip=True)
    if ok:
        need = missing(py, modules)
        if not need:
            return
        names = [PACKAGES[m][0] for m in need]
        say("installing %s into %s (pip, from PyPI)" % (" ".join(names), os.path.relpath(venv)))
        ok, log = quiet([py, "-m", "pip", "install", "-q", "--disable-pip-version-check"] + names)
        if ok and not missing(py, modules):
            return
        say("pip could not install them:\n" + log)
    else:
        say("%s -m venv failed:\n%s" % (base, log))

    # 3: Debian's packages, seen by an environment made from Debian's Python.
    debs = ["python3-venv"] + [PACKAGES[m][1] for m in modules]
    if can_apt():
        say("installing Debian's %s" % " ".join(debs))
        ok, log = apt_install(debs)
        if ok:
            ok, log = make_venv(DEBIAN_PY, venv, with_pip=False)
            if ok and not missing(py, modules):
                say("%s uses Debian's packages (%s)" % (os.path.relpath(venv), DEBIAN_PY))
                return
        say("that did not work either:\n" + log)

    # 4: say exactly what would work.
    names = " ".join(PACKAGES[m][0] for m in modules)
    sys.exit("pydeps: %s lacks %s. Either let it reach PyPI (%s -m venv --system-site-packages %s && "
             "%s -m pip install %s), or on Debian as root: apt-get install %s"
             % (os.path.relpath(venv), " ".join(missing(py, modules)), base, os.path.relpath(venv), py, names,
                " ".join(debs)))


if __name__ == "__main__":
    main()
