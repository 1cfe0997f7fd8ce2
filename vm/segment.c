/* Segments and the address spaces built from them. Locking: vm_lock (see vm.h). */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/spinlock.h"
#include "kernel/syscall.h"
#include "kernel/sleeplock.h"
#include "kernel/time.h"
#include "kernel/power.h"
#include "fs/bypass.h"
#include "vm/vm.h"
#include "kernel/coremap.h"

#define NSEGMENT (3 * NPROC)
struct segment segtab[NSEGMENT];
uint32_t nsegtab = NSEGMENT;
static struct addrspace astab[NPROC];
struct spinlock vm_lock;
/* Serialises reserving backing store: a segment's owner (exec, sbrk, stack growth) and the
 * VM daemon (forked segments) may reserve for the same segment at once. */
static struct sleeplock reserve_lock;
volatile bool vm_reserve_wanted;

extern pde_t boot_pgdir[];

static const struct { uint32_t lo, hi; } slot[3] = {
  [SEG_CODE]  = { USER_CODE_BASE, USER_HEAP_BASE },
  [SEG_HEAP]  = { USER_HEAP_BASE, USER_STACK_TOP - 0x40000000u },
  [SEG_STACK] = { USER_STACK_TOP - 0x40000000u, USER_STACK_TOP },
};

pde_t *kernel_pgdir(void)
{
  return boot_pgdir;
}

void as_activate(struct addrspace *as)
{
  lcr3(V2P(as ? as->pgdir : boot_pgdir));
}

/* Segments in use (of NSEGMENT), those waiting for the reaper included. */
uint32_t seg_count_used(void)
{
  uint32_t n = 0;
  acquire(&vm_lock);
  for (uint32_t i = 0; i < NSEGMENT; i++)
    n += segtab[i].used;
  release(&vm_lock);
  return n;
}

struct segment *seg_create(struct addrspace *as, enum seg_type type)
{
  static uint32_t serials;
  struct segment *s = 0;
  acquire(&vm_lock);
  for (uint32_t i = 0; i < NSEGMENT; i++) {
    if (!segtab[i].used) {
      s = &segtab[i];
      s->used = true;
      s->refs = 1;
      s->serial = ++serials;
      break;
    }
  }
  release(&vm_lock);
  if (!s)
    return 0;
  s->pts = kalloc_page();
  if (!s->pts) {
    s->used = false;
    return 0;
  }
  s->swapaddr = (uint32_t **)&s->pts[SEG_MAXPT];
  s->type = type;
  s->lo = slot[type].lo;
  s->hi = slot[type].hi;
  s->start = s->end = (type == SEG_STACK) ? s->hi : s->lo;
  s->resident = 0;
  s->ip = 0;
  s->nload = 0;
  s->swap = 0;
  s->swapblocks = 0;
  s->as = (type == SEG_CODE) ? 0 : as;
  s->cow_next = s->cow_prev = s;
  s->cor_refs = 0;
  s->lazy = type != SEG_CODE;    /* until seg_reserve has reserved its backing store */
  s->noswap = false;
  s->doomed = false;
  s->born = uptime_ms();
  return s;
}

struct segment *seg_find_code(struct inode *ip)
{
  struct segment *found = 0;
  acquire(&vm_lock);
  for (uint32_t i = 0; i < NSEGMENT && !found; i++) {
    struct segment *s = &segtab[i];
    if (s->used && s->refs > 0 && s->type == SEG_CODE && s->ip == ip) {
      s->refs++;
      found = s;
    }
  }
  release(&vm_lock);
  return found;
}

void seg_attach(struct addrspace *as, struct segment *s)
{
  acquire(&vm_lock);
  for (uint32_t i = 0; i < (s->hi - s->lo) / PTSPAN; i++)
    if (s->pts[i])
      as->pgdir[PDX(s->lo) + i] = V2P(s->pts[i]) | PTE_P | PTE_W | PTE_U;
  as->seg[s->type] = s;
  release(&vm_lock);
}

static void swapname(struct segment *s, char *buf, int len)
{
  snprintf(buf, len, "seg%u", (uint32_t)(s - segtab));
}

/* The disk has no room for the backing store: the segment's user is told ENOSWAP ("No space
 * left for the backing store"), not the file system's ENOSPC (nothing it wrote is at stake)
 * nor ENOMEM (memory is not what ran out). */
static int swap_error(int err)
{
  return err == -ENOSPC || err == -EFBIG ? -ENOSWAP : err;
}

static int seg_reserve_locked(struct segment *s)
{
  if (s->type == SEG_CODE)
    return 0;
  uint32_t want = seg_npages(s);
  if (want <= s->swapblocks) {
    s->lazy = false;
    return 0;
  }
  if (!s->swap) {
    char name[16];
    int err;
    swapname(s, name, sizeof name);
    struct inode *ip = bypass_create(name, &err);
    if (!ip)
      return swap_error(err);
    acquire(&vm_lock);
    s->swap = ip;
    release(&vm_lock);
  }
  /* The addresses are kept page by page, so that a page-out finds its block without
   * asking the file system (fs/bypass.c). Reserved a page of addresses at a time, so the
   * whole range is checked first: a huge sbrk fails before it takes any block. */
  int err = bypass_may_reserve(s->swapblocks, want);
  for (uint32_t b = s->swapblocks; b < want && err == 0;) {
    uint32_t c = b / SWAPADDR_PER_PAGE, end = MIN(want, (c + 1) * SWAPADDR_PER_PAGE);
    if (c >= SEG_MAXPT || (!s->swapaddr[c] && !(s->swapaddr[c] = kalloc_page())))
      err = -ENOMEM;
    else
      err = bypass_reserve(s->swap, b, end, &s->swapaddr[c][b % SWAPADDR_PER_PAGE]);
    b = end;
  }
  if (err < 0) {
    /* A huge sbrk that failed keeps no address pages beyond the blocks in use. */
    for (uint32_t c = (s->swapblocks + SWAPADDR_PER_PAGE - 1) / SWAPADDR_PER_PAGE; c < SEG_MAXPT; c++)
      if (s->swapaddr[c]) {
        kfree_page(s->swapaddr[c]);
        s->swapaddr[c] = 0;
      }
    return swap_error(err);
  }
  acquire(&vm_lock);
  s->swapblocks = want;     /* pages below it may go out from now on */
  s->lazy = want < seg_npages(s);   /* grown meanwhile: its owner is waiting to reserve more */
  release(&vm_lock);
  return 0;
}

/* The new size is set under reserve_lock and taken back there if the blocks cannot be had:
 * the VM daemon, reserving for forked segments, must never see a size being tried (a huge
 * sbrk that fails would have it kill the process). Marked lazy until the blocks are
 * reserved, so that the audit does not count them yet. With reserve_lock held. */
static int grow_locked(struct segment *s, uint32_t start, uint32_t end)
{
  acquire(&vm_lock);
  bool was = s->lazy;
  uint32_t ostart = s->start, oend = s->end;
  s->start = start;
  s->end = end;
  s->lazy = s->type != SEG_CODE;
  release(&vm_lock);
  int err = seg_reserve_locked(s);
  if (err < 0) {
    acquire(&vm_lock);
    s->start = ostart;
    s->end = oend;
    s->lazy = was;
    release(&vm_lock);
  }
  return err;
}

static void reserve_lock_take(void)
{
  if (!reserve_lock.name)
    initsleeplock(&reserve_lock, "reserve");
  acquiresleep(&reserve_lock);
}

int seg_grow(struct segment *s, uint32_t start, uint32_t end)
{
  reserve_lock_take();
  int err = grow_locked(s, start, end);
  releasesleep(&reserve_lock);
  return err;
}

/* The segment's bounds are read under reserve_lock, not before it: the VM daemon reserving a
 * new process's heap may wait for the lock while the process's own sbrk grows the heap, and
 * bounds read before the wait would set the old end back, cutting off the pages just grown
 * (the process then faults on its freshly sbrk'ed memory as unmapped). */
int seg_reserve(struct segment *s)
{
  reserve_lock_take();
  int err = grow_locked(s, s->start, s->end);
  releasesleep(&reserve_lock);
  return err;
}

int seg_rw(struct segment *s, uint32_t va, void *buf, bool write)
{
  uint32_t b = seg_block(s, va);
  if (b >= s->swapblocks || !s->swapaddr) {
    kprintf("vm: segment %u has no backing block %u\n", (uint32_t)(s - segtab), b);
    return -EIO;
  }
  return bypass_rw(s->swapaddr[b / SWAPADDR_PER_PAGE][b % SWAPADDR_PER_PAGE], buf, write);
}

/* A forked segment gets its backing store here, from the VM daemon, once it has lived a tick
 * (most children exec or exit before that, and fork stays free of file-system work), or at
 * once when the pager has nothing else to take. A failure kills the process: it cannot be
 * paged out, as a stack that cannot grow cannot run. */
void seg_reserve_lazy(bool all)
{
  uint32_t now = uptime_ms();
  int killed[NPROC], nkilled = 0;     /* one message per process, not one per segment */
  for (uint32_t i = 0; i < NSEGMENT; i++) {
    struct segment *s = &segtab[i];
    acquire(&vm_lock);
    if (!s->used || s->refs <= 0 || !s->lazy || s->noswap || (!all && now - s->born < 100)) {
      release(&vm_lock);
      continue;
    }
    s->refs++;
    int pid = s->as ? s->as->pid : 0;
    release(&vm_lock);
    int err = seg_reserve(s);
    if (err == -ENFILE) {
      /* The kernel's table of inodes is full for now (the backing file needs one), not the
       * disk: the segment stays lazy and the next tick tries again. Killing here would kill
       * any process that forks while another holds the table full. */
    } else if (err < 0) {
      s->noswap = true;
      if (pid == 1) {
        /* init cannot be killed, and a system without it cannot go on (nothing is lost:
         * this thread writes nothing, and what was fsync'ed is on disk). */
        kprintf("vm: no backing store for init (error %d%s): the system cannot run; powering off\n", -err,
                err == -ENOSWAP ? ": the disk is full" : "");
        machine_poweroff(1);
      }
      bool again = false;
      for (int k = 0; k < nkilled; k++)
        again |= killed[k] == pid;
      if (!again) {
        if (err == -ENOSWAP)
          kprintf("vm: no backing store for pid %d (the disk is full): killed\n", pid);
        else
          kprintf("vm: no backing store for pid %d (error %d): killed\n", pid, -err);
        if (pid)
          kill_proc(pid);
        if (nkilled < NPROC)
          killed[nkilled++] = pid;
      }
    }
    seg_put_later(s);
  }
}

/* The last reference: every frame back to the core map, the page tables freed, the backing
 * file removed. Nobody else can reach the segment now but the page-out daemon, which may be
 * writing one of its pages: wait for that (the daemon holds no reference, so that it never
 * frees a segment: that takes cow_lock and file-system locks, which its askers may hold). */
static void seg_free(struct segment *s)
{
  cowcor_delete(s);         /* COW pages to a dependant, COR entries dropped, off the list */
  acquire(&vm_lock);
  for (uint32_t i = 0; i < (s->hi - s->lo) / PTSPAN; i++) {
    pte_t *pt = s->pts[i];
    if (!pt)
      continue;
    for (int j = 0; j < 1024; j++) {
      while (pt[j] & PTE_INTRANS)
        frame_wait(pa_to_frame(PTE_ADDR(pt[j])), &vm_lock);
      if (pt[j] & PTE_P) {
        vm_drop_frame(pa_to_frame(PTE_ADDR(pt[j])));
        s->resident--;
      }
      pt[j] = 0;
    }
    kfree_page(pt);
    s->pts[i] = 0;
  }
  for (uint32_t c = 0; c < SEG_MAXPT; c++)
    if (s->swapaddr[c])
      kfree_page(s->swapaddr[c]);
  kfree_page(s->pts);
  s->pts = 0;
  s->swapaddr = 0;
  struct inode *ip = s->ip, *swap = s->swap;
  s->ip = 0;
  s->swap = 0;
  s->swapblocks = 0;
  release(&vm_lock);
  if (ip)
    iput(ip);
  if (swap) {
    char name[16];
    swapname(s, name, sizeof name);
    bypass_remove(swap, name);
  }
  acquire(&vm_lock);
  s->used = false;
  release(&vm_lock);
}

void seg_put(struct segment *s)
{
  acquire(&vm_lock);
  int left = --s->refs;
  release(&vm_lock);
  if (left == 0)
    seg_free(s);
}

/* Freeing a segment takes cow_lock (cowcor_delete) and the file system's locks (removing the
 * backing file). The VM daemon holds a reference while it reserves a forked segment's backing
 * store, and must not free it there: a COR fault holding cow_lock may be waiting for that very
 * reservation while the free waits for cow_lock, and every process would end asleep behind
 * them. (For the same reason the page-out daemon takes no reference on the segment it writes,
 * and seg_free waits for its write instead.) So the daemon hands the last reference to the
 * reaper, a thread holding nothing, which frees the segment at once. Until then the segment
 * is inert: no daemon picks a segment without references. */
static int reaper_chan;

void seg_put_later(struct segment *s)
{
  acquire(&vm_lock);
  if (--s->refs == 0) {
    s->doomed = true;
    wakeup(&reaper_chan);
  }
  release(&vm_lock);
}

void seg_reaper(void *arg)
{
  (void)arg;
  for (;;) {
    struct segment *s = 0;
    acquire(&vm_lock);
    while (!s) {
      for (uint32_t i = 0; i < NSEGMENT && !s; i++)
        if (segtab[i].used && segtab[i].doomed)
          s = &segtab[i];
      if (!s)
        sleep(&reaper_chan, &vm_lock);
    }
    s->doomed = false;
    release(&vm_lock);
    seg_free(s);
  }
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
#define BAD(...) do { bad++; if (!quiet) kprintf("audit: " __VA_ARGS__); } while (0)

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
          BAD("pid %d: page directory entry for 0x%x (0x%x) is not segment %u's page table\n",
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
