"""make lab-release, at make test's price: the students' tree is written once (release.py
--quick: no solution named in any file, which the release itself checks against
tools/lab/withheld.py, then make in the tree, both skeletons compiled, the labs' fast tests
there, and the tree's build/ removed again), and then read: no solution and no withheld word in
it, no build/, the arbiter's skeleton in the reference's place, the rest as the tree has it.
The full run of the students' tests (the graders' class tests among them: minutes) is make
lab-release's own; make test runs those same tests in this tree. Shown failing by planting: an
edit of withheld.py's lost (the release stops on the word left), and a release that leaves
build/ behind. No wall-clock limit but a hang guard far above an idle run (about 30 s).
Skipped in a students' tree, which has no solution to leave out."""
import filecmp, os, re, subprocess, sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "lab"))

pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "tools", "lab", "withheld.py")),
                                reason="a students' tree: no solution to leave out")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "tree"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab", "release.py"), "--lab", "replacement",
                        "--out", str(out), "--quick"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=1800)
    assert p.returncode == 0, p.stdout[-4000:]
    assert "builds and passes its fast tests" in p.stdout, p.stdout[-2000:]
    return out


def every_file(out):
    for d, _, fs in os.walk(out):
        for f in fs:
            yield os.path.join(d, f)


def test_no_file_of_the_tree_names_a_solution(tree):
    import withheld
    for s in withheld.SOLUTIONS + withheld.LEFT_OUT:
        assert not (tree / s).exists(), s
    left = []
    for path in every_file(tree):
        text = open(path, "rb").read().decode("latin-1").lower()
        left += ["%s: %s" % (os.path.relpath(path, tree), w) for w in withheld.WORDS if w.lower() in text]
    assert left == [], left


def test_the_tree_has_no_build_and_no_caches(tree):
    assert not (tree / "build").exists()
    assert [p for p in every_file(tree) if "__pycache__" in p or ".pytest_cache" in p] == []
    # and nothing but what git tracks, less what is withheld, plus the arbiter's skeleton copy
    tracked = set(subprocess.run(["git", "-C", ROOT, "ls-files"], stdout=subprocess.PIPE, text=True).stdout.split())
    extra = {os.path.relpath(p, tree) for p in every_file(tree)} - tracked
    assert extra == {"kernel/arbiter_mine.c"}, extra


def test_the_skeletons_stand_in_the_solutions_places(tree):
    assert filecmp.cmp(tree / "kernel" / "arbiter_mine.c", os.path.join(ROOT, "docs", "lab", "arbiter_skeleton.c"),
                       shallow=False)
    assert "&arbiter_mine," in (tree / "kernel" / "arbiters.c").read_text()
    assert "extern const struct arbiter arbiter_mine;" in (tree / "kernel" / "arbiter.h").read_text()
    assert "POLICY(policy_clock);" in (tree / "vm" / "policy_clock.c").read_text()
    assert not (tree / "vm" / "policy_aging.c").exists()
    # The rest is the tree as it is: the traces, the learned bias the kernel's adaptive mode uses.
    assert (tree / "traces" / "negotiation" / "ifs-p0.negtrace.gz").exists()
    assert filecmp.cmp(tree / "kernel" / "mem" / "negotiate_rule.c", os.path.join(ROOT, "kernel", "mem", "negotiate_rule.c"),
                       shallow=False)
    # The handouts are the students'; the instructors' page is not in the tree, nor linked.
    assert (tree / "docs" / "lab-replacement.md").exists() and (tree / "docs" / "lab-arbiter.md").exists()
    assert "lab-instructor" not in (tree / "docs" / "README.md").read_text()


def test_the_tests_that_need_a_solution_are_gone_and_the_rest_kept(tree):
    grade = (tree / "tests" / "host" / "test_grade.py").read_text()
    assert "def test_a_policy_choosing_a_frame_it_may_not_is_incorrect" in grade
    assert "def test_skeleton_and_solution_are_correct_and_the_solution_scores_more" not in grade
    sim = (tree / "tests" / "host" / "test_arbitersim.py").read_text()
    assert "needs_reference" not in sim and "def run(" in sim
    assert not (tree / "tests" / "qemu" / "test_arbiter.py").exists()


def test_a_left_word_stops_the_release(tmp_path):
    """A scrub that misses: the release names the file and the word, and writes no success."""
    import release, withheld
    out = tmp_path / "t"
    (out / "docs").mkdir(parents=True)
    (out / "docs" / "x.md").write_text("Some prose.\nThe answer is %s, see.\n" % withheld.SOLUTIONS[0])
    found = release.still_named(str(out), withheld.WORDS)
    assert found and all(f.startswith("docs/x.md:2: ") for f in found), found


def test_the_scrubs(tmp_path):
    import release
    words = ["secret_fn", "the answer"]
    py = ('"""Tests."""\nimport os\nHAS = os.path.exists("secret_fn.c")\nmark = HAS\n\n\n'
          '@pytest.mark.skipif(not mark, reason="x")\ndef test_needs():\n    pass\n\n\n'
          '# the answer is here\ndef test_kept(tmp_path):\n    p = 1\n    assert p\n')
    got = release.scrub_python(py, words)
    assert "HAS" not in got and "mark" not in got and "test_needs" not in got and "the answer" not in got
    assert "def test_kept(tmp_path):\n    p = 1" in got and "import os" in got
    assert release.scrub_python('import pytest\npytestmark = pytest.mark.skipif(not "secret_fn")\n', words) is None
    md = ("| a | aging | b |\n|---|---|---|\n| 1 | 2 | 3 |\n| the answer | 5 | 6 |\n\nprose [x](lab-instructor.md)\n"
          "| c |\n|---|\n")
    assert release.scrub_markdown(md, words, ["aging"], ["docs/lab-instructor.md"]) == \
        "| a | b |\n|---|---|\n| 1 | 3 |\n\n| c |\n|---|\n"
