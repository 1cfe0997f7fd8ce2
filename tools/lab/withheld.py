"""What the students' tree withholds (make lab-release, tools/lab/release.py): the instructor's
copy of this list, the one file of the tree that may name the labs' solutions.

The release leaves this file out, with the solutions and the instructor's page, so a student
who greps their tree for a solution's name finds nothing. The release checks every file it
writes against WORDS and stops, naming the file and line, when one is left: a new doc sentence,
test or comment that names a solution cannot slip into a class's tree unseen.

- SOLUTIONS: the labs' reference solutions, left out of every lab's tree (a class that does
  both labs must not hold the second's answer while doing the first).
- LEFT_OUT: the instructor's files, left out too.
- EDITS: {file: [(text, what replaces it)]}, applied where the text is found (a tree that moved
  on and no longer has it is caught by the word check, not by this list): the kernel's tables
  and externs, and the graders' and tests' lines that look for a solution.
- WORDS: what no file of the students' tree may contain (case ignored): the solutions' file and
  symbol names, the names the tools know them by, and the words that say which they are.
- COLUMNS: policy names a generated table of the docs has a column for; the release drops that
  column (docs/results.md's comparison of Hagmann's policies)."""

SOLUTIONS = ["vm/policy_aging.c", "kernel/arbiter_reference.c"]

LEFT_OUT = ["docs/lab-instructor.md", "tools/lab/withheld.py", "tests/host/test_lab_release.py"]

EDITS = {
    # The kernel's tables: the replacement lab's solution out, the arbiter's skeleton in.
    "vm/policy.h": [("policy_spt, policy_aging;", "policy_spt;")],
    "kernel/arbiters.c": [("  &arbiter_reference,         /* the lab's model solution (docs/lab-arbiter.md) */\n",
                           "  &arbiter_mine,              /* the skeleton (docs/lab/arbiter_skeleton.c): yours */\n")],
    "kernel/arbiter.h": [("extern const struct arbiter arbiter_reference;", "extern const struct arbiter arbiter_mine;")],
    # The arbiter lab's simulator and grader look for the reference; the students' tree has none.
    "tools/lab/arbitersim/main.c": [
        (" (a student's file), the reference (kernel/arbiter_reference.c,\n * when the tree has it), and three",
         " (a student's file), and three"),
        ("/* The reference, when the tree has it (the students' tree does not). */\n"
         "extern const struct arbiter arbiter_reference __attribute__((weak));\n", ""),
        ("  if (&arbiter_reference)\n    known[nknown++] = &arbiter_reference;\n", ""),
        ("&arbiter_reference ? &arbiter_reference : 0", "0"),
    ],
    "tools/lab/arbiter_grade.py": [
        (" +\n                     glob.glob(os.path.join(ROOT, \"kernel/arbiter_reference.c\"))", ""),
        ("os.path.exists(os.path.join(ROOT, \"kernel\", \"arbiter_reference.c\"))", "False"),
    ],
    "tests/host/test_arbiter_grade.py": [
        ("os.path.join(ROOT, \"kernel\", \"arbiter_reference.c\")",
         "os.path.join(ROOT, \"kernel\", \"no-reference-in-a-students-tree.c\")"),
    ],
    # Settings a guest test sets: the students' kernel knows the skeleton, not the reference.
    "tests/host/test_grade.py": [
        ("the skeleton and the model solution are\ncorrect and scored by the rule the handout states, and the solution beats the skeleton.",
         "and the skeleton is correct and\nscored by the rule the handout states."),
    ],
    "tests/qemu/test_settings.py": [("\"vm.arbiter\": (\"reference\", \"nosuch\")", "\"vm.arbiter\": (\"mine\", \"nosuch\")")],
    "tests/qemu/test_views.py": [("  vm.policy=aging, vm.clock_rate,", "  vm.clock_rate,")],
    "README.md": [("`make grade ARBITER=reference`", "`make grade ARBITER=mine`")],
}

WORDS = ["policy_aging", "arbiter_reference", "vm.policy=aging", "POLICY=aging", "vm.arbiter=reference",
         "ARBITER=reference", "\"aging\"", "'aging'", "| aging |", "model solution", "Tanenbaum",
         "lab-instructor"]

COLUMNS = ["aging"]
