"""The processes a class's grade left running: none may be (tools/lab/grade.py --dir kills each
submission's process group, and a simulator's runs die with it), or a student's looping hook
would go on burning a core for hours after the grade."""
import glob, hashlib, os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def leftovers(folder, sim):
    """The processes still running that graded a student of folder: a grader or a simulator
    built for one (build/grade/SIM-NAME-TAG, tools/lab/grade.py's simulator())."""
    bins = set()
    for f in glob.glob(os.path.join(str(folder), "*", "*.c")):
        name = os.path.basename(f).split("_", 1)[1][:-2]
        tag = hashlib.sha1(os.path.abspath(f).encode()).hexdigest()[:8]
        bins.add(os.path.join(str(ROOT), "build", "grade", "%s-%s-%s" % (sim, name, tag)))
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().decode("utf-8", "replace").split("\0")
            exe = os.readlink("/proc/%s/exe" % pid).replace(" (deleted)", "")
        except OSError:
            continue                # gone meanwhile, or not ours to read
        if exe in bins or any(a in bins or str(folder) in a for a in argv):
            found.append("%s %s" % (pid, " ".join(argv)))
    return found
