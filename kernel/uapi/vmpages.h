/* SYS_vmpages: a process's resident pages as the kernel sees them (scaffold/vm_view.c; the program is
 * user/pages.c). One record a present page-table entry of the process's code, heap and stack,
 * in that order and by address; with the frame the entry names and what the core map says of
 * that frame. gdb's frames and pt read the same state from memory: tests/qemu/test_views.py
 * holds them against this. */
#ifndef UAPI_VMPAGES_H
#define UAPI_VMPAGES_H

#define VMPAGES_MAX 512           /* records one call returns at most */

#define VMP_ACCESSED 0x1          /* the entry's accessed bit: used since the aging clock looked */
#define VMP_DIRTY    0x2          /* changed since its backing copy: the entry's dirty bit, or
                                     the frame's own record of it (folded in when the bit was
                                     taken) */
#define VMP_COW      0x4          /* a COW master's page (read-only until copied) */
#define VMP_WRITE    0x8          /* the entry is writable */
#define VMP_BUSY     0x10         /* the frame is under I/O */
#define VMP_NONE 0xffffffffu      /* owner_seg: the core map names no segment */

struct vmpage {
  unsigned va;                    /* the page in the process's address space */
  unsigned frame;                 /* the frame its entry names (physical address >> 12) */
  unsigned char pool;             /* that frame's pool: 0 none, 1 free, 2 kernel, 3 cache, 4 vm */
  unsigned char flags;            /* VMP_* */
  unsigned char type;             /* the segment mapping it: 0 code, 1 heap, 2 stack */
  unsigned char pad;
  unsigned seg;                   /* that segment's number */
  unsigned owner_seg;             /* the core map's owner of the frame (a segment's number) */
  unsigned owner_va;              /* and the page it says the frame holds */
  unsigned lastref_ms;            /* the frame's time of last reference, ms since boot */
};

struct vmpages_info {
  unsigned now_ms;                /* when the records were taken */
  unsigned count;                 /* resident pages found (more than returned if over max) */
};
#endif
