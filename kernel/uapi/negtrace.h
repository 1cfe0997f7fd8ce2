/* One negotiation between the file cache and the VM, as SYS_negtrace reports it
 * (kernel/mem/negotiate.c keeps the last NEGTRACE_MAX in a ring). */
#ifndef UAPI_NEGTRACE_H
#define UAPI_NEGTRACE_H

#define NEGTRACE_MAX 256

enum { NEGT_FS = 0, NEGT_VM = 1, NEGT_KERNEL = 2 };       /* who asked, who gave */
enum { NEGT_NOBODY = 3 };                                 /* gave: nobody (the asker waits) */
enum { NEGT_BUSY = 4 };           /* gave: nobody yet; the pool that should give had only dirty
                                     pages, has them written, and the asker waits for one */
#define NEGT_FS_REFUSED 0x1       /* the cache's offer was "refuse" (its age means nothing) */
#define NEGT_VM_REFUSED 0x2
#define NEGT_FS_FREE    0x4       /* the cache offered a free block: it has no age (its
                                     fs_lastref_ms is 0, older than any page) */
#define NEGT_VM_FREE    0x8       /* the VM offered a free page (none does today) */
#define NEGT_FS_BUSY    0x10      /* the cache's offer was a dirty block (busy: written first) */
#define NEGT_VM_BUSY    0x20      /* the VM's offer was a dirty page (its laundry writes it) */
#define NEGT_VM_UNASKED 0x40      /* the VM was not asked: none of its pages was last used before
                                     vm_lastref_ms, and even one that old would have stayed */
#define NEGT_FS_UNASKED 0x80      /* the cache was not asked (fs_lastref_ms: its bound), likewise */

struct negrecord {
  unsigned seq;                   /* 1 for the first negotiation since boot or neg.reset */
  unsigned time_ms;               /* ms since boot */
  unsigned char asker;            /* NEGT_FS, NEGT_VM, NEGT_KERNEL (refilling its reserve) */
  unsigned char gave;             /* NEGT_FS, NEGT_VM, NEGT_NOBODY or NEGT_BUSY: whose frame the
                                     asker got (its own: it recycles its own oldest page) */
  unsigned char flags;            /* NEGT_{FS,VM}_{REFUSED,FREE,BUSY,UNASKED} */
  unsigned char pad;
  unsigned fs_lastref_ms;         /* the cache's offer: its oldest block's time of last use */
  unsigned vm_lastref_ms;         /* the VM's offer: its next victim's, unbiased (or its bound) */
  unsigned penalty_ms;            /* added to the VM's time for the comparison */
  unsigned cache_frames;          /* the pools' frames when the penalty was computed: a stepped */
  unsigned vm_frames;             /* penalty is one vm.penalty per whole tenth of */
  unsigned free_frames;           /* cache + vm + free that the cache holds */
  unsigned vm_early;              /* the evidence behind an adaptive penalty (the bias): the VM's */
  unsigned vm_saved;              /* early refaults and pages the bias saved since neg.reset, */
  unsigned evidence_ms;           /* and when the last came (ms since boot; 0: none yet) */
};
#endif
