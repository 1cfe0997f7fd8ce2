/* Segments and the address spaces built from them. */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/spinlock.h"
#include "kernel/syscall.h"
#include "fs/fs.h"
#include "vm/vm.h"
#include "vm/coremap.h"

/* User allocations stop while this many frames are free, so the kernel can always get
 * page tables, kernel structures and cache blocks. */
#define KERNEL_RESERVE_FRAMES 64

#define NSEGMENT (3 * NPROC)
static struct segment segtab[NSEGMENT];
static struct addrspace astab[NPROC];
static struct spinlock vm_lock;       /* the two tables above */

extern pde_t boot_pgdir[];

static const struct { uint32_t lo, hi; } slot[3] = {
  [SEG_CODE]  = { USER_CODE_BASE, USER_HEAP_BASE },
  [SEG_HEAP]  = { USER_HEAP_BASE, USER_STACK_TOP - 0x40000000u },
  [SEG_STACK] = { USER_STACK_TOP - 0x40000000u, USER_STACK_TOP },
};

void vm_init(void)
{
  initlock(&vm_lock, "vm");
  boot_pgdir[0] = 0;        /* the identity map was only for turning paging on */
  lcr3(V2P(boot_pgdir));
}

pde_t *kernel_pgdir(void)
{
  return boot_pgdir;
}

void as_activate(struct addrspace *as)
{
  lcr3(V2P(as ? as->pgdir : boot_pgdir));
}

struct frame *vm_frame_alloc(struct segment *seg, uint32_t va)
{
  if (frame_count(POOL_FREE) <= KERNEL_RESERVE_FRAMES)
    return 0;
  struct frame *f = frame_alloc(POOL_VM, true);
  if (f) {
    f->owner = seg;
    f->index = (va - seg->lo) >> PGSHIFT;
  }
  return f;
}

struct segment *seg_create(struct addrspace *as, enum seg_type type)
{
  struct segment *s = 0;
  acquire(&vm_lock);
  for (int i = 0; i < NSEGMENT; i++) {
    if (segtab[i].refs == 0) {
      s = &segtab[i];
      s->refs = 1;
      break;
    }
  }
  release(&vm_lock);
  if (!s)
    return 0;
  s->pts = kalloc_page();
  if (!s->pts) {
    s->refs = 0;
    return 0;
  }
  s->type = type;
  s->lo = slot[type].lo;
  s->hi = slot[type].hi;
  s->start = s->end = (type == SEG_STACK) ? s->hi : s->lo;
  s->resident = 0;
  s->ip = 0;
  s->as = (type == SEG_CODE) ? 0 : as;
  return s;
}

void seg_attach(struct addrspace *as, struct segment *s)
{
  for (uint32_t i = 0; i < (s->hi - s->lo) / PTSPAN; i++)
    if (s->pts[i])
      as->pgdir[PDX(s->lo) + i] = V2P(s->pts[i]) | PTE_P | PTE_W | PTE_U;
  as->seg[s->type] = s;
}

static void seg_release(struct segment *s)
{
  acquire(&vm_lock);
  int left = --s->refs;
  release(&vm_lock);
  if (left > 0)
    return;
  for (uint32_t i = 0; i < (s->hi - s->lo) / PTSPAN; i++) {
    pte_t *pt = s->pts[i];
    if (!pt)
      continue;
    for (int j = 0; j < 1024; j++) {
      if (pt[j] & PTE_P) {
        frame_free(pa_to_frame(PTE_ADDR(pt[j])));
        s->resident--;
      }
    }
    kfree_page(pt);
  }
  kfree_page(s->pts);
  s->pts = 0;
  if (s->ip) {
    iput(s->ip);
    s->ip = 0;
  }
}

static pte_t *seg_walk(struct segment *s, uint32_t va, bool create)
{
  uint32_t i = (va - s->lo) / PTSPAN;
  if (!s->pts[i]) {
    if (!create)
      return 0;
    s->pts[i] = kalloc_page();
    if (!s->pts[i])
      return 0;
    if (s->as)
      s->as->pgdir[PDX(va)] = V2P(s->pts[i]) | PTE_P | PTE_W | PTE_U;
  }
  return &s->pts[i][PTX(va)];
}

struct segment *as_segment_at(struct addrspace *as, uint32_t va)
{
  for (int t = 0; t < 3; t++) {
    struct segment *s = as->seg[t];
    if (s && va >= s->lo && va < s->hi)
      return s;
  }
  return 0;
}

pte_t *as_walk(struct addrspace *as, uint32_t va)
{
  struct segment *s = as_segment_at(as, va);
  return s ? seg_walk(s, va, false) : 0;
}

int seg_alloc_range(struct segment *s, uint32_t va, uint32_t len, uint32_t perm)
{
  for (uint32_t a = PGROUNDDOWN(va); a < va + len; a += PGSIZE) {
    pte_t *pte = seg_walk(s, a, true);
    if (!pte)
      return -ENOMEM;
    if (*pte & PTE_P)
      continue;
    struct frame *f = vm_frame_alloc(s, a);
    if (!f)
      return -ENOMEM;
    *pte = frame_pa(f) | PTE_P | PTE_U | perm;
    s->resident++;
  }
  return 0;
}

/* Frees the pages of [lo, hi) in a private segment (sbrk shrinking). */
static void seg_free_range(struct segment *s, uint32_t lo, uint32_t hi)
{
  for (uint32_t a = PGROUNDUP(lo); a < hi; a += PGSIZE) {
    pte_t *pte = seg_walk(s, a, false);
    if (pte && (*pte & PTE_P)) {
      frame_free(pa_to_frame(PTE_ADDR(*pte)));
      *pte = 0;
      s->resident--;
      invlpg(a);
    }
  }
}

struct addrspace *as_create(void)
{
  struct addrspace *as = 0;
  acquire(&vm_lock);
  for (int i = 0; i < NPROC; i++) {
    if (!astab[i].pgdir) {
      as = &astab[i];
      as->pgdir = (pde_t *)1;     /* claimed */
      break;
    }
  }
  release(&vm_lock);
  if (!as)
    return 0;
  as->pgdir = kalloc_page();
  if (!as->pgdir)
    return 0;
  memmove(&as->pgdir[PDX(KERNBASE)], &boot_pgdir[PDX(KERNBASE)], (1024 - PDX(KERNBASE)) * sizeof(pde_t));
  as->seg[0] = as->seg[1] = as->seg[2] = 0;
  as->brk = USER_HEAP_BASE;
  return as;
}

void as_destroy(struct addrspace *as)
{
  for (int t = 0; t < 3; t++)
    if (as->seg[t])
      seg_release(as->seg[t]);
  kfree_page(as->pgdir);
  acquire(&vm_lock);
  as->pgdir = 0;
  release(&vm_lock);
}

/* Fork by copying: the code segment is shared (it is read-only); heap and stack are copied
 * page by page. The VM issue replaces the copy with copy-on-write / copy-on-reference. */
int as_fork(struct addrspace *parent, struct addrspace **childp)
{
  struct addrspace *as = as_create();
  if (!as)
    return -ENOMEM;
  as->brk = parent->brk;
  for (int t = 0; t < 3; t++) {
    struct segment *ps = parent->seg[t];
    if (!ps)
      continue;
    if (t == SEG_CODE) {
      acquire(&vm_lock);
      ps->refs++;
      release(&vm_lock);
      seg_attach(as, ps);
      continue;
    }
    struct segment *s = seg_create(as, t);
    if (!s)
      goto fail;
    as->seg[t] = s;
    s->start = ps->start;
    s->end = ps->end;
    for (uint32_t a = ps->start; a < ps->end; a += PGSIZE) {
      pte_t *ppte = seg_walk(ps, a, false);
      if (!ppte || !(*ppte & PTE_P))
        continue;
      if (seg_alloc_range(s, a, PGSIZE, *ppte & PTE_W) < 0)
        goto fail;
      pte_t *cpte = seg_walk(s, a, false);
      memmove(P2V(PTE_ADDR(*cpte)), P2V(PTE_ADDR(*ppte)), PGSIZE);
    }
  }
  *childp = as;
  return 0;
fail:
  as_destroy(as);
  return -ENOMEM;
}

int as_sbrk(struct addrspace *as, int incr, uint32_t *oldbrk)
{
  struct segment *h = as->seg[SEG_HEAP];
  uint32_t old = as->brk;
  uint32_t nbrk = old + incr;
  if (!h)
    return -ENOMEM;
  if ((incr > 0 && (nbrk < old || nbrk > h->hi)) || (incr < 0 && (nbrk > old || nbrk < h->start)))
    return incr > 0 ? -ENOMEM : -EINVAL;
  if (incr > 0) {
    if (seg_alloc_range(h, old, incr, PTE_W) < 0) {
      seg_free_range(h, PGROUNDUP(old), PGROUNDUP(nbrk));
      return -ENOMEM;
    }
  } else if (incr < 0) {
    seg_free_range(h, PGROUNDUP(nbrk), PGROUNDUP(old));
  }
  h->end = PGROUNDUP(nbrk);
  as->brk = nbrk;
  *oldbrk = old;
  return 0;
}

uint32_t as_size(struct addrspace *as)
{
  uint32_t n = 0;
  for (int t = 0; t < 3; t++)
    if (as->seg[t])
      n += as->seg[t]->resident;
  return n * PGSIZE;
}
