"""The kernel's gdb commands, loaded by `make gdb` (tools/gdb/rungdb.py sources this file).

Each command is one module, cmd_NAME.py, written in gdb's Python API; `help NAME` prints its
documentation. They read the kernel's memory while the machine is stopped (kmem.py, kstate.py)
and change nothing in it. docs/gdb.md walks through them.
"""
import os
import sys

import gdb

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

COMMANDS = ["frames", "lru", "ps", "seg", "cowlists", "negs", "counters", "usym"]

for _name in COMMANDS:
    __import__("cmd_" + _name)
import functions  # noqa: E402,F401  ($seg_pid, $cor_slave)

gdb.write("Kernel commands: %s negbreak pt; functions $seg_pid $cor_slave (help NAME; docs/gdb.md)\n"
          % " ".join(COMMANDS))
