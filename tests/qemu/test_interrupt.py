"""^C on the console kills the foreground job (every process of its pipeline) and nothing else:
the shell prompts again and runs the next command, a background job lives on, and ^C at the
prompt discards the line being typed. The ^C byte is sent only once the job has shown it runs
(conftest orders input by the guest's output)."""
import re
from conftest import boot

TICKER = "toucher -m 1 -s 0.2 -n 1000"          # prints "touch N MS" five times a second
RUNNING = r"touch 3 \d+"                         # only the program prints this, never an echo
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
        (r"killed: interrupted", "echo AF''TER\nps\n"),
    ])


def check_after(r, killed_names):
    assert r.rc == 0, r                                    # the shell lived to power off on ^D
    killed = KILLED.findall(r.out)
    assert sorted(n for _, n in killed) == sorted(killed_names), r
    after = r.out[KILLED.search(r.out).end():]
    assert re.search(r"^\$ ", after, re.M), r               # a prompt again
    assert re.search(r"^AFTER$", after, re.M), r            # and the next command ran
    assert "toucher:" not in r.out, r                      # the job never finished by itself
    rows = ps_rows(after)
    names = [x["name"] for x in rows]
    assert "sleep" in names, r                             # the background job lives on
    assert "toucher" not in names, r
    sh = [x for x in rows if x["name"] == "sh"]
    sleep = [x for x in rows if x["name"] == "sleep"][0]
    assert len(sh) == 1 and sleep["pgid"] != sh[0]["pgid"], r
    for pid, _ in killed:                                  # every process of the job is gone
        assert int(pid) not in [x["pid"] for x in rows], r


def test_ctrl_c_kills_the_foreground_program_only(disk):
    check_after(interrupt(TICKER, disk), ["toucher"])


def test_ctrl_c_kills_a_whole_pipeline(disk):
    check_after(interrupt(TICKER + " | cat | cat", disk), ["toucher", "cat", "cat"])


def test_ctrl_c_at_the_prompt_discards_the_line(disk):
    r = boot("sleep 60 &\necho NOT''RUN\x03echo RA''N\nps\n", disk=disk)
    assert r.rc == 0, r
    assert re.search(r"^RAN$", r.out, re.M), r
    assert not re.search(r"^NOTRUN$", r.out, re.M), r
    assert not KILLED.search(r.out), r
    assert "sleep" in [x["name"] for x in ps_rows(r.out)], r
