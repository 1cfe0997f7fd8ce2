/* The core map: one struct frame per physical page. See coremap.h for the lock order and the
 * "busy, wait for it" convention. */
#include "kernel/klib.h"
#include "kernel/memlayout.h"
#include "kernel/spinlock.h"
#include "kernel/proc.h"
#include "kernel/stats.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "kernel/audit.h"

struct frame *coremap;
uint32_t nframes;
static struct spinlock coremap_lock;
static struct frame *freelist;
static uint32_t pool_count[NPOOL];

/* mem_top: end of usable RAM (physical); kernel_end_pa: first byte after the kernel image.
 * The core map itself is placed right after the kernel, and those frames belong to no pool. */
void coremap_init_begin(uint32_t mem_top, uint32_t kernel_end_pa)
{
  initlock(&coremap_lock, "coremap");
  if (mem_top > PHYSTOP_MAX)
    mem_top = PHYSTOP_MAX;
  nframes = mem_top >> PGSHIFT;
  coremap = (struct frame *)P2V(PGROUNDUP(kernel_end_pa));
  memset(coremap, 0, nframes * sizeof(struct frame));
  for (uint32_t i = 0; i < nframes; i++)
    coremap[i].pool = POOL_NONE;
}

uint32_t coremap_end_pa(void)
{
  return PGROUNDUP(V2P(coremap + nframes));
}

/* Marks a frame as usable RAM (called for each page of each available memory region). */
void coremap_add_free(uint32_t pa)
{
  struct frame *f = pa_to_frame(pa);
  if (pa >> PGSHIFT >= nframes || f->pool != POOL_NONE)
    return;
  f->pool = POOL_FREE;
  f->next = freelist;
  freelist = f;
  pool_count[POOL_FREE]++;
}

static uint32_t frames_free(void) { return pool_count[POOL_FREE]; }
static uint32_t frames_kernel(void) { return pool_count[POOL_KERNEL]; }
static uint32_t frames_cache(void) { return pool_count[POOL_CACHE]; }
static uint32_t frames_vm(void) { return pool_count[POOL_VM]; }
static uint32_t frames_total(void)
{
  return pool_count[POOL_FREE] + pool_count[POOL_KERNEL] + pool_count[POOL_CACHE] + pool_count[POOL_VM];
}

static const struct counter counters[] = {
  COUNTER_FN("mem.frames.total", frames_total),
  COUNTER_FN("mem.frames.free", frames_free),
  COUNTER_FN("mem.frames.kernel", frames_kernel),
  COUNTER_FN("mem.frames.cache", frames_cache),
  COUNTER_FN("mem.frames.vm", frames_vm),
};

void coremap_register_stats(void)
{
  stat_register_table(counters, NELEM(counters));
}

struct frame *frame_alloc(enum frame_pool pool, bool zero)
{
  acquire(&coremap_lock);
  struct frame *f = freelist;
  if (f) {
    freelist = f->next;
    pool_count[POOL_FREE]--;
    pool_count[pool]++;
    f->pool = pool;
    f->flags &= FRAME_WANTED;   /* only frame_unbusy may drop a sleeper's mark */
    if (pool == POOL_VM)
      f->flags |= FRAME_BUSY;   /* in hand until claimed and filled (coremap.h) */
    f->pflags = 0;
    f->owner = 0;
    f->index = 0;
    f->next = f->prev = 0;
    f->lastref = 0;
  }
  release(&coremap_lock);
  if (f && zero)
    memset(frame_va(f), 0, PGSIZE);
  return f;
}

void frame_free(struct frame *f)
{
  acquire(&coremap_lock);
  if (f->pool == POOL_FREE || f->pool == POOL_NONE)
    panic("frame_free: frame 0x%x is not allocated (pool %d)", frame_pa(f), f->pool);
  if (f->flags & FRAME_BUSY)
    panic("frame_free: frame 0x%x is busy", frame_pa(f));
  pool_count[f->pool]--;
  pool_count[POOL_FREE]++;
  f->pool = POOL_FREE;
  f->owner = 0;
  f->pflags = 0;
  f->flags &= FRAME_WANTED;
  f->next = freelist;
  freelist = f;
  release(&coremap_lock);
}

void frame_move(struct frame *f, enum frame_pool to)
{
  acquire(&coremap_lock);
  if (f->pool == POOL_FREE || f->pool == POOL_NONE || to == POOL_FREE || to == POOL_NONE)
    panic("frame_move: frame 0x%x from pool %d to %d", frame_pa(f), f->pool, to);
  if (f->flags & FRAME_BUSY)
    panic("frame_move: frame 0x%x is busy", frame_pa(f));
  pool_count[f->pool]--;
  pool_count[to]++;
  f->pool = to;
  if (to == POOL_VM)
    f->flags |= FRAME_BUSY;     /* in hand until claimed and filled */
  f->owner = 0;
  f->index = 0;
  f->pflags = 0;
  f->pword = 0;
  f->next = f->prev = 0;
  release(&coremap_lock);
}

/* One bit per frame: seen on the free list during an audit (PHYSTOP_MAX bounds nframes). */
static uint8_t onfree[PHYSTOP_MAX / PGSIZE / 8];

int coremap_audit(bool quiet)
{
  int bad = 0;
  uint32_t count[NPOOL] = { 0 };
  acquire(&coremap_lock);
  for (uint32_t i = 0; i < nframes; i++) {
    if (coremap[i].pool >= NPOOL) {
      AUDIT_BAD("frame %u has no pool (%u)\n", i, coremap[i].pool);
      continue;
    }
    count[coremap[i].pool]++;
  }
  memset(onfree, 0, (nframes + 7) / 8);
  uint32_t onlist = 0;
  for (struct frame *f = freelist; f && onlist <= nframes; f = f->next, onlist++) {
    uint32_t i = f - coremap;
    if (f->pool != POOL_FREE)
      AUDIT_BAD("frame %u on the free list is in pool %u\n", i, f->pool);
    /* A link back into the list makes a cycle: the allocator would hand the frame out twice. */
    if (onfree[i / 8] & (1 << (i % 8))) {
      AUDIT_BAD("the free list comes back to frame %u\n", i);
      break;
    }
    onfree[i / 8] |= 1 << (i % 8);
  }
  /* A free frame the allocator cannot reach is lost to everyone. */
  for (uint32_t i = 0; i < nframes; i++) {
    if (coremap[i].pool == POOL_FREE && !(onfree[i / 8] & (1 << (i % 8))))
      AUDIT_BAD("free frame %u is not on the free list\n", i);
  }
  for (int p = POOL_FREE; p < NPOOL; p++) {
    if (count[p] != pool_count[p])
      AUDIT_BAD("pool %d holds %u frames but counts %u\n", p, count[p], pool_count[p]);
  }
  if (onlist != pool_count[POOL_FREE])
    AUDIT_BAD("%u frames on the free list, %u counted free\n", onlist, pool_count[POOL_FREE]);
  release(&coremap_lock);
  return bad;
}

uint32_t *coremap_count_word(enum frame_pool pool)
{
  return &pool_count[pool];
}

struct frame *coremap_freelist(void)
{
  return freelist;
}

uint32_t frame_count(enum frame_pool pool)
{
  return pool_count[pool];
}

void frame_dump_busy(void)
{
  uint32_t n = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    struct frame *f = &coremap[i];
    if (!(f->flags & FRAME_BUSY))
      continue;
    if (n++ < 32)
      kprintf("  frame %u pool %u flags 0x%x owner %p index %u\n", i, f->pool, f->flags, f->owner, f->index);
  }
  kprintf("  %u busy frame%s\n", n, n == 1 ? "" : "s");
}

uint32_t frame_total(void)
{
  return frames_total();
}

bool frame_try_busy(struct frame *f)
{
  acquire(&coremap_lock);
  bool was = f->flags & FRAME_BUSY;
  f->flags |= FRAME_BUSY;
  release(&coremap_lock);
  return !was;
}

void frame_unbusy(struct frame *f)
{
  acquire(&coremap_lock);
  if (!(f->flags & FRAME_BUSY))
    panic("frame_unbusy: frame 0x%x is not busy", frame_pa(f));
  f->flags &= ~FRAME_BUSY;
  if (f->flags & FRAME_WANTED) {
    f->flags &= ~FRAME_WANTED;
    wakeup(f);
  }
  release(&coremap_lock);
}

/* The caller holds pool_lock, without which nobody may unbusy f, and sleep() lets go of it
 * only once this process is asleep: no wakeup can fall between the look and the sleep. */
void frame_wait(struct frame *f, struct spinlock *pool_lock)
{
  acquire(&coremap_lock);
  bool busy = f->flags & FRAME_BUSY;
  if (busy)
    f->flags |= FRAME_WANTED;
  release(&coremap_lock);
  if (busy)
    sleep(f, pool_lock);
}

void *kalloc_page(void)
{
  neg_refill_for_kernel();
  struct frame *f = frame_alloc(POOL_KERNEL, true);
  return f ? frame_va(f) : 0;
}

void kfree_page(void *va)
{
  struct frame *f = pa_to_frame(V2P(va));
  if (f->pool != POOL_KERNEL)
    panic("kfree_page: %p is not a kernel page", va);
  frame_free(f);
}
