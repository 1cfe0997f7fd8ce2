"""The kernel's #define'd constants the gdb commands decode with.

The kernel is built with -g, whose debug information has types and enums but no macros, so
flag bits are repeated here, each with the header that defines it. tests/host/test_gdb_constants.py
reads every header named below and fails when a value here differs from the #define there.
"""

# (header, name, value): the test's source of truth; the module's names come from it.
DEFINES = [
    ("kernel/memlayout.h", "PGSIZE", 4096),
    ("kernel/memlayout.h", "PGSHIFT", 12),
    ("kernel/memlayout.h", "PTSPAN", 0x400000),
    ("kernel/memlayout.h", "KERNBASE", 0xC0000000),
    ("kernel/memlayout.h", "PTE_P", 0x001),
    ("kernel/memlayout.h", "PTE_W", 0x002),
    ("kernel/memlayout.h", "PTE_U", 0x004),
    ("kernel/memlayout.h", "PTE_A", 0x020),
    ("kernel/memlayout.h", "PTE_D", 0x040),
    ("vm/vm.h", "PTE_ONDISK", 0x200),
    ("vm/vm.h", "PTE_INTRANS", 0x400),
    ("vm/vm.h", "PTE_COW", 0x800),
    ("vm/vm.h", "PTE_COR", 0x100),
    ("vm/vm.h", "VMF_DIRTY", 0x1),
    ("vm/vm.h", "VMF_BACKED", 0x2),
    ("vm/vm.h", "VMF_LAUNDRY", 0x4),
    ("vm/vm.h", "VMF_READY", 0x8),
    ("vm/vm.h", "SEG_MAXPT", 512),
    ("kernel/mem/coremap.h", "FRAME_BUSY", 0x1),
    ("kernel/mem/coremap.h", "FRAME_WANTED", 0x2),
    ("fs/cache.h", "CACHE_DEV", 0),
    ("fs/cache.h", "CB_VALID", 0x01),
    ("fs/cache.h", "CB_DIRTY", 0x02),
    ("fs/cache.h", "CB_SCHED", 0x04),
    ("fs/cache.h", "CB_RECYCLE", 0x08),
    ("fs/layout.h", "FS_BSIZE", 4096),
    ("fs/layout.h", "FS_ROOT_DESC", 1),
    ("fs/layout.h", "FS_T_DIR", 2),
    ("fs/layout.h", "FS_DIRENT_SIZE", 32),
    ("kernel/uapi/negtrace.h", "NEGTRACE_MAX", 256),
    ("kernel/uapi/negtrace.h", "NEGT_FS_REFUSED", 0x1),
    ("kernel/uapi/negtrace.h", "NEGT_VM_REFUSED", 0x2),
    ("kernel/uapi/negtrace.h", "NEGT_FS_FREE", 0x4),
    ("kernel/uapi/negtrace.h", "NEGT_VM_FREE", 0x8),
    ("kernel/uapi/negtrace.h", "NEGT_FS_BUSY", 0x10),
    ("kernel/uapi/negtrace.h", "NEGT_VM_BUSY", 0x20),
    ("kernel/uapi/negtrace.h", "NEGT_VM_UNASKED", 0x40),
    ("kernel/uapi/negtrace.h", "NEGT_FS_UNASKED", 0x80),
    ("kernel/proc.h", "NPROC", 64),
    ("fs/dirtybound.c", "MIN_LIMIT", 32),
    ("fs/dirtybound.c", "SLACK", 16),
    ("kernel/mem/negotiate_rule.h", "NEG_GRACE_MS", 10000),
]

# enum members that are not named by any type gdb can look up (anonymous enums).
ENUMS = [
    ("kernel/uapi/negtrace.h", "NEGT_FS", 0),
    ("kernel/uapi/negtrace.h", "NEGT_VM", 1),
    ("kernel/uapi/negtrace.h", "NEGT_KERNEL", 2),
    ("kernel/uapi/negtrace.h", "NEGT_NOBODY", 3),
    ("kernel/uapi/negtrace.h", "NEGT_BUSY", 4),
]

globals().update({name: v for _, name, v in DEFINES + ENUMS})
