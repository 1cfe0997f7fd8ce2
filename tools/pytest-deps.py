"""Makes sure pytest and pytest-xdist (to run boot tests on both cores) are importable."""
import importlib.util, os, subprocess, sys

missing = [m for m, pkg in (("pytest", "pytest"), ("xdist", "pytest-xdist"))
           if importlib.util.find_spec(m) is None]
if missing:
    debian = sys.executable.startswith("/usr/bin/") and os.geteuid() == 0
    pkgs = {"pytest": "python3-pytest", "xdist": "python3-pytest-xdist"}
    if debian:
        cmd = ["apt-get", "install", "-y", "-qq"] + [pkgs[m] for m in missing]
    else:
        cmd = [sys.executable, "-m", "pip", "install", "-q"] + \
              ["pytest" if m == "pytest" else "pytest-xdist" for m in missing]
    print("tests: installing", " ".join(missing), flush=True)
    if subprocess.call(cmd, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive")) != 0:
        sys.exit("tests: could not install %s; run: %s" % (" ".join(missing), " ".join(cmd)))
