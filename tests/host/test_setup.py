"""The set-up of `make test` on a machine whose python3 has none of what the tests need (CI's
kind: its python3 is not Debian's, and apt cannot install into it). tools/setup/pydeps.py, run by a
fresh `python3 -m venv` (no pytest, no pytest-xdist, no matplotlib), must make an environment
of the project's own that has them all, without writing into the Python that ran it; a second
run must do nothing. Debian's own python3 with apt is covered by tools/setup/fresh-debian.sh (a
whole minimal Debian; not run here: a few hundred MB of packages).

Needs PyPI, as CI and a student's machine have; where the machine has no route to it the test
is skipped with the reason, rather than failing for the network."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "setup", "pydeps.py")


def imports(py, *modules):
    code = "import importlib.util, sys; sys.exit(sum(importlib.util.find_spec(m) is None for m in sys.argv[1:]))"
    return subprocess.run([py, "-c", code] + list(modules)).returncode == 0


def site_listing(py):
    code = "import site, os; print(sorted(os.listdir(site.getsitepackages()[0])))"
    return subprocess.run([py, "-c", code], stdout=subprocess.PIPE, text=True, check=True).stdout


def test_a_python_without_the_test_packages_gets_an_environment_that_has_them(tmp_path):
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", str(bare)], check=True)
    bare_py = str(bare / "bin" / "python3")
    assert not imports(bare_py, "xdist"), "a fresh venv already has pytest-xdist?"
    before = site_listing(bare_py)

    env_dir = tmp_path / "py"
    p = subprocess.run([bare_py, TOOL, "--dir", str(env_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=900)
    if p.returncode != 0 and "pip could not install" in p.stdout and "apt-get" in p.stdout \
            and ("Network is unreachable" in p.stdout or "No matching distribution" in p.stdout):
        pytest.skip("no route to PyPI: " + p.stdout.strip().splitlines()[-1])
    assert p.returncode == 0, p.stdout
    py = str(env_dir / "bin" / "python3")
    assert imports(py, "pytest", "xdist", "matplotlib"), p.stdout
    assert site_listing(bare_py) == before                     # the Python that ran it is untouched
    # made on the Python that ran it, with pip: not by falling back on Debian's packages
    home = lambda d: [l for l in (d / "pyvenv.cfg").read_text().splitlines() if l.startswith("home")]
    assert home(env_dir) == home(bare) and "Debian" not in p.stdout, p.stdout
    # It works as make test uses it: pytest with -n
    t = tmp_path / "test_one.py"
    t.write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    r = subprocess.run([py, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", str(t)], cwd=str(tmp_path),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout
    # Nothing to do the second time: no output, nothing downloaded.
    again = subprocess.run([bare_py, TOOL, "--dir", str(env_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120)
    assert again.returncode == 0 and again.stdout == "", again.stdout


def test_an_unknown_module_is_one_clear_line(tmp_path):
    p = subprocess.run([sys.executable, TOOL, "--dir", str(tmp_path / "py"), "--modules", "pytest,numpyy"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode != 0 and p.stderr.strip().splitlines() == [
        "pydeps: unknown module numpyy (known: pytest, xdist, matplotlib)"], p.stderr
    assert not (tmp_path / "py").exists()
