"""Reading the kernel's memory from gdb, quickly and by the kernel's own debug information.

A command that walks the core map of a 64 MB machine looks at 16,384 frames. Asking gdb for
each field as a gdb.Value costs a round trip to QEMU's gdb stub per field, seconds per
command; so structures are read as raw bytes, a whole array at once, and cut into fields at
the offsets the kernel's DWARF gives (Layout). Nothing here knows an offset by heart: a field
added to struct frame moves with the kernel. What DWARF cannot give (#define'd flag bits) is
in kconst.py.

Static variables are named with their file, as gdb does ('fs/cache.c'::lru): several files
have a static of the same name (pools in kernel/mem/negotiate.c and kernel/mem/refault.c).
"""
import keyword
import re
import struct

import gdb

_SCALAR = (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_PTR,
           gdb.TYPE_CODE_CHAR)


def read(addr, n):
    """n bytes of kernel (or current user) memory at addr."""
    if n <= 0:
        return b""
    try:
        return bytes(gdb.selected_inferior().read_memory(addr, n))
    except gdb.MemoryError:
        raise gdb.GdbError("cannot read %d bytes at 0x%x: not mapped in the current page directory "
                           "(or the kernel has not turned paging on yet: continue first)" % (n, addr))


def u32(addr):
    return struct.unpack("<I", read(addr, 4))[0]


def u32s(addr, n):
    return struct.unpack("<%dI" % n, read(addr, 4 * n))


def cstring(addr, limit=64):
    """The NUL-terminated string at addr (at most limit bytes), or '' for a null pointer."""
    if not addr:
        return ""
    data = read(addr, limit)
    return data.split(b"\0", 1)[0].decode("latin-1")


def symbol(name, file=None):
    """The gdb.Symbol of a global, or of file's static variable or function."""
    if file is None:
        s = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    else:
        s = next((x for x in gdb.lookup_static_symbols(name)
                  if x.symtab and x.symtab.filename.endswith(file)), None)
        if s is None:
            s = gdb.lookup_global_symbol(name)
    if s is None:
        where = " in %s" % file if file else ""
        raise gdb.GdbError("the kernel has no symbol %s%s (is build/kernel.elf or build/debug/kernel.elf "
                           "loaded? make gdb loads it)" % (name, where))
    return s


def value(name, file=None):
    """A variable's gdb.Value."""
    return symbol(name, file).value()


def addr(name, file=None):
    """The address of a variable."""
    return int(symbol(name, file).value().address)


def var_u32(name, file=None):
    return u32(addr(name, file))


def enum_values(typename):
    """{enumerator name: value} of an enum type of the kernel, e.g. 'enum frame_pool'."""
    t = gdb.lookup_type(typename).strip_typedefs()
    return {f.name: f.enumval for f in t.fields()}


class Rec:
    """One structure read from memory: its fields as attributes, and where it was."""
    def __init__(self, address):
        self._addr = address

    def __repr__(self):
        return "Rec(%s)" % ", ".join("%s=%r" % kv for kv in vars(self).items())


class Layout:
    """Where each field of a struct lies, from the kernel's debug information; cuts raw bytes
    into Rec objects. Scalars (integers, enums, booleans, pointers) become ints, arrays of char
    strings, other arrays tuples, nested structs Recs; unions are left out."""
    _cache = {}

    def __new__(cls, typename):
        key = typename if isinstance(typename, str) else \
            (str(typename), tuple(f.name for f in typename.strip_typedefs().fields()))   # anonymous ones
        if key not in cls._cache:
            self = super().__new__(cls)
            self._build(typename)
            cls._cache[key] = self
        return cls._cache[key]

    def _build(self, typename):
        try:
            t = gdb.lookup_type(typename).strip_typedefs() if isinstance(typename, str) else typename
        except gdb.error:
            raise gdb.GdbError("the kernel's debug information has no %s" % typename)
        self.size = t.sizeof
        self.fields = []
        self.offsets = {}
        for f in t.fields():
            if f.bitsize or not f.name:
                continue
            off = f.bitpos // 8
            self.offsets[f.name] = off
            ft = f.type.strip_typedefs()
            if ft.sizeof == 0:
                continue                # a flexible array member: only its offset is known
            name = f.name + "_" if keyword.iskeyword(f.name) else f.name     # struct proc's as
            if ft.code in _SCALAR:
                self.fields.append((name, off, _fmt(ft), None, 0))
            elif ft.code == gdb.TYPE_CODE_ARRAY:
                et = ft.target().strip_typedefs()
                n = ft.sizeof // max(et.sizeof, 1)
                if et.code == gdb.TYPE_CODE_CHAR or (et.code == gdb.TYPE_CODE_INT and et.sizeof == 1
                                                     and "char" in str(et)):
                    self.fields.append((name, off, "%ds" % n, None, -1))
                elif et.code in _SCALAR:
                    self.fields.append((name, off, "<%d%s" % (n, _fmt(et)[1:]), None, n))
                elif et.code == gdb.TYPE_CODE_STRUCT:
                    self.fields.append((name, off, None, Layout(et), n))
            elif ft.code == gdb.TYPE_CODE_STRUCT:
                self.fields.append((name, off, None, Layout(ft), 0))

    def offset(self, field):
        if field not in self.offsets:
            raise gdb.GdbError("no field %s in the kernel's structure" % field)
        return self.offsets[field]

    def unpack(self, buf, base=0, address=0):
        r = Rec(address + base)
        for name, off, fmt, sub, n in self.fields:
            if sub is not None:
                if n:
                    setattr(r, name, tuple(sub.unpack(buf, base + off + i * sub.size, address)
                                           for i in range(n)))
                else:
                    setattr(r, name, sub.unpack(buf, base + off, address))
            elif n == -1:
                setattr(r, name, struct.unpack_from(fmt, buf, base + off)[0].split(b"\0", 1)[0]
                        .decode("latin-1"))
            elif n:
                setattr(r, name, struct.unpack_from(fmt, buf, base + off))
            else:
                setattr(r, name, struct.unpack_from(fmt, buf, base + off)[0])
        return r

    def read(self, address):
        """The structure at address."""
        return self.unpack(read(address, self.size), 0, address)

    def read_array(self, address, n):
        """n structures one after the other from address, read at once."""
        buf = read(address, self.size * n)
        return [self.unpack(buf, i * self.size, address) for i in range(n)]


def _fmt(t):
    size = t.sizeof
    signed = t.code == gdb.TYPE_CODE_INT and getattr(t, "is_signed", not str(t).startswith("unsigned"))
    code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
    return "<" + (code if signed else code.upper())


def now_ms():
    """The kernel's clock: ms since boot (kernel/time.c), the one both pools stamp."""
    return var_u32("ticks", "kernel/time.c")


def describe_address(a):
    """What gdb knows about an address: 'ready_waiters', 'lru+16', or ''."""
    try:
        out = gdb.execute("info symbol 0x%x" % a, to_string=True).strip()
    except gdb.error:
        return ""
    m = re.match(r"(\S+)(?: \+ (\d+))? in section", out)
    if not m:
        return ""
    return m.group(1) + ("+%s" % m.group(2) if m.group(2) else "")


def function_at(pc):
    """'name (file:line)' for a code address, or '0x...' when gdb knows nothing of it."""
    try:
        sal = gdb.find_pc_line(pc)
        block = gdb.block_for_pc(pc)
    except RuntimeError:
        block, sal = None, None
    fn = block.function if block else None
    while block and not fn:
        block = block.superblock
        fn = block.function if block else None
    name = fn.name if fn else describe_address(pc) or "0x%x" % pc
    if sal and sal.symtab:
        return "%s (%s:%d)" % (name, sal.symtab.filename, sal.line)
    return name


def table(headers, rows, right=None):
    """Rows as aligned columns under headers; numbers (and columns named in right) to the right."""
    rows = [[str(c) for c in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in rows:
        for i, c in enumerate(r):
            if i < len(widths):
                widths[i] = max(widths[i], len(c))
    right = set(right or ())
    numeric = [i in right or (bool(rows) and all(_numberish(r[i]) for r in rows if i < len(r)))
               for i in range(len(headers))]

    def line(cells):
        out = []
        for i, c in enumerate(cells):
            last = i == len(cells) - 1
            if numeric[i]:
                out.append(c.rjust(widths[i]))
            else:
                out.append(c if last else c.ljust(widths[i]))
        return "  ".join(out).rstrip()

    return "\n".join([line(headers)] + [line(r) for r in rows]) + "\n"


def _numberish(s):
    return bool(re.fullmatch(r"-?[0-9][0-9.,]*|-|0x[0-9a-f]+", s))


def parse_int(text, what):
    """An integer argument: a number (0x for hex) or any gdb expression ($upid, s - segtab,
    current->pid); a one-line error otherwise."""
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return int(gdb.parse_and_eval(text))
    except gdb.error as e:
        raise gdb.GdbError("%s: %r is neither a number nor an expression gdb can evaluate (%s)" % (what, text, e))
