"""The labs, as the instructor's tools see them: what a student hands in, how one submission is
graded, and what the students' tree runs to show it works.

tools/lab/grade.py --dir grades a directory of submissions for one lab (make grade DIR=...);
tools/lab/release.py writes the student tree (make lab-release). Both know a lab only through
its entry here, so a second lab (the negotiation's arbiter, issue 26's lab 2) is one more
entry: its name, the glob of its student files, the command that grades one submission, its
skeleton, and the tests its student tree runs. What the students' tree leaves out, the labs'
solutions and every word naming them, is not here: this file ships to students. The
instructor's withheld.py beside it lists it, and release.py reads it.

A submission is a directory (one per student, named for the student) holding the lab's student
files; a file the lab does not ask for is ignored."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Lab:
    def __init__(self, name, handout, student_glob, grade_command, skeleton, tests, quick_tests,
                 allowed_symbols, allowed_include, build, copies=None, noun="a policy", lock="the VM lock",
                 call_rule="every hook runs with the VM lock held (no sleeping, no allocating, no printing), "
                           "and a policy asks the VM only the pol_* questions of vm/policy.h"):
        self.name = name
        self.handout = handout                  # the handout (docs/...)
        self.student_glob = student_glob        # what a student hands in, in their directory
        self.grade_command = grade_command      # (python, submission file, host_only, call limit ms) -> argv
        self.skeleton = skeleton                # the students' starting file
        self.tests = tests                      # what the student tree must pass (make lab-release)
        self.quick_tests = quick_tests          # the fast part of them (make test's check of the release)
        self.allowed_symbols = allowed_symbols  # a predicate: may the file call or use this symbol?
        self.allowed_include = allowed_include  # the one header a student file may include
        self.build = build                      # the make targets its tests need
        self.copies = copies or {}              # {file of the student tree: the tracked file it is a copy of}
        self.noun = noun                        # what a student file is, in a rule break's reason
        self.lock = lock                        # what its hooks run under
        self.call_rule = call_rule              # why a call is forbidden


def policy_name(path):
    """The NAME of a replacement policy's file policy_NAME.c."""
    base = os.path.basename(path)
    return base[len("policy_"):-len(".c")]


def _replacement_command(python, path, host_only, call_limit_ms):
    argv = [python, os.path.join(ROOT, "tools", "lab", "grade.py"), policy_name(path), "--file", path,
            "--call-limit", str(call_limit_ms)]
    return argv + (["--host-only"] if host_only else [])


# What a policy may ask the VM (vm/policy.h), and what the compiler itself may call.
_POLICY_SYMBOLS = {"pol_nframes", "pol_candidate", "pol_referenced", "pol_accessed", "pol_lastref",
                   "pol_now", "pol_word", "pol_page", "vm_cluster_size", "vm_spt_epoch_ms",
                   "memset", "memcpy", "memmove", "__udivdi3", "__umoddi3", "__divdi3", "__moddi3"}

LABS = {
    "replacement": Lab(
        name="replacement",
        handout="docs/lab-replacement.md",
        student_glob="policy_*.c",
        grade_command=_replacement_command,
        skeleton="docs/lab/policy_skeleton.c",
        tests=["tests/host/test_c_programs.py::test_the_c_program_passes[test_policy]",
               "tests/host/test_tracesim.py", "tests/host/test_grade.py",
               "tests/host/test_grade_dir.py"],
        quick_tests=["tests/host/test_c_programs.py::test_the_c_program_passes[test_policy]", "tests/host/test_tracesim.py"],
        allowed_symbols=lambda s: s in _POLICY_SYMBOLS,
        allowed_include="vm/policy.h",
        build=["all", "build/tests/test_policy"],
    ),
}


def _arbiter_command(python, path, host_only, call_limit_ms):
    name = os.path.basename(path)[len("arbiter_"):-len(".c")]
    argv = [python, os.path.join(ROOT, "tools", "lab", "arbiter_grade.py"), name, "--file", path,
            "--call-limit", str(call_limit_ms)]
    return argv + (["--host-only"] if host_only else [])


# An arbiter asks nothing: it is told (struct arb_view, struct arb_refault). What the compiler
# itself may call for a copy or a 64-bit division is all it may use, and the kernel's own rule
# (kernel/mem/negotiate_rule.h: pure C that sleeps, allocates and prints nothing; the reference is
# a wrapper over it).
_ARBITER_SYMBOLS = {"memset", "memcpy", "memmove", "__udivdi3", "__umoddi3", "__divdi3", "__moddi3",
                    "neg_decide", "neg_keeps_own", "neg_penalty_ms", "neg_refault_early", "neg_learned_bias",
                    "neg_learn_refault", "neg_saved", "neg_learn_saved"}

LABS["arbiter"] = Lab(
    name="arbiter",
    handout="docs/lab-arbiter.md",
    student_glob="arbiter_*.c",
    grade_command=_arbiter_command,
    copies={"kernel/arbiter_mine.c": "docs/lab/arbiter_skeleton.c"},
    skeleton="docs/lab/arbiter_skeleton.c",
    tests=["tests/host/test_arbitersim.py", "tests/host/test_arbiter_grade.py", "tests/host/test_architecture.py"],
    quick_tests=["tests/host/test_arbitersim.py", "tests/host/test_architecture.py"],
    allowed_symbols=lambda s: s in _ARBITER_SYMBOLS,
    allowed_include="kernel/arbiter.h",
    build=["all"],
    noun="an arbiter",
    lock="a spinlock with interrupts off",
    call_rule="every hook may run with a spinlock held and interrupts off (no sleeping, no allocating, no "
              "printing), and an arbiter is told all it may know (struct arb_view, struct arb_refault) and may "
              "call only the kernel's own rule (kernel/mem/negotiate_rule.h)",
)
