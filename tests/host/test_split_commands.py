"""The boot tests' transcript parser (tests/conftest.py split_commands): each typed line's output
is what the guest printed after its echo, never the echo itself."""
from conftest import Run, split_commands

TRANSCRIPT = """console: ready
$ vmstat -w fs.cache.dirty 0 30
fs.cache.dirty 0
$ echo "?=$?"
?=0
$ ls /nothing
ls: /nothing: No such file or directory
$ echo "?=$?"
?=1
$ echo -n abc
abc$ echo "?=$?"
?=0
$ poweroff: syncing disks
poweroff: halted
"""


def test_each_line_gets_only_its_own_output_and_status():
    cmds = split_commands(TRANSCRIPT, ["vmstat -w fs.cache.dirty 0 30", 'echo "?=$?"', "ls /nothing",
                                       'echo "?=$?"', "echo -n abc", 'echo "?=$?"'], status=True)
    assert [(c.line, c.out, c.status) for c in cmds] == [
        ("vmstat -w fs.cache.dirty 0 30", "fs.cache.dirty 0\n", 0),
        ("ls /nothing", "ls: /nothing: No such file or directory\n", 1),
        ("echo -n abc", "abc", 0)]


def test_a_line_whose_output_is_only_in_its_echo_printed_nothing():
    # The guest printed nothing for the vmstat: the text the test wants is in the echo alone.
    text = "$ vmstat -w fs.cache.dirty 0 30\n$ echo done\ndone\n$ "
    cmds = split_commands(text, ["vmstat -w fs.cache.dirty 0 30", "echo done"])
    assert cmds[0].out == "" and "fs.cache.dirty 0" not in cmds[0].out
    assert cmds[1].out == "done\n"


def test_a_line_never_read_has_no_output():
    cmds = split_commands("$ echo a\na\n$ ", ["echo a", "echo b"])
    assert cmds[0].out == "a\n" and cmds[1].out is None


def test_a_status_line_that_did_not_print_leaves_the_status_unknown():
    cmds = split_commands("$ sleep 1\n$ echo \"?=$?\"\n$ ", ["sleep 1", 'echo "?=$?"'], status=True)
    assert cmds[0].status is None


def test_a_background_programs_lines_are_cut_wherever_they_landed():
    # The toucher's rounds beside the prompt, inside an echo and inside an output: without
    # background= the jobs line is never found; with it each command reads its own text only.
    rounds = r"touch \d+ \d+ ms, \d+ page-ins\n"
    text = ("$ toucher -n 0 &\n[3]\n$ touch 7 0 ms, 0 page-ins\njobs\n[3] Running toucher -n 0\n"
            "$ ec" "touch 8 0 ms, 0 page-ins\n" "ho hi\nh" "touch 9 1 ms, 2 page-ins\n" "i\n$ ")
    sent = ["toucher -n 0 &", "jobs", "echo hi"]
    assert Run(text, 0, None, sent=sent).cmds[1].out is None
    cmds = Run(text, 0, None, sent=sent, background=rounds).cmds
    assert [c.out for c in cmds] == ["[3]\n", "[3] Running toucher -n 0\n", "hi\n"]
    assert Run(text, 0, None, sent=sent, background=rounds).out == text       # the transcript is kept
