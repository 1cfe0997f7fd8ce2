/* The write-back daemon and the block cleaners (Sprite thesis 3.5).
 *
 * The daemon wakes every fs.scan_interval seconds and schedules every block dirty for
 * fs.writeback_delay seconds, from its oldest unsaved change (descriptor blocks: fs.desc_delay, so the
 * descriptors of one directory, allocated side by side, go out together and soon). The
 * files with scheduled blocks wait on the cache's dirty-file queue; a small pool of
 * cleaner threads takes them one at a time, each file to one cleaner, and writes its
 * scheduled blocks with several requests in flight (fs/cache.c, clean_file).
 *
 * Each scan writes data before the metadata that names it, with a flush between and after
 * (see scan() below and fs/ordering.c), and then lets go of the blocks and descriptors
 * freed long enough ago (fs/inode.c, pending frees).
 *
 * All three times are run-time settings (sysctl) and boot keys (the kernel command line).
 */
#include "fs/cache.h"
#include "fs/internal.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/sysctl.h"
#include "kernel/stats.h"

#define NCLEANERS 3

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
    while (uptime_ms() - start < scan_interval * 1000u)
      sleep_ms(MIN(100u, scan_interval * 1000u));
    scan();
  }
}

static void cleaner_main(void *arg)
{
  (void)arg;
  for (;;)
    cache_clean_next();
}

void cleaner_init(void)
{
  for (uint32_t i = 0; i < NELEM(settings); i++)
    setting_register(&settings[i]);
  stat_register("fs.cleaner.scans", &st_scans);
}

void cleaner_start(void)
{
  if (kthread_create("fsflushd", daemon_main, 0) < 0)
    return;                   /* no threads (the host harness): syncs write everything */
  int n = 0;
  for (int i = 0; i < NCLEANERS; i++)
    if (kthread_create("fscleaner", cleaner_main, 0) >= 0)
      n++;
  cache_have_cleaners = n > 0;
}
