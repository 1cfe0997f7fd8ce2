"""The boot tests' transcript parser (tests/conftest.py split_commands): each typed line's output
is what the guest printed after its echo, never the echo itself."""
from conftest import split_commands

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
