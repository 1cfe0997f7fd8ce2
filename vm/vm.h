/* Address spaces made of segments, after Sprite (thesis 7.2).
 *
 * A process has three segments: code, heap and stack. Each owns a fixed slot of the address
 * space made of whole 4 MB page-directory entries, so its page tables belong to it alone and
 * can be linked into several page directories at once (code shared by every process running
 * the same program).
 *
 * Pages come in on demand (vm/fault.c): code and initialised data from the executable, the
 * rest of the heap and the stack zero-filled. Heap and stack have a backing file in /swap
 * (fs/backing.h), with a block reserved for every page the segment has, so that paging out
 * (vm/pageout.c) never needs to allocate anything.
 *
 * A page-table entry that is not present (PTE_P clear) says where the page is:
 *   0                       never touched, or dropped clean: zero-filled, or loaded from the
 *                           executable (code, initialised data)
 *   PTE_ONDISK              on the segment's backing file, at block seg_block(s, va)
 *   frame | PTE_INTRANS     its frame is busy under I/O (being paged in or out): wait for
 *                           the frame (frame_wait, kernel/mem/coremap.h) and look again
 *   master << 12 | PTE_COR  copy-on-reference (vm/cowcor.c): the page is the one the master
 *                           segment (index in segtab) holds copy-on-write at the same address
 * PTE_COW marks a master's copy-on-write page, in a present entry (then read-only) and in an
 * on-disk or in-transit one alike: paging a COW page out and in keeps it COW.
 */
#ifndef VM_VM_H
#define VM_VM_H
#include "kernel/types.h"
#include "kernel/memlayout.h"
#include "kernel/spinlock.h"

struct inode;
struct frame;

#define PTE_ONDISK  0x200     /* non-present: on the backing file */
#define PTE_INTRANS 0x400     /* non-present: the frame in bits 12..31 is under I/O */
#define PTE_COW     0x800     /* any state: a COW master's page (present: read-only) */
#define PTE_COR     0x100     /* non-present: copy-on-reference, master index in bits 12..31 */
static inline bool pte_is_cor(pte_t e) { return !(e & PTE_P) && (e & PTE_COR); }

/* A VM frame's own flags (frame->pflags, under vm_lock). */
#define VMF_DIRTY   0x1     /* the page differs from its backing copy (dirty bits folded in) */
#define VMF_BACKED  0x2     /* the backing file holds this page (valid unless dirty) */
#define VMF_LAUNDRY 0x4     /* a dirty victim waiting for the page-out daemon (vm/pageout.c) */
#define VMF_READY   0x8     /* a victim the daemon has cleaned: taken first (vm/pageout.c) */

enum seg_type { SEG_CODE, SEG_HEAP, SEG_STACK };

#define SEG_NLOAD 4
/* Part of a segment loaded from the executable: [va, va+filesz) from file offset off. */
struct seg_load {
  uint32_t va, filesz, off;
};

struct segment {
  bool used;                /* the slot is taken (refs may be 0 while it is torn down) */
  enum seg_type type;
  int refs;                 /* address spaces using it, and pagers holding it for a while */
  uint32_t lo, hi;          /* its slot: [lo, hi), 4 MB aligned */
  uint32_t start, end;      /* pages that exist: [start, end), page aligned */
  pte_t **pts;              /* page table per 4 MB of the slot, or 0 (a kernel page of pointers:
                               the first SEG_MAXPT; swapaddr is the rest of the page) */
  uint32_t resident;        /* pages with a frame (present or in transit) */
  struct inode *ip;         /* the executable its code or initialised data comes from */
  struct seg_load load[SEG_NLOAD];
  int nload;
  struct inode *swap;       /* heap, stack: the backing file */
  uint32_t swapblocks;      /* blocks reserved in it: pages [0, swapblocks) by seg_block */
  uint32_t **swapaddr;      /* disk address of each reserved block: pointers to pages of
                               SWAPADDR_PER_PAGE addresses, filled when reserved */
  struct addrspace *as;     /* heap and stack: the one address space using it */
  /* COW-COR (vm/cowcor.c) */
  struct segment *cow_next, *cow_prev;  /* the family's list (a ring); itself when alone */
  uint32_t cor_refs;        /* copy-on-reference entries, anywhere, naming this master */
  bool lazy;                /* backing store not reserved yet (forked: the vm daemon does it) */
  bool noswap;              /* reserving its backing store failed */
  bool doomed;              /* its last reference is gone: the reaper frees it (seg_put_later) */
  uint32_t born;            /* ms since boot when made (lazy reservation waits a while) */
  uint32_t serial;          /* names it for good, unlike its slot (pol_page, reference traces) */
};

struct addrspace {
  pde_t *pgdir;
  struct segment *seg[3];   /* indexed by enum seg_type */
  uint32_t brk;             /* program break: end of the heap in bytes */
  int pid;                  /* the process it belongs to (for vm.pageout) */
};

/* The VM lock: segment and address-space tables, page-table entries, and the pool-private
 * fields of VM frames (owner, index, pflags, lastref; busy together with coremap_lock). A
 * spinlock held briefly, never across I/O: I/O is done with the frame busy and its
 * page-table entry PTE_INTRANS, so others wait on the frame (kernel/mem/coremap.h). */
extern struct spinlock vm_lock;
extern struct segment segtab[];
extern uint32_t nsegtab;

/* vm/vm.c: the VM's start, settings and counters. */
void vm_init(void);
void vm_start(void);        /* once processes exist: the clock daemon, page-out, the reaper */
void seg_reaper(void *arg); /* the reaper thread's body (vm/segment.c) */
struct addrspace *as_create(void);
void as_destroy(struct addrspace *as);
/* Copies a parent's address space for fork (code shared; heap and stack copied). */
int as_fork(struct addrspace *parent, struct addrspace **child);
/* Loads the page directory of as (or the kernel's when 0) into cr3. */
void as_activate(struct addrspace *as);
/* Grows or shrinks the heap; returns the old break or a negative errno. */
int as_sbrk(struct addrspace *as, int incr, uint32_t *oldbrk);
uint32_t as_size(struct addrspace *as);   /* bytes of user memory resident */

struct segment *seg_create(struct addrspace *as, enum seg_type type);
/* The code segment already running executable ip (a new reference), or 0. */
struct segment *seg_find_code(struct inode *ip);
void seg_put(struct segment *s);          /* drops a reference; the last frees everything */
/* Drops a reference held by a pager or the VM daemon: the last one hands the segment to the
 * reaper thread instead of freeing it here (vm/segment.c says why). */
void seg_put_later(struct segment *s);
/* Links every page table of seg into the page directory of as. */
void seg_attach(struct addrspace *as, struct segment *seg);
/* Reserves backing-store blocks for pages [start, end) of a heap or stack: 0 or -ENOMEM. */
int seg_reserve(struct segment *s);
/* Makes s [start, end) and reserves its backing store, or leaves it as it was: 0 or -ENOMEM. */
int seg_grow(struct segment *s, uint32_t start, uint32_t end);
/* Gives [va, va+len) of seg frames now (zeroed, dirty), mapped with perm; 0 or -ENOMEM. */
int seg_alloc_range(struct segment *seg, uint32_t va, uint32_t len, uint32_t perm);
/* The entry for va in s (vm_lock held), creating its page table when create; 0 if none. */
pte_t *seg_walk(struct segment *s, uint32_t va, bool create);
/* The page table for va linked into as (after seg_walk created it). */
void as_link_pt(struct addrspace *as, struct segment *s, uint32_t va);
/* The entry for va in as, or 0 when its page table does not exist. */
pte_t *as_walk(struct addrspace *as, uint32_t va);
struct segment *as_segment_at(struct addrspace *as, uint32_t va);
/* The entry of s for the first page at or above *va and below hi whose page table exists,
 * that page's address left in *va; 0 when there is none (vm_lock held). A missing page
 * table skips its whole 4 MB. The walk over s's entries:
 *   for (uint32_t va = s->lo; (p = seg_next_pte(s, &va, s->hi)); va += PGSIZE) */
static inline pte_t *seg_next_pte(struct segment *s, uint32_t *va, uint32_t hi)
{
  for (; *va < hi; *va = s->lo + ((*va - s->lo) / PTSPAN + 1) * PTSPAN) {
    pte_t *pt = s->pts[(*va - s->lo) / PTSPAN];
    if (pt)
      return &pt[PTX(*va)];
  }
  return 0;
}
/* seg_walk without create, inline: the entry for va in s, or 0 when its page table does not
 * exist (the aging clock and the VM's offers look at every page's entry). */
static inline pte_t *seg_pte(struct segment *s, uint32_t va)
{
  pte_t *pt = s->pts[(va - s->lo) / PTSPAN];
  return pt ? &pt[PTX(va)] : 0;
}
static inline uint32_t seg_block(struct segment *s, uint32_t va)
{
  return s->type == SEG_STACK ? (s->hi - PGSIZE - va) >> PGSHIFT : (va - s->lo) >> PGSHIFT;
}
static inline uint32_t seg_npages(struct segment *s) { return (s->end - s->start) >> PGSHIFT; }
#define SWAPADDR_PER_PAGE (PGSIZE / sizeof(uint32_t))
/* The largest slot (the heap's, 1.75 GB) has 448 page tables: the upper half of the page of
 * page-table pointers holds the pointers to the address pages (1 per 4 MB of backing store). */
#define SEG_MAXPT 512
/* Reads or writes page va of s from or to its backing block, straight to disk at the address
 * recorded when the block was reserved (no file-system lock, no cache): 0 or -EIO. */
int seg_rw(struct segment *s, uint32_t va, void *buf, bool write);

/* vm/pageout.c: frames for pages, and paging out. */
/* A frame for page va of s: free, or taken from a victim. Returned FRAME_BUSY, owned by s.
 * 0 when memory is exhausted. Sleeps; call without vm_lock. */
struct frame *vm_getframe(struct segment *s, uint32_t va);
/* The page at va of s is now in f (vm_lock held): maps it, clears busy, tells the policy. */
void vm_map_frame(struct segment *s, uint32_t va, struct frame *f, pte_t pte);
/* Frees a resident page's frame (vm_lock held; the page's entry is the caller's to set). */
void vm_drop_frame(struct frame *f);
/* Gives back, unused, a frame vm_getframe returned (busy, mapped nowhere); vm_lock held. */
void vm_putframe_locked(struct frame *f);
/* Pushes every resident page of process pid to backing store; pages written, or -errno. */
int vm_pageout_pid(int pid);
extern uint32_t st_vm_pageouts;
/* vm/audit.c: checks the VM's accounting (its frames, page tables, page-out lists, its offer
 * to the negotiation, COW-COR lists); prints each problem unless quiet; returns how many. The
 * core map's own audit is apart (kernel/mem/coremap.h). */
int vm_audit(bool quiet);
extern uint32_t vm_audit_every_fault;     /* vm.audit (vm/vm.c) */
/* The reference trace (vm/trace.c): sampled from the aging clock's tick, vm_lock held. */
void vm_trace_init(void);
void vm_trace_tick(void);
void vm_trace_leave(uint32_t frame);     /* its page is about to leave it (freed or evicted) */
/* From vm_fault, vm_lock not held: 1 when va's page was hidden by an ordered trace (now
 * recorded and shown again: the fault is done), 0 when it is present, -1 when it is not. */
int vm_trace_fault(struct addrspace *as, uint32_t va, bool write);
/* From vm_fault when a page that was not present came in: its first reference this epoch. */
void vm_trace_arrived(struct addrspace *as, uint32_t va, bool write);
bool vm_trace_hiding(void);  /* an ordered trace has present entries without PTE_U */
/* vm/fault.c */
extern uint32_t st_vm_pageins_backing;     /* page-ins read from backing files (swap) */
extern uint32_t st_vm_faults, st_vm_faults_zero, st_vm_faults_code, st_vm_pageins;

/* vm/segment.c: reserves backing store for forked segments that have lived a while (or all of
 * them when all); run by the VM daemon. */
void seg_reserve_lazy(bool all);
uint32_t seg_count_used(void);         /* the vm.segments counter */
extern volatile bool vm_reserve_wanted;   /* the pager is waiting for lazy reservations */

/* vm/cowcor.c: copy-on-write / copy-on-reference fork (thesis 7.4). */
enum { FORK_COWCOR, FORK_COPY };
extern uint32_t vm_fork_mode;
void cowcor_init(void);
void cowcor_lock(void);
void cowcor_unlock(void);
/* Makes child segment s a COR slave of ps (pages COW in ps, COR in s): 0 or -ENOMEM. */
int cowcor_fork(struct segment *ps, struct segment *s);
int cow_fault(struct segment *s, uint32_t va);   /* write to a present COW page: 0 or -1 */
int cor_fault(struct segment *s, uint32_t va);   /* touch of a COR entry: 0 or -1 */
/* A segment dies, or [lo, hi) of it goes away (sbrk): its COW pages move to a dependant,
 * its COR entries are dropped. cowcor_delete also takes it off its list. */
void cowcor_delete(struct segment *s);
void cowcor_release_range(struct segment *s, uint32_t lo, uint32_t hi);
/* Copies page va of ps, which may be COR (read through its master), into dst (copy mode). */
int cowcor_read_page(struct segment *ps, uint32_t va, void *dst, pte_t e);
int cowcor_audit(bool quiet);               /* vm_lock held */
/* vm/segment.c: each address space's page directory names its segments' page tables. */
int as_audit(bool quiet);                   /* vm_lock held */

/* scaffold/vm_corrupt.c: test-only damage (SYS_vmcorrupt, debug.corrupt). While it is outstanding the
 * VM daemon stands still, so it does not act on the damage. */
extern volatile bool vm_damaged;
void corrupt_init(void);
extern uint32_t st_fork_copies;

/* Replaces the current process's program; argv is a kernel array of kernel strings. */
int exec(const char *path, char *const argv[]);
#endif
