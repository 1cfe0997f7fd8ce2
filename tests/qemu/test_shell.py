"""The shell: arguments, quoting, redirection, pipes, sequences, background jobs, builtins."""
import re


def lines(out):
    return [l.rstrip("\r") for l in out.splitlines()]


def test_quoting_and_sequences(sh):
    r = sh("echo 'a  b' \"c d\" e\\ f; echo second\n")
    assert r.printed("echo 'a  b' \"c d\" e\\ f; echo second") == "a  b c d e f\nsecond\n", r


def test_redirections(sh):
    r = sh("echo one > /tmp/f\necho two >> /tmp/f\ncat < /tmp/f\nwc -l < /tmp/f\n", status=True)
    assert r.printed("echo one > /tmp/f") == "" and r.printed("echo two >> /tmp/f") == "", r
    assert r.printed("cat < /tmp/f") == "one\ntwo\n", r
    assert r.printed("wc -l < /tmp/f").strip() == "2", r
    assert [c.status for c in r.cmds] == [0] * 4, r.cmds


def test_pipeline_of_three(sh):
    r = sh("echo hello world | cat | wc -w\n", status=True)
    c = r.cmd("echo hello world | cat | wc -w")
    assert c.out.strip() == "2" and c.status == 0, r.cmds


def test_cd_and_relative_paths(sh):
    r = sh("mkdir /tmp/d\ncd /tmp/d\necho x > rel\ncd ..\ncat d/rel\nls /tmp/d\n", status=True)
    assert r.printed("cat d/rel") == "x\n", r
    assert r.printed("ls /tmp/d") == "rel\n", r
    assert [c.status for c in r.cmds] == [0] * 6, r.cmds


def test_background_job(sh):
    r = sh("sleep 1 &\necho foreground\n", status=True)
    assert r.printed("echo foreground") == "foreground\n", r
    assert re.fullmatch(r"\[\d+\]\n", r.printed("sleep 1 &")), r   # the shell prints [pid] for a background job
    assert [c.status for c in r.cmds] == [0, 0], r.cmds


def test_missing_program_and_help(sh):
    r = sh("nosuchprog\nhelp\necho after\n", status=True)
    assert r.printed("nosuchprog") == "sh: nosuchprog: not found\n" and r.cmd("nosuchprog").status != 0, r.cmds
    help = lines(r.printed("help"))
    assert help[0].startswith("builtins: cd") and "exit" in help[0] and r.cmd("help").status == 0, r.cmds
    assert r.printed("echo after") == "after\n", r


def test_missing_file_errors(sh):
    r = sh("cat /nosuch\nls /nosuchdir\ncd /nosuchdir\necho after\n", status=True)
    assert r.printed("cat /nosuch") == "cat: /nosuch: No such file or directory\n", r
    for c in r.cmds[:3]:
        assert c.status != 0 and c.out.endswith("/nosuch%s: No such file or directory\n"
                                                % ("" if c.line == "cat /nosuch" else "dir")), r.cmds
    assert r.printed("echo after") == "after\n", r


def test_exit_builtin_powers_off(sh):
    r = sh("exit\necho not reached\n")
    assert "not reached" not in r.out and r.cmd("exit").out is not None, r


def test_exit_status_of_each_command(sh):
    r = sh("ls /\nls /no-such-file\nsh -c 'exit 3'\nsh -c 'exit 4'; echo \"was $?\" '$?'\n"
           "nosuchprogram\nvmstat -w fs.cleaner.scans +1 30\nvmstat -w fs.cache.dirty 999999 1\n",
           status=True)
    assert [r.cmd(c).status for c in ("ls /", "ls /no-such-file", "sh -c 'exit 3'")] == [0, 1, 3], r.cmds
    # $? expanded, but not inside '...'
    assert r.printed("sh -c 'exit 4'; echo \"was $?\" '$?'") == "was 4 $?\n", r
    assert r.cmd("nosuchprogram").status != 0, r.cmds
    # A counter that surely moves (the cleaner daemon scans every 5 s), and one that cannot
    # reach its value: vmstat -w's two statuses. (fs.cache.dirty 0 is not sure to be reached:
    # every program started dirties /swap's directory block.)
    vm = r.cmd("vmstat -w fs.cleaner.scans +1 30")
    assert vm.status == 0 and re.fullmatch(r"fs\.cleaner\.scans \d+\n", vm.out), r.cmds
    late = r.cmd("vmstat -w fs.cache.dirty 999999 1")
    assert late.status == 1 and late.out.startswith("vmstat: fs.cache.dirty is "), r.cmds
