"""negs [N] and negbreak [fs|vm|off]: the negotiations between the file cache and the VM
(kernel/mem/negotiate.c): the last ones from the kernel's trace ring, and a breakpoint on the next.

negbreak stops in neg_decide (kernel/mem/negotiate_rule.c), the pure function every negotiation goes
through: its arguments are both pools' offers and the penalty, so the decision can be stepped
through with next/step and its verdict seen with finish. The pages behind the offers are found
the way the pools find them (cache_offer, vm_offer: kstate.py) and checked against the times
the offers carry.
"""
import gdb

import kconst as K
from cmd_counters import read_counters
from cmd_frames import vm_owner
from fsnames import Names
from kmem import Layout, addr, enum_values, parse_int, table, var_u32
from kstate import State

MODES = {0: "fixed", 1: "stepped", 2: "adaptive"}
WHO = {K.NEGT_FS: "fs", K.NEGT_VM: "vm", K.NEGT_KERNEL: "kernel", K.NEGT_NOBODY: "none", K.NEGT_BUSY: "busy"}


def records(n):
    """The last n negotiation records (struct negrecord), oldest first, as sys_negtrace copies
    them."""
    seq = var_u32("trace_seq", "kernel/mem/negotiate.c")
    n = min(seq, n, K.NEGTRACE_MAX)
    lay = Layout("struct negrecord")
    ring = lay.read_array(addr("trace", "kernel/mem/negotiate.c"), K.NEGTRACE_MAX)
    return [ring[(seq - n + i) % K.NEGTRACE_MAX] for i in range(n)]


def age_ms(now, t, refused, free=False, unasked=False):
    """As negtrace prints it: refuse, free (a free block or page has no age), ms, or <=ms for a
    pool not asked (t is then its bound: none of its pages was last used before)."""
    return ("refuse" if refused else "free" if free else
            ("<=" if unasked else "") + str((now - t) & 0xFFFFFFFF))


def decide(asker_vm, own, other, penalty_ms):
    """neg_decide (kernel/mem/negotiate_rule.c) repeated: 'own', 'other', 'none' or 'busy'. own and
    other are (refuse, lastref_ms[, busy])."""
    give = "busy" if len(other) > 2 and other[2] else "other"
    if other[0]:
        return "none" if own[0] else "own"
    if own[0]:
        return give
    own_t, other_t = own[1], other[1]
    if asker_vm:
        own_t = min(own_t + penalty_ms, 0xFFFFFFFF)
    else:
        other_t = min(other_t + penalty_ms, 0xFFFFFFFF)
    return give if other_t < own_t else "own"


class Negs(gdb.Command):
    """negs [N]: the last N negotiations (20; 0: all 256 the kernel keeps), oldest first, and the counters.

As the negtrace program prints them, from the kernel's trace ring (kernel/mem/negotiate.c): SEQ, TIME
(ms since boot), ASKER (fs: a cache miss; vm: a page fault; kernel: refilling its reserve of
free frames), FS_AGE and VM_AGE (ms since the page each pool offered was last used, or refuse;
<=ms for a pool not asked: none of its pages was idle longer, and even such a page would have
stayed),
PENALTY (s added to the VM's time), VM_BIASED (the VM's age as compared: its age less the
penalty; the older page goes), GAVE (whose frame the asker got: its own pool's means it
recycled its own oldest page; none: it waits; busy: the pool that should give had only dirty
pages, has them written, and the asker waits for one), CACHE, VM, FREE (the frames each pool held when
the penalty was computed: a stepped penalty is vm.penalty per whole tenth of their sum the
cache holds), and the evidence an adaptive penalty (vm.penalty_mode=adaptive: PENALTY is then the
bias the VM learned, kernel/mem/refault.c) stood on: REFAULTS (the VM's early refaults since
neg.reset), SAVED (its pages the bias kept that were used again), EVIDENCE (ms since the last
of them, or -). Then the neg.* and refault.* counters and vm.penalty."""

    def __init__(self):
        super().__init__("negs", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = [arg.strip()] if arg.strip() else []
        n = parse_int(args[0], "negs") if args else 20
        rows = []
        for r in records(n if n > 0 else K.NEGTRACE_MAX):
            fs_ref, vm_ref = r.flags & K.NEGT_FS_REFUSED, r.flags & K.NEGT_VM_REFUSED
            vm_unasked = bool(r.flags & K.NEGT_VM_UNASKED)
            vm_age = (r.time_ms - r.vm_lastref_ms) & 0xFFFFFFFF
            biased = "refuse" if vm_ref else ("<=" if vm_unasked else "") + str(vm_age - r.penalty_ms)
            rows.append([r.seq, r.time_ms, WHO.get(r.asker, "?"),
                         age_ms(r.time_ms, r.fs_lastref_ms, fs_ref, r.flags & K.NEGT_FS_FREE,
                                r.flags & K.NEGT_FS_UNASKED),
                         age_ms(r.time_ms, r.vm_lastref_ms, vm_ref, r.flags & K.NEGT_VM_FREE, vm_unasked),
                         r.penalty_ms // 1000, biased,
                         WHO.get(r.gave, "?"), r.cache_frames, r.vm_frames, r.free_frames,
                         r.vm_early, r.vm_saved,
                         str((r.time_ms - r.evidence_ms) & 0xFFFFFFFF) if r.evidence_ms else "-"])
        if rows:
            gdb.write(table(["SEQ", "TIME", "ASKER", "FS_AGE", "VM_AGE", "PENALTY", "VM_BIASED", "GAVE", "CACHE",
                             "VM", "FREE", "REFAULTS", "SAVED", "EVIDENCE"], rows,
                            right=["FS_AGE", "VM_AGE", "VM_BIASED", "CACHE", "VM", "FREE", "REFAULTS", "SAVED",
                                   "EVIDENCE"]))
        else:
            gdb.write("no negotiation yet (since boot or neg.reset): free frames were enough\n")
        counters = [(name, v) for name, v, _ in read_counters() if name.startswith(("neg.", "refault."))]
        gdb.write(" ".join("%s=%s" % c for c in counters) + "\n")
        mode = MODES.get(var_u32("penalty_mode", "kernel/mem/negotiate.c"), "?")
        if mode == "adaptive":
            gdb.write("vm.penalty_mode=adaptive: the penalty is the bias the VM learned from its refaults "
                      "(refault.vm.bias_ms; vm.penalty=%d s is not used)\n" % var_u32("penalty_s", "kernel/mem/negotiate.c"))
        else:
            gdb.write("vm.penalty=%d s (%s)\n" % (var_u32("penalty_s", "kernel/mem/negotiate.c"), mode))


# --- negbreak ---------------------------------------------------------------------------------

def offer(v):
    return bool(v["refuse"]), int(v["lastref_ms"]), bool(v["busy"])


def describe_cache(st, names, giving, off):
    kind, b = st.cache_candidate(giving)
    if off[0]:
        return "refuses (%s)" % ("at its floor, fs.cache_min_kb, or a fixed size" if giving
                                 else "it must grow: under its floor or fixed size")
    if kind == "free":
        what = "a block on its free list (no identity: older than anything)"
    elif kind == "block":
        f, blk = names.block(b)
        what = "%s block %s%s" % (f, blk, ", dirty: the cleaners must write it first" + (" (busy)" if off[2] else "")
                                  if b.flags & K.CB_DIRTY else "")
        if b.lastref != off[1]:
            what += " [its time %d differs from the offer's: the cache changed since]" % b.lastref
    else:
        what = "? (no block found that could go)"
    return "%s, last used %s" % (what, ago(st, off[1]))


def describe_vm(st, giving, off):
    if off[0]:
        return "refuses (%s)" % ("at its floor, 1/16 of memory" if giving else "no page of its own can go now")
    v = st.next_victim()
    if v is None or v < 0:
        what = "? (its next victim is not found here)"
    else:
        what = "frame %d, %s" % (v, vm_owner(st, v))
        if st.frames[v].lastref != off[1]:
            what += " [its time %d differs from the offer's]" % st.frames[v].lastref
    return "%s, last referenced %s" % (what, ago(st, off[1]))


def describe_unasked(st, off):
    return "not asked: none of its pages was last used before t=%d ms (%.3f s ago)" % (
        off[1], ((st.now - off[1]) & 0xFFFFFFFF) / 1000.0)


def ago(st, t):
    return "%.3f s ago (t=%d ms)" % (((st.now - t) & 0xFFFFFFFF) / 1000.0, t)


class NegBreakpoint(gdb.Breakpoint):
    """Stops in neg_decide when the filter allows; remembers what it saw for the stop event."""
    def __init__(self, which):
        super().__init__("neg_decide", internal=False)
        self.which = which
        self.seen = None
        self.last_hit = None

    def stop(self):
        frame = gdb.selected_frame()
        # The same call reported twice: when gdb steps over this breakpoint to go on, an
        # interrupt taken before neg_decide's first instruction returns to that instruction,
        # and the breakpoint is hit again by a call it has already judged. A call is the
        # negotiation (trace_seq), the stack it runs on and where it returns to.
        caller = frame.older()
        hit = (var_u32("trace_seq", "kernel/mem/negotiate.c"), int(frame.read_register("esp")),
               caller.pc() if caller is not None else None)
        if hit == self.last_hit:
            return False
        self.last_hit = hit
        asker_vm = int(frame.read_var("asker")) == enum_values("enum neg_pool")["NEG_VM"]
        own, other = offer(frame.read_var("own")), offer(frame.read_var("other"))
        pen = int(frame.read_var("penalty_ms"))
        # neg_keeps_own asks about the oldest page the other pool could have, its bound: not
        # an offer (kernel/mem/negotiate_rule.c); kernel/arbiters.c or negotiate.c's decide may
        # stand between the negotiation and the rule
        unasked = caller is not None and caller.name() == "neg_keeps_own"
        while caller is not None and caller.name() in ("arbitrate", "decide", "neg_keeps_own"):
            caller = caller.older()
        kernel = caller is not None and caller.name() == "refill_one"
        verdict = decide(asker_vm, own, other, pen)
        if unasked and verdict != "own":
            return False                # the other is asked next, and neg_decide stops again
        takes = verdict == "other" and not kernel
        if self.which == "fs" and (asker_vm or not takes):
            return False
        if self.which == "vm" and (not asker_vm or not takes):
            return False
        if self.which == "fs-asks" and (asker_vm or kernel):
            return False
        if self.which == "vm-asks" and not asker_vm:
            return False
        self.seen = (asker_vm, kernel, own, other, pen, verdict, unasked)
        return True


_bp = None


def on_stop(event):
    if _bp is None or not isinstance(event, gdb.BreakpointEvent) or _bp not in event.breakpoints:
        return
    if not _bp.seen:
        return
    asker_vm, kernel, own, other, pen, verdict, unasked = _bp.seen
    st = State()
    names = Names(st)
    cur = st.current()
    who = "pid %d %s" % (cur.pid, cur.name) if cur else "no process"
    fs_off, vm_off = (other, own) if asker_vm else (own, other)
    if kernel:
        title = "the kernel refills its reserve of free frames (asked as the cache, giving on both sides)"
        cache_giving = vm_giving = True
    elif asker_vm:
        title = "the VM asks: a page fault in %s needs a frame and none is free" % who
        cache_giving, vm_giving = True, False
    else:
        title = "the file cache asks: a cache miss in %s needs a frame and none is free" % who
        cache_giving, vm_giving = False, True
    seq = var_u32("trace_seq", "kernel/mem/negotiate.c") + 1
    out = ["negotiation %d: %s" % (seq, title),
           "  cache offers: %s" % (describe_unasked(st, fs_off) if unasked and asker_vm else
                                   describe_cache(st, names, cache_giving, fs_off)),
           "  VM offers:    %s" % (describe_unasked(st, vm_off) if unasked and not asker_vm else
                                   describe_vm(st, vm_giving, vm_off)),
           "  penalty: %d ms added to the VM's time (%s)" % (
               pen, "the bias learned from the VM's refaults, vm.penalty_mode=adaptive"
               if MODES.get(var_u32("penalty_mode", "kernel/mem/negotiate.c")) == "adaptive" else
               "vm.penalty=%d s, %s" % (var_u32("penalty_s", "kernel/mem/negotiate.c"),
                                       MODES.get(var_u32("penalty_mode", "kernel/mem/negotiate.c"), "?")))]
    if unasked:
        out.append("  compared: the asker's page with the oldest the %s could have: even that one "
                   "would stay, so it is not asked" % ("cache" if asker_vm else "VM"))
    elif not fs_off[0] and not vm_off[0]:
        vm_biased = min(vm_off[1] + pen, 0xFFFFFFFF)
        out.append("  compared: the cache's page last used at %d ms, the VM's at %d ms + penalty = %d ms: "
                   "the %s page is older" % (fs_off[1], vm_off[1], vm_biased,
                                             "VM's" if vm_biased < fs_off[1] else
                                             "cache's" if fs_off[1] < vm_biased else "(tie) asker's own"))
    asker = "VM" if asker_vm else "cache"
    verdicts = {"own": "NEG_OWN: the %s recycles its own oldest page" % asker,
                "other": "NEG_OTHER: the %s surrenders its page to the %s" % (
                    "cache" if asker_vm else "VM", asker),
                "none": "NEG_NONE: neither may give; the asker waits",
                "busy": "NEG_BUSY: the %s's page should go but is dirty: it has it written, and "
                        "the %s waits for a clean one before recycling its own" % ("cache" if asker_vm else "VM", asker)}
    out.append("  neg_decide will return %s" % verdicts[verdict])
    out.append("  (next/step go through the decision; finish shows its verdict; negs shows the trace)")
    gdb.write("\n".join(out) + "\n")


gdb.events.stop.connect(on_stop)


class NegBreak(gdb.Command):
    """negbreak [fs|vm|fs-asks|vm-asks|off]: stop at the next negotiation between the cache and the VM.

The breakpoint is in neg_decide (kernel/mem/negotiate_rule.c), called when a pool needs a frame and
none is free (and when the kernel refills its reserve). At each stop it shows who asked, both
offers -- the cache's block (file, block) and the VM's page (process, segment, page) with how
long ago each was last used -- the penalty added to the VM's time, which page is older once
biased, and the verdict neg_decide will return. A pool "not asked": neg_keeps_own found that
even the oldest page it could have (its bound) would stay, so the asker keeps its own. fs:
stop only when the file system takes a VM page; vm: only when the VM takes a cache page;
fs-asks, vm-asks: whenever that pool asks, whatever the verdict; off: remove it. One negbreak
at a time (a new one replaces the old); it is an ordinary breakpoint otherwise (info
breakpoints, delete)."""

    def __init__(self):
        super().__init__("negbreak", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        global _bp
        args = gdb.string_to_argv(arg)
        if len(args) > 1 or (args and args[0] not in ("fs", "vm", "fs-asks", "vm-asks", "off")):
            raise gdb.GdbError("usage: negbreak [fs|vm|fs-asks|vm-asks|off]")
        if _bp is not None and _bp.is_valid():
            _bp.delete()
        _bp = None
        which = args[0] if args else "all"
        if which == "off":
            gdb.write("negbreak: off\n")
            return
        _bp = NegBreakpoint(which)
        gdb.write("negbreak: breakpoint %d in neg_decide, stopping at %s\n" % (_bp.number, {
            "all": "every negotiation", "fs": "the next one in which the file system takes a VM page",
            "vm": "the next one in which the VM takes a cache page",
            "fs-asks": "the next one the file cache asks for", "vm-asks": "the next one the VM asks for"}[which]))


Negs()
NegBreak()
