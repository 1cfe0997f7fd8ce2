"""Makes sure matplotlib is importable for the benchmarks' figures (make bench-*): as root on
Debian with apt-get (python3-matplotlib), otherwise with pip; or prints the command."""
import importlib.util, os, subprocess, sys

if importlib.util.find_spec("matplotlib") is None:
    debian = sys.executable.startswith("/usr/bin/") and os.path.exists("/usr/bin/apt-get")
    if debian and os.geteuid() == 0:
        cmds = [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                                               "python3-matplotlib"]]
    elif debian:
        sys.exit("bench: matplotlib is missing; install it with: sudo apt-get install python3-matplotlib")
    else:
        cmds = [[sys.executable, "-m", "pip", "install", "-q", "matplotlib"]]
    print("bench: installing matplotlib", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in cmds:
        if subprocess.call(cmd, env=env, stdout=subprocess.DEVNULL) != 0:
            sys.exit("bench: could not install matplotlib; run: %s" % " ".join(cmds[-1]))
    importlib.invalidate_caches()
    if importlib.util.find_spec("matplotlib") is None:
        sys.exit("bench: matplotlib still not importable after: %s" % " ".join(cmds[-1]))
