/* The delayed-write daemon (fsflushd) and the block cleaners (fscleaner): when a dirty block
 * goes to the disk (Sprite thesis 3.5; fs/writeback.c keeps the dirty lists and writes).
 *
 * The daemon wakes every fs.scan_interval seconds and schedules every block dirty for
 * fs.writeback_delay seconds, counted from its oldest unsaved change so that a block changed
 * over and over still goes out (descriptor blocks: fs.desc_delay, so the descriptors of one
 * directory, allocated side by side, go out together and soon). The files with scheduled
 * blocks wait on the dirty-file queue; a small pool of cleaner threads takes them one at a
 * time, each file to one cleaner, and writes its scheduled blocks (clean_file).
 *
 * Each scan writes data before the metadata that names it, with a flush between and after
 * (scan() below, fs/ordering.c), and then lets go of the blocks and descriptors freed long
 * enough ago (fs/alloc.c, pending frees). All three times are run-time settings (sysctl) and
 * boot keys (the kernel command line). The locking is the cache's (fs/cache.c).
 */
#include "fs/cache_internal.h"
#include "fs/internal.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/errno.h"
#include "fs/ordering.h"

#define NCLEANERS 3

/* What a scan schedules or waits for: files' blocks, device blocks, or both. */
enum sched_class { SCHED_DATA, SCHED_META, SCHED_ALL };

/* --- scheduling: the dirty-file queue ---------------------------------------------------- */

static struct cfile *qhead, *qtail; /* files with scheduled blocks */

void enqueue(struct cfile *cf)
{
  if (cf->queued || cf->cleaning || cf->nsched == 0)
    return;
  cf->queued = true;
  cf->qnext = 0;
  if (qtail)
    qtail->qnext = cf;
  else
    qhead = cf;
  qtail = cf;
  wakeup(&qhead);
}

void schedule(struct cblock *b)
{
  if (!(b->flags & CB_DIRTY) || (b->flags & CB_SCHED))
    return;
  b->flags |= CB_SCHED;
  b->cf->nsched++;
  st_sched_data += b->fileid != CACHE_DEV;
  enqueue(b->cf);
}

static bool in_class(struct cfile *cf, enum sched_class which)
{
  return which == SCHED_ALL || (cf->fileid == CACHE_DEV) == (which == SCHED_META);
}

static void cache_schedule_old(uint32_t delay_ms, uint32_t desc_delay_ms, enum sched_class which)
{
  acquire(&cache_lock);
  uint32_t now = uptime_ms();
  for (int i = 0; i < NCFILE; i++) {
    struct cfile *cf = &cfiles[i];
    if (!cf->used || cf->ndirty == 0 || !in_class(cf, which))
      continue;
    for (struct cblock *b = cf->dhead; b; b = b->dnext) {
      if (b->flags & CB_SCHED)
        continue;
      bool desc = b->fileid == CACHE_DEV && b->blockno >= cache_desc_lo && b->blockno < cache_desc_hi;
      if (now - b->modified >= (desc ? desc_delay_ms : delay_ms))
        schedule(b);
    }
    enqueue(cf);              /* also files whose scheduled blocks were held last time */
  }
  release(&cache_lock);
}

static void cache_wait_scheduled(enum sched_class which, uint32_t timeout_ms)
{
  uint32_t start = uptime_ms();
  for (;;) {
    bool busy = false;
    acquire(&cache_lock);
    for (int i = 0; i < NCFILE && !busy; i++) {
      struct cfile *cf = &cfiles[i];
      busy = cf->used && in_class(cf, which) && (cf->nsched > 0 || cf->cleaning);
    }
    release(&cache_lock);
    /* A scheduled block someone holds waits for its holder: never for ever. */
    if (!busy || uptime_ms() - start >= timeout_ms)
      return;
    sleep_ms(10);
  }
}

static int cache_clean_next(void)
{
  acquire(&cache_lock);
  while (!qhead)
    sleep(&qhead, &cache_lock);
  struct cfile *cf = qhead;
  qhead = cf->qnext;
  if (!qhead)
    qtail = 0;
  cf->queued = false;
  cf->cleaning = true;
  int written = 0;
  clean_file(cf, false, 0, &written);
  cf->cleaning = false;
  wakeup(cf);
  release(&cache_lock);
  return written;
}

/* Blocks waiting for a cleaner or being written: 0 once the cleaners are idle (a test of
 * fs.write_policy=asap waits for it; dirty blocks not yet old enough do not count). */
uint32_t cache_scheduled(void)
{
  uint32_t n = 0;
  acquire(&cache_lock);
  for (int i = 0; i < NCFILE; i++)
    if (cfiles[i].used)
      n += cfiles[i].nsched;
  FOR_EACH_HEADER(hp, b)
    n += busy(b);
  release(&cache_lock);
  return n;
}

/* --- the write policy's setting: asap and through schedule what waits at once ------------ */

static const char *policy_names[] = { "delay", "through", "asap" };

static void get_policy(char *out, int len) { snprintf(out, len, "%s", policy_names[cache_policy]); }

static int set_policy(const char *v)
{
  for (uint32_t i = 0; i < NELEM(policy_names); i++)
    if (strcmp(v, policy_names[i]) == 0) {
      cache_policy = i;
      if (i != WP_DELAY)
        cache_schedule_old(0, 0, SCHED_ALL);   /* what waits now goes out as the new policy would */
      return 0;
    }
  return -EINVAL;
}

static const struct setting policy_setting = {
  "fs.write_policy", "delay: write back later; through: write() waits for the disk; asap: at once, not waiting",
  0, 0, 0, get_policy, set_policy,
};

/* --- the delayed-write daemon (fsflushd) and the cleaners -------------------------------- */

static uint32_t writeback_delay = 30;   /* seconds */
static uint32_t desc_delay = 5;
static uint32_t scan_interval = 5;
/* Scans finished: tests wait for a number of them (vmstat -w fs.cleaner.scans +N) instead of
 * guessing how many seconds the delays take in the guest. */
static uint32_t st_scans;

static const struct setting settings[] = {
  { "fs.writeback_delay", "seconds a data or indirect block stays dirty before write-back",
    &writeback_delay, 0, 3600, 0, 0 },
  { "fs.desc_delay", "seconds a descriptor block stays dirty before write-back",
    &desc_delay, 0, 3600, 0, 0 },
  { "fs.scan_interval", "seconds between two scans of the write-back daemon",
    &scan_interval, 1, 3600, 0, 0 },
};

/* One scan, in the order a power cut needs (fs/ordering.c): the old data blocks, a flush,
 * then the old descriptor, indirect and bitmap blocks -- among them those held back for a
 * pointer to data that this very flush made durable -- and a flush. What was modified
 * fs.writeback_delay ago is thus on stable storage by the end of the scan that follows. */
static void scan(void)
{
  fs_pending_cut();
  uint32_t wait = scan_interval * 1000u;
  cache_schedule_old(writeback_delay * 1000u, desc_delay * 1000u, SCHED_DATA);
  cache_wait_scheduled(SCHED_DATA, wait);
  if (cache_unflushed())
    cache_flush_disk();
  cache_schedule_old(writeback_delay * 1000u, desc_delay * 1000u, SCHED_META);
  cache_wait_scheduled(SCHED_META, wait);
  if (cache_unflushed())
    cache_flush_disk();
  fs_pending_release();
  st_scans++;
}

static void daemon_main(void *arg)
{
  (void)arg;
  for (;;) {
    /* Sleep in short steps so that a shorter interval set meanwhile takes effect soon. */
    uint32_t start = uptime_ms();
    while (uptime_ms() - start < scan_interval * 1000u) {
      sleep_ms(MIN(100u, scan_interval * 1000u));
      dirty_bound_tick();
    }
    scan();
  }
}

static void cleaner_main(void *arg)
{
  (void)arg;
  for (;;)
    cache_clean_next();
}

static const struct counter counters[] = {
  COUNTER("fs.cleaner.scans", &st_scans),
};

/* The write policy's setting, the daemon's and its counter (writeback_init, before its own). */
void flushd_init(void)
{
  setting_register(&policy_setting);
  setting_register_table(settings, NELEM(settings));
  stat_register_table(counters, NELEM(counters));
}

void writeback_start(void)
{
  if (kthread_create("fsflushd", daemon_main, 0) < 0)
    return;                   /* no threads (the host harness): syncs write everything */
  int n = 0;
  for (int i = 0; i < NCLEANERS; i++)
    if (kthread_create("fscleaner", cleaner_main, 0) >= 0)
      n++;
  cache_have_cleaners = n > 0;
}

