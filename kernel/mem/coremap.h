/* The core map: the only record of who holds each physical frame.
 *
 * One struct frame per 4 KB page of physical memory. Every frame belongs to exactly one
 * pool: free, kernel (page tables, kernel structures), the file cache, or the VM. The cache
 * and the VM take frames from and give them back to this allocator only, and trade them
 * with each other through kernel/mem/negotiate.c, which moves a frame from one pool to the other
 * with frame_move (never through the free list, where a third party could take it).
 *
 * LOCK ORDER, for the whole memory system. A lock may be taken while holding the ones above
 * it in this list, never one above while holding one below.
 *
 *   sleeplocks: the holder may sleep (disk I/O, waiting for a frame)
 *     reserve_lock       reserving backing store (vm/segment.c): takes file-system locks
 *     file-system sleeplocks, in fs/internal.h's order: ns_lock, inode locks (a directory
 *                        before its child), alloc_lock, block sleeplocks (fs/cache.h),
 *                        sb_lock, flush_lock
 *     cow_lock           COW-COR changes (vm/cowcor.c): no file-system lock is taken under it
 *   spinlocks: held briefly, never across I/O; sleeping only in sleep(), which lets go
 *     cache_lock  or  vm_lock    never both at once: the negotiation asks one pool, lets go,
 *                                then asks the other
 *     coremap_lock       innermost: under either of them, or alone
 *     refault_lock       the shadow tables (kernel/mem/refault.c): innermost too, under either
 *                        pool's lock or alone, never with coremap_lock
 *
 * The sleeplocks of which there is one each are ranked in this order and checked as they are
 * taken (kernel/sleeplock.c): one taken out of order is printed and fails the audit.
 *
 * Any of the sleeplocks may be held by a process that needs a frame (a cache miss under an
 * inode lock, a COR fault under cow_lock), so whatever it waits for -- the page-out daemon,
 * the block cleaners -- must never need one of them: they take only spinlocks and the disk.
 *
 * WHAT GUARDS WHAT in struct frame:
 *   pool, flags, next/prev on the free list      coremap_lock
 *   owner, index, pword, pflags, lastref, and next/prev while in a pool
 *                                                 the owning pool's lock (cache_lock for
 *                                                 POOL_CACHE, vm_lock for POOL_VM)
 *
 * BUSY, WAIT FOR IT: the one convention for a frame under I/O (a page being read in or
 * written out, a cache block being read or written back). FRAME_BUSY is set and cleared
 * only with coremap_lock AND the owning pool's lock held (frame_try_busy, frame_unbusy), so
 * either lock alone is enough to read it. Nobody takes, moves or frees a busy frame. To wait
 * for one, hold its pool's lock and call frame_wait(f, lock): it sleeps until the frame is
 * unbusied (the lock let go meanwhile) and returns with the lock held again; look again,
 * since anything may have changed. PTE_INTRANS in a page-table entry (vm/vm.h) only says
 * "this page's frame is busy": waiters wait on the frame. The sleeper marks the frame
 * FRAME_WANTED, so the unbusying scans the process table only when someone waits, as BSD's
 * page "wanted" bit does. A frame handed to the VM (frame_alloc, frame_move) comes busy: it is
 * in hand until vm_getframe claims and fills it, and the audit, which skips busy frames, can
 * tell a frame in hand from one that lost its owner.
 */
#ifndef KERNEL_COREMAP_H
#define KERNEL_COREMAP_H
#include "kernel/types.h"

enum frame_pool { POOL_NONE = 0 /* not RAM, or the kernel image */, POOL_FREE, POOL_KERNEL, POOL_CACHE, POOL_VM, NPOOL };

/* flags (coremap_lock) */
#define FRAME_BUSY   0x1    /* under I/O: wait with frame_wait */
#define FRAME_WANTED 0x2    /* someone sleeps on this frame (frame_wait) */

struct frame {
  uint8_t pool;             /* enum frame_pool */
  uint8_t flags;            /* FRAME_BUSY, FRAME_WANTED */
  uint8_t pflags;           /* the owning pool's own flags (vm/vm.h: VMF_*) */
  uint8_t pad;
  uint32_t lastref;         /* time of last reference, ms since boot (both pools stamp it) */
  void *owner;              /* the cache block, or the VM segment holding it */
  uint32_t index;           /* the page number within the owner segment (VM) */
  uint32_t pword;           /* the replacement policy's own word (vm/policy.h) */
  struct frame *next;       /* free list link, or a pool's private list */
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
/* Moves an allocated, idle frame from its pool to another (not POOL_FREE: use frame_free),
 * keeping the counts; the pool-private fields are cleared for the new owner. */
void frame_move(struct frame *f, enum frame_pool to);
uint32_t frame_count(enum frame_pool pool);
uint32_t frame_total(void);          /* frames in any pool: usable RAM */

static inline uint32_t frame_pa(struct frame *f) { return (uint32_t)(f - coremap) << 12; }
static inline void *frame_va(struct frame *f) { return (void *)((uint32_t)(f - coremap) * 4096u + 0xC0000000u); }
static inline struct frame *pa_to_frame(uint32_t pa) { return &coremap[pa >> 12]; }

/* Every frame in exactly one pool, the counts and the free list agree: problems found. */
int coremap_audit(bool quiet);
/* A pool's count in place (kernel/mem/negotiate.c reads it on every ask; scaffold/vm_corrupt.c's test-only
 * damage writes it, with interrupts off), the free list (scaffold/vm_corrupt.c). */
uint32_t *coremap_count_word(enum frame_pool pool);
struct frame *coremap_freelist(void);

/* Prints the busy frames (the ^P dump: under I/O, or stuck so). */
void frame_dump_busy(void);

/* Busy, wait for it (see above). The caller holds the lock of the pool owning f. */
struct spinlock;
static inline bool frame_busy(struct frame *f) { return f->flags & FRAME_BUSY; }
bool frame_try_busy(struct frame *f);      /* false when it is busy already */
void frame_unbusy(struct frame *f);        /* and wakes its sleepers */
void frame_wait(struct frame *f, struct spinlock *pool_lock);

/* Kernel-pool pages by virtual address, for kernel structures (page tables, stacks). */
void *kalloc_page(void);                  /* zeroed; 0 when memory is exhausted */
void kfree_page(void *va);
#endif
