/* Address spaces made of segments, after Sprite (thesis 7.2).
 *
 * A process has three segments: code, heap and stack. Each owns a fixed slot of the address
 * space made of whole 4 MB page-directory entries, so its page tables belong to it alone and
 * can be linked into several page directories at once (code shared by processes running the
 * same program; fork shares the code segment). */
#ifndef VM_VM_H
#define VM_VM_H
#include "kernel/types.h"
#include "kernel/memlayout.h"

struct inode;

enum seg_type { SEG_CODE, SEG_HEAP, SEG_STACK };

struct segment {
  enum seg_type type;
  int refs;                 /* address spaces using it */
  uint32_t lo, hi;          /* its slot: [lo, hi), 4 MB aligned */
  uint32_t start, end;      /* pages that exist: [start, end), page aligned */
  pte_t **pts;              /* page table per 4 MB of the slot, or 0 (a kernel page of pointers) */
  uint32_t resident;        /* pages with a frame */
  struct inode *ip;         /* code: the executable it was loaded from */
  struct addrspace *as;     /* heap and stack: the one address space using it */
};

struct addrspace {
  pde_t *pgdir;
  struct segment *seg[3];   /* indexed by enum seg_type */
  uint32_t brk;             /* program break: end of the heap in bytes */
};

void vm_init(void);
pde_t *kernel_pgdir(void);
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
/* Links every page table of seg into the page directory of as. */
void seg_attach(struct addrspace *as, struct segment *seg);
struct frame *vm_frame_alloc(struct segment *seg, uint32_t va);
/* Gives [va, va+len) of seg fresh zeroed frames, mapped with perm; 0 or -ENOMEM. */
int seg_alloc_range(struct segment *seg, uint32_t va, uint32_t len, uint32_t perm);
/* The page-table entry for va in as, or 0 when its page table does not exist. */
pte_t *as_walk(struct addrspace *as, uint32_t va);
struct segment *as_segment_at(struct addrspace *as, uint32_t va);

/* Replaces the current process's program; argv is a kernel array of kernel strings. */
int exec(const char *path, char *const argv[]);
#endif
