"""The shell: arguments, quoting, redirection, pipes, sequences, background jobs, builtins."""
import re


def lines(out):
    return [l.rstrip("\r") for l in out.splitlines()]


def test_quoting_and_sequences(sh):
    r = sh("echo 'a  b' \"c d\" e\\ f; echo second\n")
    assert "a  b c d e f" in lines(r.out), r
    assert "second" in lines(r.out), r


def test_redirections(sh):
    r = sh("echo one > /tmp/f\necho two >> /tmp/f\ncat < /tmp/f\nwc -l < /tmp/f\n")
    out = lines(r.out)
    i = out.index("one")
    assert out[i + 1] == "two", r
    assert any(l.strip() == "2" for l in out), r


def test_pipeline_of_three(sh):
    r = sh("echo hello world | cat | wc -w\n")
    assert any(l.strip() == "2" for l in lines(r.out)), r


def test_cd_and_relative_paths(sh):
    r = sh("mkdir /tmp/d\ncd /tmp/d\necho x > rel\ncd ..\ncat d/rel\nls /tmp/d\n")
    assert "x" in lines(r.out), r
    assert any("rel" in l for l in lines(r.out)), r


def test_background_job(sh):
    r = sh("sleep 1 &\necho foreground\n")
    assert "foreground" in lines(r.out), r
    assert any(re.fullmatch(r"\[\d+\]", l) for l in lines(r.out)), r   # the shell prints [pid] for a background job


def test_missing_program_and_help(sh):
    r = sh("nosuchprog\nhelp\necho after\n")
    assert "nosuchprog: not found" in r.out, r
    assert any(l.startswith("builtins: cd") and "exit" in l for l in lines(r.out)), r
    assert "after" in lines(r.out), r


def test_missing_file_errors(sh):
    r = sh("cat /nosuch\nls /nosuchdir\ncd /nosuchdir\necho after\n")
    assert "cat: /nosuch: No such file or directory" in r.out, r
    assert r.out.count("No such file or directory") >= 3, r
    assert "after" in lines(r.out), r


def test_exit_builtin_powers_off(sh):
    r = sh("exit\necho not reached\n")
    assert "not reached" not in r.out, r


def test_exit_status_of_each_command(sh):
    r = sh("ls /\nls /no-such-file\nsh -c 'exit 3'\nsh -c 'exit 4'; echo \"was $?\" '$?'\n"
           "nosuchprogram\nvmstat -w fs.cache.dirty 0 30\n", status=True)
    assert [r.cmd(c).status for c in ("ls /", "ls /no-such-file", "sh -c 'exit 3'")] == [0, 1, 3], r.cmds
    # $? expanded, but not inside '...'
    assert r.printed("sh -c 'exit 4'; echo \"was $?\" '$?'") == "was 4 $?\n", r
    assert r.cmd("nosuchprogram").status != 0, r.cmds
    vm = r.cmd("vmstat -w fs.cache.dirty 0 30")
    assert vm.status == 0 and vm.out.splitlines() == ["fs.cache.dirty 0"], r.cmds
