/* The disk's ceiling: the most a sequential transfer can get from this disk, measured by the
 * kernel with no file system in the way, so that the file system's own sequential reads and
 * writes can be held against it in the same run (tools/bench/bench_fs.py, `fsbench seq`).
 *
 * `sysctl disk.ceiling_kb=N` moves N KB between the disk and memory in 64 KB requests (16
 * buffers of one frame each, as a cluster of cache blocks is), one request at a time, first
 * reading them, then writing the same bytes back where they came from followed by a flush
 * (as an fsync ends), and records how long each direction took: disk.ceiling.read_ms and
 * disk.ceiling.write_ms. One request at a time is what a sequential reader or an fsync of
 * this kernel keeps in flight too; the figure is the ceiling for that, not for a disk kept
 * busy by many requests at once.
 *
 * Where: the disk's tail past the file system (fs/super.c tells the driver at mount with
 * disk_set_spare), which nothing else reads or writes; the benchmark boots on an image made
 * larger than its file system. A disk without N KB there refuses with ENOSPC and says so.
 */
#include "kernel/types.h"
#include "kernel/memlayout.h"
#include "kernel/klib.h"
#include "kernel/time.h"
#include "kernel/sysctl.h"
#include "kernel/stats.h"
#include "kernel/mem/coremap.h"
#include "kernel/uapi/errno.h"
#include "drivers/disk.h"

#define CHUNK_KB 64
#define CHUNK_PAGES (CHUNK_KB * 1024 / PGSIZE)
_Static_assert(CHUNK_PAGES <= DISK_MAX_SEGS, "a chunk is one request");

static uint64_t spare_from;         /* first sector past the file system; 0: not told */
static uint32_t ceiling_kb, st_read_ms, st_write_ms;

void disk_set_spare(uint64_t first_sector)
{
  spare_from = first_sector;
}

/* One pass over [from, from + n sectors) in 64 KB requests, one at a time. */
static int pass(enum disk_op op, uint64_t from, uint32_t kb, struct disk_seg *segs)
{
  for (uint32_t done = 0; done < kb; done += CHUNK_KB) {
    struct disk_req r;
    memset(&r, 0, sizeof r);
    r.op = op;
    r.sector = from + (uint64_t)done * 1024 / SECTOR_SIZE;
    r.segs = segs;
    r.nsegs = CHUNK_PAGES;
    r.nbytes = CHUNK_KB * 1024;
    disk_submit(&r);
    if (disk_wait(&r) < 0)
      return -EIO;
  }
  return 0;
}

static int measure(uint32_t kb)
{
  if (kb == 0)
    return 0;                 /* nothing to move (and the boot key's harmless value) */
  if (kb % CHUNK_KB)
    return -EINVAL;
  uint64_t spare_kb = spare_from && disk_sectors() > spare_from ?
                      (disk_sectors() - spare_from) * SECTOR_SIZE / 1024 : 0;
  if (disk_max_segs() < CHUNK_PAGES || spare_kb < kb) {
    kprintf("disk.ceiling: %u KB past the file system, %u asked for (the image must be larger "
            "than its file system)\n", (uint32_t)spare_kb, kb);
    return -ENOSPC;
  }
  struct disk_seg segs[CHUNK_PAGES];
  int n = 0, err = 0;
  for (; n < CHUNK_PAGES; n++) {
    if (!(segs[n].buf = kalloc_page())) {
      err = -ENOMEM;
      break;
    }
    segs[n].nbytes = PGSIZE;
  }
  /* The write puts back what the last read chunk held, everywhere: the tail is nobody's, so
   * what lands there does not matter, only that the same bytes move. */
  uint32_t t0 = uptime_ms();
  if (!err)
    err = pass(DISK_READ, spare_from, kb, segs);
  uint32_t t1 = uptime_ms();
  if (!err)
    err = pass(DISK_WRITE, spare_from, kb, segs);
  if (!err)
    err = disk_rw(DISK_FLUSH, 0, 0, 0) < 0 ? -EIO : 0;
  uint32_t t2 = uptime_ms();
  while (n > 0)
    kfree_page(segs[--n].buf);
  if (err)
    return err;
  ceiling_kb = kb;
  st_read_ms = t1 - t0;
  st_write_ms = t2 - t1;
  return 0;
}

static void get_ceiling(char *out, int len) { snprintf(out, len, "%u", ceiling_kb); }

static int set_ceiling(const char *v)
{
  uint32_t kb;
  if (parse_uint(v, &kb) < 0)
    return -EINVAL;
  return measure(kb);
}

static const struct setting ceiling_setting = {
  "disk.ceiling_kb", "write N (a multiple of 64): read N KB past the file system and write it back, "
  "64 KB a request, timed (disk.ceiling.read_ms, disk.ceiling.write_ms)", 0, 0, 0, get_ceiling, set_ceiling,
};

static const struct counter counters[] = {
  COUNTER("disk.ceiling.read_ms", &st_read_ms),
  COUNTER("disk.ceiling.write_ms", &st_write_ms),
};

void disk_ceiling_init(void)
{
  setting_register(&ceiling_setting);
  stat_register_table(counters, NELEM(counters));
}
