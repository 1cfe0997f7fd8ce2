"""What a UNIX user expects of the shell: grep, head, tail, pwd, clear; vmstat by
name or prefix; ls -l's header; background jobs numbered by the group kill takes, and jobs;
the shell's own line editing and history at the console. Each check reads what a command
printed, never the echo of its line (except where the echo itself is what is checked: the
transcript of lines typed ahead must stay "$ LINE\\n")."""
import os
import re
import sys

from conftest import ROOT, boot, split_commands, vmstat_snapshots

sys.path.insert(0, str(ROOT / "tools" / "bench"))
from benchlib import boot_steps  # noqa: E402


def lines(out):
    return [l.rstrip("\r") for l in out.splitlines()]


# --- grep ---------------------------------------------------------------------------------------
WORDS = ["abc", "xaby", "ABZ", "a+b", "zzz", "a middle z", "", "axxxz", "b", "tab\there", "last ab", "baz"]


def py_grep(pattern, text, nocase=False, invert=False):
    """The host's answer: the patterns used here mean the same to Python's re (only . * ^ $
    are special in them; a '+' is escaped by the caller)."""
    rx = re.compile(pattern, re.I if nocase else 0)
    return [l for l in text if bool(rx.search(l)) != invert]


def test_grep_patterns_and_flags(make_disk, tmp_path):
    w = tmp_path / "w.txt"
    w.write_text("\n".join(WORDS))                      # the last line has no newline
    v = tmp_path / "v.txt"
    v.write_text("ab in v\nnothing\n")
    d = make_disk(files=[w, v])
    cmds = ["grep ab /w.txt", "grep -v ab /w.txt", "grep -c ab /w.txt", "grep -n ab /w.txt",
            "grep -i AB /w.txt", "grep '^a.*z$' /w.txt", "grep 'x*y' /w.txt", "grep a+b /w.txt",
            "grep -vc '.' /w.txt", "cat /w.txt | grep -ni b", "grep ab /w.txt /v.txt",
            "grep nowhere /w.txt", "grep ab /nosuch", "grep"]
    r = boot("\n".join(cmds) + "\n", disk=d, status=True)
    assert r.rc == 0, r
    got = {c: lines(r.printed(c)) for c in cmds}
    st = {c: r.cmd(c).status for c in cmds}
    assert got["grep ab /w.txt"] == py_grep("ab", WORDS) == ["abc", "xaby", "tab\there", "last ab"], r
    assert got["grep -v ab /w.txt"] == py_grep("ab", WORDS, invert=True), r
    assert got["grep -c ab /w.txt"] == ["4"], r
    assert got["grep -n ab /w.txt"] == ["%d:%s" % (i + 1, l) for i, l in enumerate(WORDS) if "ab" in l], r
    assert got["grep -i AB /w.txt"] == py_grep("AB", WORDS, nocase=True), r
    assert got["grep '^a.*z$' /w.txt"] == py_grep("^a.*z$", WORDS) == ["a middle z", "axxxz"], r
    assert got["grep 'x*y' /w.txt"] == py_grep("x*y", WORDS), r
    assert got["grep a+b /w.txt"] == ["a+b"], r                      # '+' is not special
    assert got["grep -vc '.' /w.txt"] == ["1"], r                    # the empty line
    assert got["cat /w.txt | grep -ni b"] == ["%d:%s" % (i + 1, l) for i, l in enumerate(WORDS)
                                              if "b" in l.lower()], r
    assert got["grep ab /w.txt /v.txt"] == ["/w.txt:" + l for l in py_grep("ab", WORDS)] + ["/v.txt:ab in v"], r
    assert got["grep nowhere /w.txt"] == [] and st["grep nowhere /w.txt"] == 1, r
    assert got["grep ab /nosuch"] == ["grep: /nosuch: No such file or directory"] and st["grep ab /nosuch"] == 2, r
    assert got["grep"][0].startswith("usage: grep") and st["grep"] == 2, r
    assert all(st[c] == 0 for c in cmds[:11]), r.cmds


# --- head, tail -----------------------------------------------------------------------------------
def test_head_and_tail_on_files_and_pipes(make_disk, tmp_path):
    n = tmp_path / "n.txt"
    num = ["line %d" % i for i in range(1, 26)]
    n.write_text("".join(l + "\n" for l in num))
    big = tmp_path / "big.txt"
    many = ["row %06d %s" % (i, "x" * (i % 97)) for i in range(6000)]      # about 330 KB
    big.write_text("\n".join(many))                                        # no newline at its end
    d = make_disk(files=[n, big])
    cmds = ["head /n.txt", "head -n 3 /n.txt", "tail /n.txt", "tail -n 3 /n.txt", "cat /n.txt | tail -n 2",
            "cat /big.txt | tail -n 3", "tail -n 1 /big.txt", "cat /big.txt | head -n 2",
            "head -n 1 /n.txt /big.txt", "tail -n 0 /n.txt", "tail -n 40 /n.txt | wc -l", "head -n x /n.txt"]
    r = boot("\n".join(cmds) + "\n", disk=d, status=True)
    assert r.rc == 0, r
    got = {c: lines(r.printed(c)) for c in cmds}
    assert got["head /n.txt"] == num[:10] and got["head -n 3 /n.txt"] == num[:3], r
    assert got["tail /n.txt"] == num[-10:] and got["tail -n 3 /n.txt"] == num[-3:], r
    assert got["cat /n.txt | tail -n 2"] == num[-2:], r                    # a pipe cannot seek
    assert got["cat /big.txt | tail -n 3"] == many[-3:], r
    # The last line has no newline, and tail keeps it so: the next prompt follows on its line.
    assert r.printed("tail -n 1 /big.txt") == many[-1], r
    assert got["cat /big.txt | head -n 2"] == many[:2], r
    assert got["head -n 1 /n.txt /big.txt"] == ["==> /n.txt <==", num[0], "", "==> /big.txt <==", many[0]], r
    assert got["tail -n 0 /n.txt"] == [], r
    assert got["tail -n 40 /n.txt | wc -l"][0].strip() == "25", r
    assert got["head -n x /n.txt"] == ["usage: head [-n N] [FILE...]"] and r.cmd("head -n x /n.txt").status == 1, r
    assert all(r.cmd(c).status == 0 for c in cmds[:-1]), r.cmds


# --- pwd, clear, ls -l ----------------------------------------------------------------------------
def test_pwd_clear_and_ls_long_header(sh):
    cmds = ["pwd", "mkdir /tmp/d", "cd /tmp/d", "pwd", "echo x > f", "mkdir sub", "cd ..", "pwd", "clear",
            "ls -l /tmp/d", "ls -l /tmp/d/f", "ls -l /tmp", "ls -ld /tmp/d", "ls -l /", "ls -ld /swap", "ls -l /swap",
            "ls -h", "ls -l /tmp/nosuch", "sleep 2", "echo y > /tmp/late", "ls -l /tmp/late"]
    r = sh("\n".join(cmds) + "\n", status=True)
    assert [r.printed("pwd", i) for i in range(3)] == ["/\n", "/tmp/d\n", "/tmp\n"], r
    assert r.printed("clear") == "\x1b[2J\x1b[H", r                       # erase, cursor home
    # The usual columns: type, links, size, time (seconds after boot), name, under a total line
    # of the KB the entries hold (f and sub: a 4 KB block each).
    row = r"([-dc]) +(\d+) +(\d+) +(\d+)s (\S+)"
    head, *rows = lines(r.printed("ls -l /tmp/d"))
    assert head == "total 8" and len(rows) == 2, r
    got = {m.group(5): m.groups()[:3] for m in (re.fullmatch(row, l) for l in rows) if m}
    assert got == {"f": ("-", "1", "2"), "sub": ("d", "2", got["sub"][2])}, r
    # One file: its line alone, so that a script reads its fields at once.
    m = re.fullmatch(row + r"\n", r.printed("ls -l /tmp/d/f"))
    assert m and m.group(1, 2, 3, 5) == ("-", "1", "2", "/tmp/d/f"), r
    # A directory's links: its entry, its ".", each child's "..": /tmp/d has sub, so 3; and
    # -d shows the directory itself, the row its parent's listing shows for it.
    (d_row,) = [l for l in lines(r.printed("ls -l /tmp")) if l.endswith(" d")]
    assert re.fullmatch(row, d_row).group(1, 2) == ("d", "3"), r
    assert lines(r.printed("ls -ld /tmp/d")) == [d_row[:-1] + "/tmp/d"], r
    # /swap, the kernel's: its row the same both ways; its entries refused, and the error says
    # what shows it.
    (swap_row,) = [l for l in lines(r.printed("ls -l /")) if l.endswith(" swap")]
    assert re.fullmatch(row, swap_row).group(1) == "d", r
    assert lines(r.printed("ls -ld /swap")) == [swap_row[:-4] + "/swap"], r
    assert r.printed("ls -l /swap") == "ls: /swap: Permission denied (ls -ld /swap shows the directory itself)\n", r
    # The help says why there is no mode column.
    assert "no permission bits" in r.printed("ls -h") and r.cmd("ls -h").status == 0, r
    assert r.printed("ls -l /tmp/nosuch") == "ls: /tmp/nosuch: No such file or directory\n", r
    # The time is the last change's, in seconds after boot: a file written 2 s (of guest time)
    # after the others is at least that much later.
    (f_row,) = [l for l in rows if l.endswith(" f")]
    late = int(re.fullmatch(row + r"\n", r.printed("ls -l /tmp/late")).group(4))
    assert late >= int(re.fullmatch(row, f_row).group(4)) + 2, r
    statuses = [c.status for c in r.cmds]
    assert statuses == [0] * 15 + [1, 0, 1, 0, 0, 0], r.cmds


# --- vmstat -----------------------------------------------------------------------------------------
def test_vmstat_names_prefixes_and_bare_values(sh):
    cmds = ["vmstat", "vmstat neg", "vmstat fs.cache", "vmstat vm.frames mem.frames.free", "vmstat -n vm.frames",
            "vmstat vm.frames nosuch", "vmstat nosuch"]
    r = sh("\n".join(cmds) + "\n", status=True)
    (full,) = vmstat_snapshots(r.printed("vmstat"))
    assert list(full)[0] == "vm.faults", r

    def named(line):
        rows = [l.split() for l in lines(r.printed(line))]
        assert all(len(row) == 2 and row[1].isdigit() for row in rows), (line, r)
        return [row[0] for row in rows]

    # A prefix: every counter whose name starts with it, named, in the kernel's order.
    for prefix in ("neg", "fs.cache"):
        want = [n for n in full if n.startswith(prefix)]
        assert len(want) >= 3 and named("vmstat " + prefix) == want, (prefix, r)
        assert r.cmd("vmstat " + prefix).status == 0, r.cmds
    # Exact names, named, in the order asked (vm.frames is also the start of no other).
    assert named("vmstat vm.frames mem.frames.free") == ["vm.frames", "mem.frames.free"], r
    assert re.fullmatch(r"\d+\n", r.printed("vmstat -n vm.frames")), r
    both = r.cmd("vmstat vm.frames nosuch")
    assert both.status == 1 and re.fullmatch(r"vm\.frames \d+\nvmstat: nosuch: no such counter\n", both.out), r
    assert r.printed("vmstat nosuch") == "vmstat: nosuch: no such counter\n" and r.cmd("vmstat nosuch").status == 1, r


# --- jobs -----------------------------------------------------------------------------------------
def ps_rows(out):
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 8 and all(x.isdigit() for x in f[:3]):
            rows.append(dict(pid=int(f[0]), pgid=int(f[2]), name=f[7]))
    return rows


def test_background_job_number_is_what_kill_and_jobs_take(tmp_path):
    # The job's number comes from the guest, so the kill is typed once it has been printed. The
    # sleep lets the pipeline's second child exec cat before ps looks (a loaded run once listed
    # it still as the shell it was forked from).
    first = "sleep 100 | cat &\nsleep 60 &\nsleep 1\njobs\nps\n"

    def kill(out):
        n = re.search(r"^\[(\d+)\]$", out, re.M).group(1)
        return "kill %%%s\nsleep 1\njobs\njobs\nps\nkill %%x\nkill %%9999\n" % n

    log = ROOT / "build" / "test-logs" / "test_unix_tools.jobs.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    rc, out, typed, _ = boot_steps([(None, first), (r"\n\$ ps\n(?:.*\n)*\$ ", kill)], timeout=120, log=log)
    assert rc == 0, out
    cmds = split_commands(out, typed)
    by = lambda line, nth=0: [c for c in cmds if c.line == line][nth].out
    job, other = (int(re.fullmatch(r"\[(\d+)\]\n", by(l)).group(1)) for l in ("sleep 100 | cat &", "sleep 60 &"))
    assert lines(by("jobs")) == ["[%d] Running sleep 100 | cat" % job, "[%d] Running sleep 60" % other], out
    # The number is the job's group: both of its processes are in it, nothing else is.
    rows = ps_rows(by("ps"))
    assert sorted(x["name"] for x in rows if x["pgid"] == job) == ["cat", "sleep"], out
    assert [x["pgid"] for x in rows if x["name"] == "sleep" and x["pgid"] != job] == [other], out
    # kill %N ended the whole job; jobs says so once, then forgets it.
    assert by("kill %%%d" % job) == "", out
    assert lines(by("jobs", 1)) == ["[%d] Done    sleep 100 | cat" % job, "[%d] Running sleep 60" % other], out
    assert lines(by("jobs", 2)) == ["[%d] Running sleep 60" % other], out
    assert [x["name"] for x in ps_rows(by("ps", 1)) if x["pgid"] == job] == [], out
    assert by("kill %x") == "kill: %x: not a process id\n", out
    # A number that is no job (mistyped, or ended) says so, and where the jobs are listed.
    assert by("kill %9999") == "kill: %9999: no such job (jobs lists the shell's jobs)\n", out


def test_toucher_until_killed_and_memhog_usage(sh):
    # -n 0: the toucher runs until killed, past its default 10 rounds (guest time: 0.1 s a
    # round, 3 s of sleep), so jobs still lists it running (test_readme_steps kills it); memhog
    # -h prints its usage like the others, a bad argument prints it on stderr with a failure.
    # The toucher's rounds go on printing meanwhile, anywhere in the transcript: each command's
    # output is read without them.
    r = sh("toucher -m 1 -s 0.1 -n 0 &\nsleep 3\njobs\nmemhog -h\nmemhog\nmemhog x\ntoucher -n -1\n",
           status=True, background=r"touch \d+ \d+ ms, \d+ page-ins\n")
    (n,) = re.findall(r"^\[(\d+)\]$", r.out, re.M)
    assert re.search(r"^touch 11 \d+ ms", r.out, re.M), r
    assert lines(r.printed("jobs")) == ["[%s] Running toucher -m 1 -s 0.1 -n 0" % n], r
    assert "toucher: " not in r.out.replace("toucher: -n takes", ""), r       # no summary: never ended
    text = r.printed("memhog -h")
    assert r.cmd("memhog -h").status == 0 and text.startswith("usage: memhog MB [SEED]") and "-k KB MB" in text, r
    for bad in ("memhog", "memhog x"):
        assert r.cmd(bad).status == 2 and r.printed(bad).startswith("usage: memhog MB [SEED]"), r
    assert r.printed("toucher -n -1") == "toucher: -n takes a number of rounds, 0 for until killed\n", r


# --- line editing -----------------------------------------------------------------------------------
# (bytes typed, the line the shell must run, what that line prints)
EDITS = [
    (b"echo hello\x1b[D\x1b[DXX\r", "echo helXXlo", "helXXlo"),              # left arrow, insert
    (b"cho HI\x01e\x05!\r", "echo HI!", "HI!"),                               # ^A, ^E
    (b"echo keep cut\x1b[D\x1b[D\x1b[D\x0b\r", "echo keep ", "keep"),        # ^K
    (b"echo one two\x17three\r", "echo one three", "one three"),              # ^W
    (b"echo abxc\x1b[D\x1b[D\x1b[3~\r", "echo abc", "abc"),                  # Delete
    (b"cho home\x1b[He\x1b[F!\r", "echo home!", "home!"),                    # Home, End
    (b"cho ss3\x1bOHe\x1bOF\x1b[C!\r", "echo ss3!", "ss3!"),                 # ESC O H / F, right
    (b"echo a\x1b[5~b\x1bOPc\x1b[1;5Dd\r", "echo abdc", "abdc"),             # PageUp, F1 dropped
    (b"echo first\r", "echo first", "first"),
    (b"echo dra\x1b[A\x1b[A\x1b[B\x1b[Bft\r", "echo draft", "draft"),        # history keeps the draft
    (b"\x1b[A\x1b[A\r", "echo first", "first"),                                 # recalled, runs again
]


def test_line_editing_typed_ahead_keeps_the_transcript_exact(disk):
    # Typed while sleep runs: each line is there whole when the shell reads it, so it is edited
    # first and shown after, "$ " + the line that runs + "\n", then its output.
    r = boot(b"sleep 1\n" + b"".join(k for k, _, _ in EDITS) + b"echo end\n", disk=disk)
    assert r.rc == 0, r
    pos = r.out.index("$ sleep 1\n")
    for _, line, printed in EDITS + [(None, "echo end", "end")]:
        i = r.out.find("$ %s\n%s\n$ " % (line, printed), pos)
        assert i >= 0, (line, r)
        pos = i + 1
    assert "not found" not in r.out and "\x1b" not in r.out[r.out.index("$ sleep 1\n"):], r


def test_line_editing_at_the_prompt(disk):
    # Each line sent once the shell waits at its prompt, so the shell edits it key by key in
    # the console's raw mode (erase and ^U too, which the console edits in lines typed ahead).
    at_prompt = [(b"\x1b[A\x1b[B\x1b[Decho start\r", "start")] + [
        (b"echo abcd\x7f\x08Z\r", "abZ"), (b"junk\x15echo U\r", "U"), (b"echo NOTRUN\x03echo RAN\r", "RAN")] + [
        (k, p) for k, _, p in EDITS] + [(b"cat\rabx\x7fc\r\x04", "abc"), (b"echo end\r", "end")]
    steps, prev = [], r"console: ready\n(?:.*\n)*\$ "
    for keys, printed in at_prompt:
        steps.append((prev, keys))
        prev = r"(?:^|\n)%s\n\$ " % re.escape(printed)
    r = boot(b"", disk=disk, wait_for=steps, timeout=90)
    # Each line was sent only once the one before had printed its output and a prompt, so a
    # clean power-off says every line ran as edited; and nothing else ran.
    assert r.rc == 0, r
    out = r.out[r.out.index("console: ready"):]
    assert "not found" not in out and "\nNOTRUN\n" not in out, r
    # ^C at the prompt drops the line typed so far, shows it and prompts again.
    assert "$ echo NOTRUN^C\n$ echo RAN\nRAN\n" in out, r
    # A program reading stdin still gets lines the console edited: cat read "abc", though the
    # bytes came with its command line, in raw mode (cooked once the shell had its line).
    # (The console echoes what cat reads: at once, erase and all, or later, edited.)
    assert re.search(r"\$ cat\n[^\n]*\nabc\n\$ echo end\n", out) and "abx\x7fc" not in out, r


def test_shell_reading_a_pipe_or_script_does_not_edit(sh):
    # Not the console: no raw mode, the bytes are the commands as they are.
    r = sh("echo 'echo piped' | sh\necho 'echo scripted' > /tmp/s\nsh /tmp/s\nsh -c 'echo dashc'\n", status=True)
    assert "piped\n" in r.printed("echo 'echo piped' | sh"), r
    assert r.printed("sh /tmp/s") == "scripted\n" and r.printed("sh -c 'echo dashc'") == "dashc\n", r
    assert all(c.status == 0 for c in r.cmds), r.cmds


def test_help_names_the_new_programs_and_builtins(sh):
    r = sh("help\n", status=True)
    text = r.printed("help")
    assert lines(text)[0] == "builtins: cd [DIR], exit [N], help, jobs", r
    for prog in ("grep", "head", "tail", "pwd", "clear"):
        assert re.search(r"\b%s\b" % prog, text[text.index("programs in /bin"):]), (prog, r)
    assert "kill %N" in text and "up/down" in text, r


def screen(out):
    """The lines a terminal shows for out: backspace steps back a column, a tab goes to the next
    stop of eight, a byte written over another replaces it (what the shell's redraws count on)."""
    rows, row, col = [], [], 0
    for ch in out.replace("\r\n", "\n"):
        if ch == "\n":
            rows.append("".join(row).rstrip())
            row, col = [], 0
        elif ch == "\r":
            col = 0
        elif ch == "\b":
            col = max(col - 1, 0)
        elif ch == "\t":
            col = (col // 8 + 1) * 8
        else:
            row += [" "] * (col + 1 - len(row))
            row[col] = ch
            col += 1
    return rows + ["".join(row).rstrip()]


def test_tab_completes_file_names_and_ctrl_u_redraws(disk):
    # Each step sent once the shell waits at its prompt (or has shown what the last keys did),
    # so the editor has each at its line's start. Readdir gives names in their slots' order, the order made.
    made = ["mkdir /tmp/c", "mkdir /tmp/c/dir", "echo > /tmp/c/alphabet", "echo > /tmp/c/alpine",
            "echo > /tmp/c/beta", "echo > /tmp/c/dir/inner"]
    prompt = r"\n\$ $"
    steps = [(r"console: ready\n(?:.*\n)*\$ ", made[0].encode() + b"\r")] + [(prompt, m.encode() + b"\r") for m in made[1:]]
    keys = [
        (b"echo /tmp/c/b\t\r", "/tmp/c/beta"),            # one match: the name, then a blank
        (b"echo /tmp/c/a\t\r", "/tmp/c/alp"),             # two: what they share
        (b"echo /tmp/c/d\ti\t\r", "/tmp/c/dir/inner"),    # a directory gets "/", the next Tab goes on in it
        (b"echo /tmp/c/nosuch\t\r", "/tmp/c/nosuch"),     # none: nothing changes
    ]
    for k, printed in keys:
        steps.append((prompt, k))
    # Nothing more shared: the names are listed under the line, shown again after a prompt...
    steps.append((prompt, b"echo /tmp/c/alp\t"))
    steps.append((r"\nalphabet alpine\n\$ echo /tmp/c/alp$", b"h\t\r"))
    # ...and ^U then redraws over the whole line, the prompt's own row after a listing too.
    steps.append((prompt, b"echo /tmp/c/\t"))
    steps.append((r"\ndir alphabet alpine beta\n\$ echo /tmp/c/$", b"\x15echo U\r"))
    steps.append((prompt, b"echo end\r"))
    r = boot(b"", disk=disk, wait_for=steps, timeout=90)
    assert r.rc == 0, r
    out = r.out[r.out.index("console: ready"):]
    assert "not found" not in out and "\t" not in out, r
    rows = screen(out)
    # Each line ran as completed: its row on the screen, then what it printed.
    for line, printed in [("echo /tmp/c/beta", "/tmp/c/beta"), ("echo /tmp/c/alp", "/tmp/c/alp"),
                          ("echo /tmp/c/dir/inner", "/tmp/c/dir/inner"), ("echo /tmp/c/nosuch", "/tmp/c/nosuch"),
                          ("echo /tmp/c/alphabet", "/tmp/c/alphabet")]:
        i = rows.index("$ " + line)
        assert rows[i + 1] == printed, (line, rows[i:i + 2])
    assert rows[rows.index("dir alphabet alpine beta") + 1:][:2] == ["$ echo U", "U"], rows
