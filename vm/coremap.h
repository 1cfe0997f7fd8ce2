/* The core map: the only record of who holds each physical frame.
 *
 * One struct frame per 4 KB page of physical memory. Every frame belongs to exactly one
 * pool: free, kernel (page tables, kernel stacks, kernel structures), the file cache, or
 * the VM. The cache and the VM take frames from and give them back to this allocator only.
 *
 * Locking rule: the core map is protected by one spinlock (coremap_lock), held only for
 * short updates, never across I/O. A frame with FRAME_BUSY set is under I/O: nobody may
 * take, move or free it; wait for it with frame_wait_unbusy(), which sleeps on the frame.
 * A FRAME_WIRED frame must not be chosen for replacement.
 *
 * Sleeping on a frame goes through frame_sleep and waking through frame_wakeup: the sleeper
 * marks the frame FRAME_WANTED, so the waker (every page brought in or written out) scans the
 * process table only when someone waits, as BSD's page "wanted" bit does. Both run under a
 * spinlock (interrupts off on this uniprocessor), so no wakeup falls between mark and sleep.
 */
#ifndef VM_COREMAP_H
#define VM_COREMAP_H
#include "../kernel/types.h"

enum frame_pool { POOL_NONE = 0 /* not RAM, or the kernel image */, POOL_FREE, POOL_KERNEL, POOL_CACHE, POOL_VM, NPOOL };

#define FRAME_BUSY  0x1     /* under I/O */
#define FRAME_WIRED 0x2     /* never replaced */
#define FRAME_DIRTY 0x4     /* VM: the page differs from its backing copy (dirty bits folded in) */
#define FRAME_BACKED 0x8    /* VM: the backing file holds this page (valid unless dirty) */
#define FRAME_WANTED 0x10   /* someone sleeps on this frame (frame_sleep) */

struct frame {
  uint8_t pool;             /* enum frame_pool */
  uint8_t flags;            /* FRAME_BUSY, FRAME_WIRED */
  uint16_t pad;
  uint32_t lastref;         /* time of last reference, ms since boot */
  void *owner;              /* the cache block, or the VM segment holding it */
  uint32_t index;           /* the page number within the owner segment (VM) */
  uint32_t pword;           /* the replacement policy's own word (vm/policy.h) */
  struct frame *next;       /* free list link, or pool-private list */
  struct frame *prev;
};

extern struct frame *coremap;
extern uint32_t nframes;     /* entries in coremap: frames 0 .. nframes-1 */

/* Boot: size the map, then add each page of usable RAM, then register the counters. */
void coremap_init_begin(uint32_t mem_top, uint32_t kernel_end_pa);
uint32_t coremap_end_pa(void);       /* first physical byte after the core map itself */
void coremap_add_free(uint32_t pa);
void coremap_register_stats(void);
/* Takes a free frame for pool (not POOL_FREE); returns 0 when none is free. Zeroed if zero. */
struct frame *frame_alloc(enum frame_pool pool, bool zero);
void frame_free(struct frame *f);
uint32_t frame_count(enum frame_pool pool);

static inline uint32_t frame_pa(struct frame *f) { return (uint32_t)(f - coremap) << 12; }
static inline void *frame_va(struct frame *f) { return (void *)((uint32_t)(f - coremap) * 4096u + 0xC0000000u); }
static inline struct frame *pa_to_frame(uint32_t pa) { return &coremap[pa >> 12]; }

/* Every frame in exactly one pool, the counts and the free list agree: problems found. */
int coremap_audit(bool quiet);
/* For vm/corrupt.c (test-only damage), with interrupts off: a pool's count, the free list. */
uint32_t *coremap_count_word(enum frame_pool pool);
struct frame *coremap_freelist(void);

/* Prints the busy frames (the ^P dump: under I/O, or stuck so). */
void frame_dump_busy(void);

void frame_wait_unbusy(struct frame *f);   /* sleeps until !(flags & FRAME_BUSY) */
void frame_set_busy(struct frame *f);
void frame_clear_busy(struct frame *f);    /* and wakes waiters */
struct spinlock;
void frame_sleep(struct frame *f, struct spinlock *lk);   /* lk held; released while asleep */
void frame_wakeup(struct frame *f);        /* wakes f's sleepers, if it has any */

/* Kernel-pool pages by virtual address, for kernel structures (page tables, stacks). */
void *kalloc_page(void);                  /* zeroed; 0 when memory is exhausted */
void kfree_page(void *va);
#endif
