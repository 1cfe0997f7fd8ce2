"""Work that several tests read, done once per test session: a class graded, say, that a dozen
tests check. A module-scoped fixture is not enough under pytest-xdist (make test runs two
workers): each worker that runs one of the module's tests builds the fixture again, and a class
graded twice on two cores is the slowest thing in the suite. Here the first worker to ask does
the work under a lock in the session's shared temporary directory and keeps its result there;
the others wait for the lock and read it.

Only a result is kept: work that raised (a failed assertion) is done again by the next worker to
ask, which fails the same way, so every test that reads it reports the failure."""
import fcntl, os, pickle, shutil


def shared_root(tmp_path_factory):
    """The session's temporary directory, the one every xdist worker's lies in."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


def once(tmp_path_factory, name, make):
    """make(directory) once per test session, whatever the number of workers; its value
    (picklable) to every caller. directory is the work's own, shared by all the workers."""
    root = shared_root(tmp_path_factory)
    d = root / ("once-" + name)
    with open(root / ("once-" + name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # released when the file closes
        kept = d / "result.pickle"
        if kept.exists():
            return pickle.loads(kept.read_bytes())
        shutil.rmtree(d, ignore_errors=True)    # what a failed attempt left
        d.mkdir()
        value = make(d)
        kept.write_bytes(pickle.dumps(value))
        return value
