"""^C on the console kills the foreground job (every process of its pipeline) and nothing else:
the shell prompts again and runs the next command, a background job lives on, and ^C at the
prompt discards the line being typed. The ^C byte is sent only once the job has shown it runs
(conftest orders input by the guest's output)."""
import re
from conftest import boot

TICKER = "toucher -m 1 -s 0.2 -n 1000"          # prints "touch N MS" five times a second
RUNNING = r"touch 3 \d+"                         # only the program prints this, never an echo
AFTER = 'echo "after $?"'                        # the job's status: 128 + 2 (SIGINT) for ^C
KILLED = re.compile(r"^pid (\d+) \((\w+)\) killed: interrupted \(\^C\)", re.M)


def ps_rows(out):
    """Rows of every `ps` printed in out: dicts of pid, ppid, pgid, state, name."""
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 8 and all(x.isdigit() for x in f[:3] + f[4:7]):
            rows.append(dict(pid=int(f[0]), ppid=int(f[1]), pgid=int(f[2]), state=f[3], name=f[7]))
    return rows


def interrupt(job, disk):
    """Starts a background sleeper and then job in the foreground, sends ^C once the job
    runs, then checks with `ps` and a following command."""
    return boot("sleep 60 &\n%s\n" % job, disk=disk, wait_for=[
        (RUNNING, "\x03"),
        (r"killed: interrupted", AFTER + "\nps\n"),
    ])


def check_after(r, job, killed_names):
    assert r.rc == 0, r                                    # the shell lived to power off on ^D
    killed = KILLED.findall(r.out)
    assert sorted(n for _, n in killed) == sorted(killed_names), r
    assert KILLED.findall(r.printed(job)) == killed, r     # while the job was the command
    # A prompt again, and the next command ran: its echo follows the prompt.
    assert r.printed(AFTER) == "after 130\n", r
    assert "toucher:" not in r.out, r                      # the job never finished by itself
    rows = ps_rows(r.printed("ps"))
    names = [x["name"] for x in rows]
    assert "sleep" in names, r                             # the background job lives on
    assert "toucher" not in names, r
    sh = [x for x in rows if x["name"] == "sh"]
    sleep = [x for x in rows if x["name"] == "sleep"][0]
    assert len(sh) == 1 and sleep["pgid"] != sh[0]["pgid"], r
    for pid, _ in killed:                                  # every process of the job is gone
        assert int(pid) not in [x["pid"] for x in rows], r


def test_ctrl_c_kills_the_foreground_program_only(disk):
    check_after(interrupt(TICKER, disk), TICKER, ["toucher"])


def test_ctrl_c_kills_a_whole_pipeline(disk):
    check_after(interrupt(TICKER + " | cat | cat", disk), TICKER + " | cat | cat", ["toucher", "cat", "cat"])


def test_ctrl_c_at_the_prompt_discards_the_line(disk):
    # The sleep 1 lets the background child exec first: forked, it is still named sh.
    r = boot("sleep 60 &\necho NOTRUN\x03echo RAN\nsleep 1\nps\n", disk=disk)
    assert r.rc == 0, r
    assert r.printed("echo RAN") == "RAN\n", r
    assert not re.search(r"^NOTRUN$", r.out, re.M), r
    assert not KILLED.search(r.out), r
    assert [x["name"] for x in ps_rows(r.printed("ps"))].count("sleep") == 1, r
