"""Commands only the tests' gdb sessions have (tests/qemu/gdbsession.py sources this file).

harness-continue: `continue`, and again when the target stopped with SIGINT. No test asks for
an interrupt (gdb runs in batch mode, nobody types ^C), yet in a fresh-clone run beside a CPU
hog (run19) QEMU reported two sessions' targets stopped by SIGINT ten seconds into a long
continue, cutting memhog short; neither a signal to gdb nor one to QEMU makes that stop (the
first is ignored, the second ends QEMU), a paused VM does (QEMU's "stop"), which is what the
test of it in tests/qemu/test_gdb.py plants. So a step that says `continue` goes on through
such a stop, saying so, and stops where gdb would otherwise: at a breakpoint, a fault, the end."""
import gdb

SPURIOUS_TRIES = 10


class HarnessContinue(gdb.Command):
    """continue, through stops by SIGINT that no step asked for."""

    def __init__(self):
        super().__init__("harness-continue", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        for _ in range(SPURIOUS_TRIES):
            seen = []
            gdb.events.stop.connect(seen.append)
            try:
                gdb.execute("continue")
            except gdb.error as e:
                print(e)                # "Remote connection closed", as a plain continue says it
                return
            finally:
                gdb.events.stop.disconnect(seen.append)
            last = seen[-1] if seen else None
            if not (isinstance(last, gdb.SignalEvent) and not isinstance(last, gdb.BreakpointEvent)
                    and last.stop_signal == "SIGINT"):
                return
            print("harness: the target stopped with SIGINT, which no step asked for: continuing")


HarnessContinue()
