/* Segments: a process's code, heap and stack, each its own pages and page tables, shared
 * (code) or private, and the backing store reserved for each (vm/addrspace.c puts them
 * together into address spaces and walks their page tables). Locking: vm_lock (see vm.h). */
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

#define NSEGMENT (3 * NPROC)
struct segment segtab[NSEGMENT];
uint32_t nsegtab = NSEGMENT;
struct spinlock vm_lock;
/* Serialises reserving backing store: a segment's owner (exec, sbrk, stack growth) and the
 * VM daemon (forked segments) may reserve for the same segment at once. */
static struct sleeplock reserve_lock;
volatile bool vm_reserve_wanted;


static const struct { uint32_t lo, hi; } slot[3] = {
  [SEG_CODE]  = { USER_CODE_BASE, USER_HEAP_BASE },
  [SEG_HEAP]  = { USER_HEAP_BASE, USER_STACK_TOP - 0x40000000u },
  [SEG_STACK] = { USER_STACK_TOP - 0x40000000u, USER_STACK_TOP },
};

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
    struct inode *ip = backing_create(name, &err);
    if (!ip)
      return swap_error(err);
    acquire(&vm_lock);
    s->swap = ip;
    release(&vm_lock);
  }
  /* The addresses are kept page by page, so that a page-out finds its block without
   * asking the file system (fs/backing.c). Reserved a page of addresses at a time, so the
   * whole range is checked first: a huge sbrk fails before it takes any block. */
  int err = backing_may_reserve(s->swapblocks, want);
  for (uint32_t b = s->swapblocks; b < want && err == 0;) {
    uint32_t c = b / SWAPADDR_PER_PAGE, end = MIN(want, (c + 1) * SWAPADDR_PER_PAGE);
    if (c >= SEG_MAXPT || (!s->swapaddr[c] && !(s->swapaddr[c] = kalloc_page())))
      err = -ENOMEM;
    else
      err = backing_reserve_range(s->swap, b, end, &s->swapaddr[c][b % SWAPADDR_PER_PAGE]);
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
    initsleeplock_ranked(&reserve_lock, "reserve", LOCK_RESERVE);
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
  return backing_rw(s->swapaddr[b / SWAPADDR_PER_PAGE][b % SWAPADDR_PER_PAGE], buf, write);
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
    backing_remove(swap, name);
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
