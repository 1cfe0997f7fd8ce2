"""The README's first ten minutes, as written: its experiment block, read from README.md (not
copied here, so an edit there is what runs), typed into a 16 MB guest one line at a time, each
once the guest has answered the line before, as a newcomer would type it. What each step
prints is checked, never the console's echo of a typed line:

- the toucher runs until killed (-n 0): its lines still arrive after sort, and `kill %N`
  (N the job number the guest printed) finds it, printing nothing;
- `negtrace -s` says how many negotiations it sums out of all since boot or neg.reset, and
  its last line, vmstat neg's counters, shows the cache asking the VM: with no penalty the VM
  gave it the sleeping toucher's pages, and the toucher's next touch paged them back in;
  with 120 s the VM keeps them.

The sizes are the README's own (a 6 MB file, a 12 MB toucher, 16 MB of memory): under TCG the
whole block runs in well under a minute."""
import re

from conftest import ROOT

import sys
sys.path.insert(0, str(ROOT / "tools" / "bench"))
from benchlib import boot_steps  # noqa: E402

PROMPT = r"\n\$ "
# A toucher line: at a line's start, or after a prompt the shell printed just before it.
TOUCH = r"(?:^|^\$ )touch \d+ \d+ ms, (\d+) page-ins$"


def readme_block():
    """The guest's lines of the README's experiment: the first sh block under "Your first ten
    minutes", without the host's `make` line, comment lines and the comments after commands."""
    text = (ROOT / "README.md").read_text()
    part = text.split("## Your first ten minutes", 1)[1]
    block = part.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [l.split("#", 1)[0].strip() for l in block.splitlines()]
    return [l for l in lines if l and not l.startswith("make ")]


def last_job(out):
    return re.findall(r"^\[(\d+)\]$", out, re.M)[-1]


def steps_for(lines):
    """(regex, text) steps: each line typed once the one before has answered: a background
    job once it has printed [N], sort once its prompt and then the toucher's next line have
    come (the README: "then wait for its next line"), the others at the next prompt. kill %N
    is typed with the N the guest printed last."""
    steps, wait = [], r"console: ready\n(?:.*\n)*\$ "
    for line in lines:
        text = (lambda out, l=line: l.replace("%N", "%" + last_job(out)) + "\n") if "%N" in line else line + "\n"
        steps.append((wait, text))
        if line.endswith("&"):
            wait = r"(?m)^\[\d+\]\n\$ "
        elif line.startswith("sort "):
            # (or the toucher's summary: it ended, and the checks below say so at once)
            wait = lambda text: re.search(PROMPT + r"(?:.*\n)*?touch \d+ [^\n]*\n", text) or "toucher: " in text
        else:
            wait = PROMPT
    return steps


def outputs(out, typed):
    """(line, what it printed) of each typed line, in order: from its echo (at a line's start,
    or after a prompt) to the next prompt. conftest's split_commands wants "$ LINE" and the
    toucher's lines come between a prompt and the echo after it ("$ touch 1 ...\nnegtrace -s")."""
    res, pos = [], 0
    for line in typed:
        m = re.compile(r"(?m)^(?:\$ )?%s\n" % re.escape(line)).search(out, pos)
        assert m, (line, out[pos:])
        end = out.find("\n$ ", m.end() - 1)
        res.append((line, out[m.end():end + 1] if end >= 0 else out[m.end():]))
        pos = m.end()
    return res


def summary(out):
    """negtrace -s's counts line and its vmstat neg line, as numbers."""
    num = lambda s: int(s.replace(",", ""))
    m = re.search(r"^negtrace: the last ([\d,]+) of ([\d,]+) negotiations since boot or neg\.reset$", out, re.M)
    t = re.search(r"^negtrace: since boot or neg\.reset \(vmstat neg\): fs asked ([\d,]+), vm gave ([\d,]+); "
                  r"vm asked ([\d,]+), fs gave ([\d,]+); kernel refilled ([\d,]+)$", out, re.M)
    assert m and t, out
    return dict(read=num(m.group(1)), total=num(m.group(2)), fs_asked=num(t.group(1)), vm_gave=num(t.group(2)))


def test_the_readme_experiment_runs_as_written():
    lines = readme_block()
    # The block is the experiment: two rounds of toucher, sort, negtrace -s and kill, the second
    # after the penalty and a reset.
    assert [l.split()[0] for l in lines].count("toucher") == 2 and "sysctl vm.penalty=0" in lines, lines
    assert any("vm.penalty=120" in l and "neg.reset=1" in l for l in lines), lines
    assert all("-n 0" in l for l in lines if l.startswith("toucher")), lines
    log = ROOT / "build" / "test-logs" / "test_readme_steps.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    rc, out, typed, _ = boot_steps(steps_for(lines), mem=16, timeout=600, log=log)
    assert rc == 0, "console in %s, exit status %d" % (log.relative_to(ROOT), rc)
    said = outputs(out, typed)
    kills = [(l, o) for l, o in said if l.startswith("kill %")]
    negs = [o for l, o in said if l == "negtrace -s"]
    assert len(kills) == len(negs) == 2 and len([l for l, _ in said if l.startswith("sort ")]) == 2, said
    rounds = out.split("\nsysctl vm.penalty=120")
    for (kill, printed), text in zip(kills, rounds):
        # The toucher's lines still arrive after sort (its next touch, waited for before
        # negtrace): it was running when kill %N was typed, and kill found its job, silently.
        after_sort = text[text.index("sort -o"):text.index(kill + "\n")]
        assert re.search(TOUCH, after_sort, re.M), after_sort
        assert re.fullmatch(r"(touch [^\n]*\n)*", printed), (kill, printed)
    assert "no such job" not in out and "toucher: " not in out, out
    # negtrace -s: how many of how many, then the whole run's counters.
    first, second = (summary(n) for n in negs)
    for s in (first, second):
        assert s["read"] == min(s["total"], 256) and s["total"] > 0, s
    # No penalty: sort's cache misses asked the VM, which gave it the sleeping toucher's pages,
    # and the toucher's next touch had to page them back in.
    assert first["fs_asked"] > 0 and first["vm_gave"] > 100, first
    first_round = rounds[0]
    touches = re.findall(TOUCH, first_round[first_round.index("sort -o"):first_round.index(kills[0][0] + "\n")], re.M)
    assert int(touches[-1]) > 100, touches
    # 120 s, counted from neg.reset: the cache asked again, and the VM kept the toucher's pages.
    assert second["fs_asked"] > 0 and second["vm_gave"] < first["vm_gave"] // 4, (first, second)
