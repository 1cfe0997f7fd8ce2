"""Writes compile_commands.json for editors: one entry per C and assembly source."""
import glob, json, os, sys

kcmd, ucmd, hcmd = sys.argv[1:4]
root = os.getcwd()
entries = []
def add(pattern, cmd):
    for f in sorted(glob.glob(pattern)):
        entries.append({"directory": root, "file": f, "command": "%s -c %s" % (cmd, f)})
for d in ("kernel", "kernel/mem", "drivers", "fs", "vm", "scaffold"):
    add(d + "/*.c", kcmd)
    add(d + "/*.S", kcmd)
add("user/*.c", ucmd)
add("user/lib/*.c", ucmd)
add("mkfs/*.c", hcmd)
add("tests/host/*.c", hcmd)
json.dump(entries, sys.stdout, indent=1)
print()
