/* Address spaces: a page directory and the three segments in it (vm/segment.c), the page
 * tables' walk, an address space made, forked, grown by sbrk and destroyed. Locking: vm_lock
 * (see vm.h). */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/spinlock.h"
#include "kernel/syscall.h"
#include "kernel/sleeplock.h"
#include "kernel/time.h"
#include "kernel/power.h"
#include "fs/backing.h"
#include "vm/vm.h"
#include "kernel/mem/coremap.h"
#include "kernel/audit.h"

static struct addrspace astab[NPROC];
extern pde_t boot_pgdir[];

void as_activate(struct addrspace *as)
{
  lcr3(V2P(as ? as->pgdir : boot_pgdir));
}

pte_t *seg_walk(struct segment *s, uint32_t va, bool create)
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

void as_link_pt(struct addrspace *as, struct segment *s, uint32_t va)
{
  uint32_t i = (va - s->lo) / PTSPAN;
  if (s->pts[i])
    as->pgdir[PDX(va)] = V2P(s->pts[i]) | PTE_P | PTE_W | PTE_U;
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

/* Eager pages (exec's arguments, fork's copies): their contents exist nowhere else, so the
 * frames are dirty from the start. */
int seg_alloc_range(struct segment *s, uint32_t va, uint32_t len, uint32_t perm)
{
  for (uint32_t a = PGROUNDDOWN(va); a < va + len; a += PGSIZE) {
    acquire(&vm_lock);
    pte_t *pte = seg_walk(s, a, true);
    bool done = pte && (*pte & PTE_P);
    release(&vm_lock);
    if (!pte)
      return -ENOMEM;
    if (done)
      continue;
    struct frame *f = vm_getframe(s, a);
    if (!f)
      return -ENOMEM;
    memset(frame_va(f), 0, PGSIZE);
    acquire(&vm_lock);
    f->pflags |= VMF_DIRTY;
    vm_map_frame(s, a, f, PTE_U | perm);
    release(&vm_lock);
  }
  return 0;
}

/* Frees the pages of [lo, hi) in a private segment (sbrk shrinking). */
static void seg_free_range(struct segment *s, uint32_t lo, uint32_t hi)
{
  cowcor_release_range(s, lo, hi);
  acquire(&vm_lock);
  for (uint32_t a = PGROUNDUP(lo); a < hi; a += PGSIZE) {
    pte_t *pte = seg_walk(s, a, false);
    if (!pte)
      continue;
    while (*pte & PTE_INTRANS)
      frame_wait(pa_to_frame(PTE_ADDR(*pte)), &vm_lock);
    if (*pte & PTE_P) {
      vm_drop_frame(pa_to_frame(PTE_ADDR(*pte)));
      s->resident--;
    }
    *pte = 0;
    invlpg(a);
  }
  release(&vm_lock);
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
  pde_t *pgdir = kalloc_page();
  if (!pgdir) {
    as->pgdir = 0;
    return 0;
  }
  memmove(&pgdir[PDX(KERNBASE)], &boot_pgdir[PDX(KERNBASE)], (1024 - PDX(KERNBASE)) * sizeof(pde_t));
  as->seg[0] = as->seg[1] = as->seg[2] = 0;
  as->brk = USER_HEAP_BASE;
  as->pid = myproc() ? myproc()->pid : 0;
  as->pgdir = pgdir;
  return as;
}

void as_destroy(struct addrspace *as)
{
  for (int t = 0; t < 3; t++) {
    struct segment *s = as->seg[t];
    if (!s)
      continue;
    acquire(&vm_lock);
    as->seg[t] = 0;
    if (s->as == as)
      s->as = 0;
    release(&vm_lock);
    seg_put(s);
  }
  kfree_page(as->pgdir);
  acquire(&vm_lock);
  as->pgdir = 0;
  release(&vm_lock);
}

/* Copies page va of parent segment ps into child segment s. The parent is in fork, so its
 * pages change only by the pager: a resident page is pinned (busy) while copied. A page the
 * parent has copy-on-reference is read from its master (cow_lock held: it stays there). */
static int copy_page(struct segment *ps, struct segment *s, uint32_t va)
{
  for (;;) {
    acquire(&vm_lock);
    pte_t *ppte = seg_walk(ps, va, false);
    pte_t e = ppte ? *ppte : 0;
    struct segment *src = ps;
    if (pte_is_cor(e)) {
      src = &segtab[e >> PGSHIFT];
      ppte = seg_walk(src, va, false);
      e = ppte ? *ppte : 0;
    }
    if (e & PTE_INTRANS) {
      frame_wait(pa_to_frame(PTE_ADDR(e)), &vm_lock);
      release(&vm_lock);
      continue;
    }
    if (!(e & (PTE_P | PTE_ONDISK))) {
      release(&vm_lock);
      return 0;             /* untouched: the child's stays untouched too */
    }
    struct frame *pf = 0;
    if (e & PTE_P) {
      pf = pa_to_frame(PTE_ADDR(e));
      frame_try_busy(pf);   /* pinned while copied; a present page is not under I/O */
    }
    release(&vm_lock);
    struct frame *f = vm_getframe(s, va);
    int err = f ? 0 : -ENOMEM;
    if (f && pf)
      memmove(frame_va(f), frame_va(pf), PGSIZE);
    else if (f)
      err = seg_rw(src, va, frame_va(f), false);
    acquire(&vm_lock);
    if (pf)
      frame_unbusy(pf);
    if (f && err == 0) {
      st_fork_copies++;
      f->pflags |= VMF_DIRTY;
      seg_walk(s, va, true);
      vm_map_frame(s, va, f, PTE_U | PTE_W);
    } else if (f) {
      vm_putframe_locked(f);
    }
    release(&vm_lock);
    return err;
  }
}

/* Fork: the code segment is shared (it is read-only). Heap and stack: by COW-COR
 * (vm.fork=cowcor, vm/cowcor.c), or copied page by page, pages on backing store read back
 * for the child (vm.fork=copy). Either way the child's backing store is reserved later, by
 * the VM daemon (seg_reserve_lazy): fork does no file-system work. */
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
    s->nload = ps->nload;
    memmove(s->load, ps->load, sizeof s->load);
    if (ps->ip)
      s->ip = idup(ps->ip);
    if (vm_fork_mode == FORK_COWCOR) {
      if (cowcor_fork(ps, s) < 0)
        goto fail;
      continue;
    }
    int err = 0;
    cowcor_lock();
    for (uint32_t a = ps->start; a < ps->end && err == 0; a += PGSIZE)
      err = copy_page(ps, s, a);
    cowcor_unlock();
    if (err < 0)
      goto fail;
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
    /* Backing store for the new pages now; their frames come when they are touched. */
    int err = seg_grow(h, h->start, MAX(h->end, PGROUNDUP(nbrk)));
    if (err < 0)
      return err;
  } else if (incr < 0) {
    seg_free_range(h, PGROUNDUP(nbrk), PGROUNDUP(old));
    h->end = PGROUNDUP(nbrk);
    /* Pages given back are gone: grown again they are zero-filled, not reloaded from the
     * executable's initialised data. */
    for (int i = 0; i < h->nload; i++) {
      struct seg_load *l = &h->load[i];
      if (l->va + l->filesz > h->end)
        l->filesz = l->va < h->end ? h->end - l->va : 0;
    }
  }
  as->brk = nbrk;
  *oldbrk = old;
  return 0;
}

/* A page directory entry of a process that names anything but its own segment's page table
 * would show the process another's memory (or free memory); the page tables themselves are
 * checked by vm_audit. An entry may be missing (linked at the next fault), never wrong. Address
 * spaces being built or torn down have no segment in the slot yet, or no longer: skipped. */

int as_audit(bool quiet)
{
  int bad = 0;
  for (int a = 0; a < NPROC; a++) {
    struct addrspace *as = &astab[a];
    if ((uint32_t)as->pgdir <= 1)
      continue;               /* free, or claimed and not made yet */
    for (int t = 0; t < 3; t++) {
      struct segment *s = as->seg[t];
      if (!s || !s->pts)
        continue;
      for (uint32_t i = 0; i < (s->hi - s->lo) / PTSPAN; i++) {
        pde_t e = as->pgdir[PDX(s->lo) + i];
        if ((e & PTE_P) && (!s->pts[i] || PTE_ADDR(e) != V2P(s->pts[i])))
          AUDIT_BAD("pid %d: page directory entry for 0x%x (0x%x) is not segment %u's page table\n",
              as->pid, s->lo + i * PTSPAN, e, (uint32_t)(s - segtab));
      }
    }
  }
  return bad;
}

uint32_t as_size(struct addrspace *as)
{
  uint32_t n = 0;
  for (int t = 0; t < 3; t++)
    if (as->seg[t])
      n += as->seg[t]->resident;
  return n * PGSIZE;
}
