/* The bound on dirty memory: how much of memory delayed writes may hold.
 *
 * Sprite bounded dirty blocks by age alone: a block is written 30 s after it became dirty
 * (fs/writeback.c), however many there are. A program that writes fast (sort's temporary
 * runs, a big copy) can then fill the whole cache with dirty blocks in less than 30 s. The
 * cache may not give those away (a frame goes to the VM only clean, and the asker's thread
 * never writes), so when the VM asks for a frame the cache has nothing to give, and under a
 * penalty the VM recycles its own oldest page -- the sleeping interactive program's, the very
 * page the penalty exists to keep. Sprite's machines rarely showed it: their disks were fast
 * beside their CPUs, and the paper's benchmark starts the interactive program before the
 * cache has grown. Here it shows on a 16 MB machine with two sorts.
 *
 * So, as Linux does (mm/page-writeback.c), two shares of the frames the pools share (cache,
 * VM and free), both settings:
 *
 *   fs.dirty_background_ratio (10 %)  above it the cleaners start at once, whatever the
 *       blocks' age: the oldest dirty data blocks are scheduled, file by file in the order
 *       they became dirty, until the unscheduled ones are back under it.
 *   fs.dirty_ratio (20 %)  above it a writer is throttled: a write that would make one more
 *       data block dirty waits until the cleaners have brought the count back under the
 *       bound, instead of taking frames from anyone. A write into a block already dirty
 *       (an append to a partial block, a rewrite) makes nothing new dirty and never waits.
 *
 * Linux's defaults are the same percentages, but of "dirtyable" memory: free pages and the
 * page cache, not anonymous memory. Here the cache's size moves with every negotiation, and
 * a VM that holds most of memory (the IFS benchmark's toucher) would shrink such a bound to a
 * handful of blocks and throttle every writer; the bound is of all shared frames instead, and
 * what it does not cover -- a cache whose few blocks are all dirty when the VM asks -- the
 * negotiation's busy answer does (kernel/mem/negotiate.c): the asker waits for a clean frame
 * rather than recycle a page the penalty protects. 0 turns either bound off (both 0: Sprite).
 *
 * Below the background bound nothing changes: a temporary file deleted before its blocks'
 * 30 s are up costs no write, as in Sprite. Above it, temporary files are written like any
 * other; that is the price of keeping memory for the VM.
 *
 * Only data blocks are scheduled and throttled: metadata is dirtied with locks held that a
 * wait must not hold, and its pointer blocks may not go out before the data they name
 * (fs/ordering.c). It still counts toward the bound, so a writer waits while the count is
 * within META_MARGIN of the bound: one block's write may dirty that many metadata blocks
 * (the bitmap, two indirect blocks and the descriptor) after being admitted, and a single
 * writer thus never takes the count above the bound. Several writers at once may overshoot
 * by a margin each. A throttled writer holds its inode and its one block locked, as a Linux
 * writer holds its inode; the cleaners take neither. If no write-back completes for
 * STALL_MS (a failing disk keeps blocks dirty) the writer goes on, counted, rather than hang.
 *
 * Locking: cache_lock, as for the rest of the cache (fs/cache.c).
 */
#include "fs/cache_internal.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/mem/coremap.h"

#define META_MARGIN 4       /* metadata blocks one data block's write may dirty after it */
#define MIN_LIMIT  32       /* the least bound in blocks: a writer must be able to move */
#define SLACK      16       /* the background cleaning goes this far under its bound: batches */
#define STALL_MS   2000     /* no write-back for this long: a throttled writer goes on */

static uint32_t background_ratio = 10, dirty_ratio = 20;    /* percent */

uint32_t st_dirty_data, st_sched_data;     /* dirty data blocks; of them, scheduled */
static uint32_t st_dirty_max, st_throttled, st_throttle_ms, st_stalls, st_bound_sched;
static uint32_t written;                   /* write-backs completed: what a throttled writer waits for */

static uint32_t shared_frames(void)
{
  return frame_count(POOL_CACHE) + frame_count(POOL_VM) + frame_count(POOL_FREE);
}

/* The bounds in blocks; 0: none. The background bound stays under the upper one (Linux: half
 * of it when set at or above). */
static uint32_t upper(void)
{
  return dirty_ratio ? MAX(shared_frames() * dirty_ratio / 100, MIN_LIMIT) : 0;
}
static uint32_t background(void)
{
  uint32_t r = dirty_ratio && background_ratio >= dirty_ratio ? dirty_ratio / 2 : background_ratio;
  return r ? MAX(shared_frames() * r / 100, SLACK) : 0;
}

/* Schedules the oldest unscheduled dirty data blocks until at most target are left: the file
 * whose first unscheduled block became dirty first, then its blocks in order. cache_lock held. */
static void schedule_down_to(uint32_t target)
{
  while (st_dirty_data - st_sched_data > target) {
    struct cblock *first = 0;
    for (int i = 0; i < NCFILE; i++) {
      struct cfile *cf = &cfiles[i];
      if (!cf->used || cf->fileid == CACHE_DEV || cf->err || cf->ndirty == cf->nsched)
        continue;           /* a file whose write-back failed waits for its retry, not us */
      struct cblock *b = cf->dhead;
      while (b && (b->flags & CB_SCHED))
        b = b->dnext;
      if (b && (!first || (int32_t)(b->dirtyseq - first->dirtyseq) < 0))
        first = b;
    }
    if (!first)
      return;
    uint32_t need = st_dirty_data - st_sched_data - target;
    for (struct cblock *b = first; b && need > 0; b = b->dnext)
      if (!(b->flags & CB_SCHED)) {
        schedule(b);
        st_bound_sched++;
        need--;
      }
  }
}

void dirty_bound_added(void)
{
  if (st_dirty > st_dirty_max)
    st_dirty_max = st_dirty;
  if (!cache_have_cleaners)
    return;                 /* the host harness, or before they start: syncs write all */
  uint32_t bg = background();
  if (bg && st_dirty_data - st_sched_data > bg)
    schedule_down_to(bg - SLACK);
}

void dirty_bound_written(void)
{
  written++;
  wakeup(&written);
}

void dirty_bound_tick(void)
{
  acquire(&cache_lock);
  wakeup(&written);         /* a throttled writer looks at the time */
  release(&cache_lock);
}

void dirty_throttle(struct cblock *b)
{
  uint32_t limit = upper();
  if (!limit || b->fileid == CACHE_DEV || (b->flags & CB_DIRTY) || !cache_have_cleaners ||
      st_dirty + META_MARGIN < limit)
    return;
  uint32_t t0 = uptime_ms(), progress = t0, seen = written;
  st_throttled++;
  while (st_dirty + META_MARGIN >= limit && st_dirty_data > 0) {
    uint32_t bg = background();
    schedule_down_to(bg && bg < limit ? bg - MIN(bg, SLACK) : limit / 2);
    struct proc *p = myproc();
    if (p && p->killed)
      break;
    sleep(&written, &cache_lock);
    if (written != seen) {
      seen = written;
      progress = uptime_ms();
    } else if (uptime_ms() - progress >= STALL_MS) {
      st_stalls++;
      break;
    }
    limit = upper();
    if (!limit)
      break;
  }
  st_throttle_ms += uptime_ms() - t0;
}

void dirty_bound_reset(void)
{
  st_dirty_max = st_dirty;
}

/* --- settings and counters --------------------------------------------------------------- */

static uint32_t upper_blocks(void) { return upper(); }
static uint32_t background_blocks(void) { return background(); }

static const struct setting settings[] = {
  { "fs.dirty_background_ratio",
    "percent of shared memory in dirty blocks above which the cleaners write the oldest at once, whatever their age (0: only by age)",
    &background_ratio, 0, 100, 0, 0 },
  { "fs.dirty_ratio",
    "percent of shared memory in dirty blocks above which a writer waits for the cleaners (0: no bound, as Sprite)",
    &dirty_ratio, 0, 100, 0, 0 },
};

static const struct counter counters[] = {
  COUNTER("fs.dirty.max", &st_dirty_max),
  COUNTER_FN("fs.dirty.limit", upper_blocks),
  COUNTER_FN("fs.dirty.background", background_blocks),
  COUNTER("fs.dirty.data", &st_dirty_data),
  COUNTER("fs.dirty.scheduled", &st_bound_sched),
  COUNTER("fs.dirty.throttled", &st_throttled),
  COUNTER("fs.dirty.throttle_ms", &st_throttle_ms),
  COUNTER("fs.dirty.stalls", &st_stalls),
};

void dirty_bound_init(void)
{
  setting_register_table(settings, NELEM(settings));
  stat_register_table(counters, NELEM(counters));
}
