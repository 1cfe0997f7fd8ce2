/* The disk driver's self-test, run only with `disktest=1` (or `disktest=rw`) on the kernel
 * command line (tests/qemu/test_disk.py).
 *
 * It runs twice: once inside disk_init, before the scheduler, where waiting means halting
 * for the interrupt; once in a kernel thread, where waiting means sleeping. Both check
 * synchronous reads, a batch of asynchronous reads larger than the ring (so submitters must
 * wait for free slots) with completion callbacks, a two-page request, a request gathering
 * two pages that lie apart (two buffers, in reverse order of their addresses), reads past the end
 * (which must fail with -EIO), and with `rw` a write / flush / read-back at the end of the
 * disk whose old contents are put back afterwards.
 *
 * Its buffers and requests (over a hundred pages) are kernel pages (kalloc_page), taken
 * while it runs and given back, not .bss the kernel would carry for a test that seldom runs.
 * It uses the driver through drivers/disk.h, but for two counters it reads and sets
 * (drivers/virtio_blk.h). */
#include "kernel/types.h"
#include "kernel/klib.h"
#include "kernel/memlayout.h"
#include "kernel/time.h"
#include "kernel/cmdline.h"
#include "kernel/uapi/errno.h"
#include "kernel/mem/coremap.h"
#include "drivers/disk.h"
#include "drivers/virtio_blk.h"

#define TEST_NREQ 90              /* more than the ring's 85 slots */
_Static_assert(TEST_NREQ * sizeof(struct disk_req) <= PGSIZE, "test requests fit a page");

static uint32_t test_callbacks;
static void test_done(struct disk_req *r) { (void)r; test_callbacks++; }

static int test_fail(const char *ctx, const char *what, int i)
{
  kprintf("disktest(%s): FAIL %s (%d)\n", ctx, what, i);
  return 1;
}

static void disktest_run(const char *ctx, bool rw)
{
  char *bufs[TEST_NREQ];
  int fails = 0, n = 0;
  char *a = kalloc_page(), *b = kalloc_page();
  struct disk_req *reqs = kalloc_page();   /* kept off the kernel's .bss: test only */
  if (!a || !b || !reqs)
    panic("disktest: out of memory");

  uint64_t cap = disk_sectors();
  uint32_t nsec = PGSIZE / SECTOR_SIZE;
  uint32_t nreq = MIN((uint32_t)TEST_NREQ, (uint32_t)(cap / nsec));

  /* Synchronous reads of the same block agree. */
  if (cap >= nsec) {
    if (disk_rw(DISK_READ, 0, a, PGSIZE) != 0) fails += test_fail(ctx, "read 0", 0);
    if (disk_rw(DISK_READ, 0, b, PGSIZE) != 0) fails += test_fail(ctx, "read 0 again", 0);
    if (memcmp(a, b, PGSIZE) != 0) fails += test_fail(ctx, "two reads differ", 0);
  }

  /* A batch bigger than the ring, all in flight at once, then each checked against a
   * synchronous read of the same block. */
  for (n = 0; n < (int)nreq; n++)
    if (!(bufs[n] = kalloc_page()))
      break;
  uint32_t cb0 = test_callbacks, max0 = st_inflight_max, t0 = uptime_ms();
  st_inflight_max = 0;
  for (int i = 0; i < n; i++) {
    memset(&reqs[i], 0, sizeof reqs[i]);
    memset(bufs[i], 0xA5, PGSIZE);
    reqs[i].op = DISK_READ;
    reqs[i].sector = (uint64_t)i * nsec;
    reqs[i].buf = bufs[i];
    reqs[i].nbytes = PGSIZE;
    reqs[i].done = test_done;
    disk_submit(&reqs[i]);
  }
  for (int i = 0; i < n; i++)
    if (disk_wait(&reqs[i]) != 0 || !reqs[i].complete)
      fails += test_fail(ctx, "batch read", i);
  uint32_t t1 = uptime_ms();
  if (test_callbacks - cb0 != (uint32_t)n)
    fails += test_fail(ctx, "callbacks", test_callbacks - cb0);
  for (int i = 0; i < n; i++) {
    if (disk_rw(DISK_READ, (uint64_t)i * nsec, a, PGSIZE) != 0 || memcmp(a, bufs[i], PGSIZE) != 0)
      fails += test_fail(ctx, "batch data", i);
  }
  /* On an image made for this test, every sector begins with "DISKTEST" and then its own
   * sector number (32-bit little-endian): checking them shows sector addressing is right. */
  if (n > 0 && memcmp(bufs[0], "DISKTEST", 8) == 0) {
    for (int i = 0; i < n; i++)
      for (uint32_t k = 0; k < nsec; k++)
        if (*(uint32_t *)(bufs[i] + k * SECTOR_SIZE + 8) != i * nsec + k)
          fails += test_fail(ctx, "pattern", i * nsec + k);
    kprintf("disktest(%s): pattern image checked\n", ctx);
  }
  kprintf("disktest(%s): %d async 4 KB reads in %u ms, %u in flight at most\n",
          ctx, n, t1 - t0, st_inflight_max);
  if (st_inflight_max > max0)
    max0 = st_inflight_max;
  st_inflight_max = max0;

  /* A request over two physically adjacent pages, compared with two one-page reads. */
  char *pair = 0;
  for (int i = 0; i + 1 < n && !pair; i++)
    for (int j = 0; j < n && !pair; j++)
      if (bufs[j] == bufs[i] + PGSIZE)
        pair = bufs[i];
  if (pair && cap >= 4 * nsec) {
    if (disk_rw(DISK_READ, nsec, pair, 2 * PGSIZE) != 0) fails += test_fail(ctx, "8 KB read", 0);
    disk_rw(DISK_READ, nsec, a, PGSIZE);
    disk_rw(DISK_READ, 2 * nsec, b, PGSIZE);
    if (memcmp(pair, a, PGSIZE) || memcmp(pair + PGSIZE, b, PGSIZE))
      fails += test_fail(ctx, "8 KB data", 0);
  }

  /* One request gathering two buffers that are not adjacent, the later disk block first in
   * memory: each must get its own block (compared with the one-page reads of the pair). */
  if (pair && disk_max_segs() >= 2 && n >= 2) {
    char *hi = bufs[n - 1], *lo = bufs[n - 2];
    struct disk_seg segs[2] = { { hi, PGSIZE }, { lo, PGSIZE } };
    struct disk_req r;
    memset(&r, 0, sizeof r);
    r.op = DISK_READ;
    r.sector = nsec;
    r.segs = segs;
    r.nsegs = 2;
    r.nbytes = 2 * PGSIZE;
    disk_submit(&r);
    if (disk_wait(&r) != 0) fails += test_fail(ctx, "gathered read", 0);
    if (memcmp(hi, a, PGSIZE) || memcmp(lo, b, PGSIZE))
      fails += test_fail(ctx, "gathered data", 0);
  }

  /* Past the end: the device refuses, we report -EIO. */
  if (disk_rw(DISK_READ, cap, a, SECTOR_SIZE) != -EIO) fails += test_fail(ctx, "read at end", 0);
  if (cap >= 1 && disk_rw(DISK_READ, cap - 1, a, 2 * SECTOR_SIZE) != -EIO)
    fails += test_fail(ctx, "read across end", 0);
  if (disk_rw(DISK_FLUSH, 0, 0, 0) != 0) fails += test_fail(ctx, "flush", 0);

  /* Write, flush, read back, restore: the last 8 KB of the disk. */
  if (rw && pair && cap >= 64) {
    uint64_t s = cap - 2 * nsec;
    char *save = kalloc_page(), *save2 = b;
    if (!save)
      panic("disktest: out of memory");
    disk_rw(DISK_READ, s, save, PGSIZE);
    disk_rw(DISK_READ, s + nsec, save2, PGSIZE);
    for (int i = 0; i < 2 * PGSIZE; i++)
      pair[i] = (char)(i * 7 + 3);
    if (disk_rw(DISK_WRITE, s, pair, 2 * PGSIZE) != 0) fails += test_fail(ctx, "write", 0);
    if (disk_rw(DISK_FLUSH, 0, 0, 0) != 0) fails += test_fail(ctx, "flush after write", 0);
    memset(a, 0, PGSIZE);
    disk_rw(DISK_READ, s + nsec, a, PGSIZE);
    if (memcmp(a, pair + PGSIZE, PGSIZE) != 0) fails += test_fail(ctx, "read back", 0);
    disk_rw(DISK_WRITE, s, save, PGSIZE);
    disk_rw(DISK_WRITE, s + nsec, save2, PGSIZE);
    disk_rw(DISK_FLUSH, 0, 0, 0);
    disk_rw(DISK_READ, s + nsec, a, PGSIZE);
    if (memcmp(a, save2, PGSIZE) != 0) fails += test_fail(ctx, "restore", 0);
    kfree_page(save);
  }

  for (int i = 0; i < n; i++)
    kfree_page(bufs[i]);
  kfree_page(a);
  kfree_page(b);
  kfree_page(reqs);
  kprintf("disktest(%s): %s, %u requests so far, %u in flight now\n", ctx,
          fails ? "FAILED" : "ok", st_requests, disk_inflight());
}

static bool disktest_rw;
static bool disktest_on;

/* The sleeping variant runs in the first process before the file system is mounted, so no
 * one else uses the disk meanwhile and blocks read twice must agree. */
void disk_selftest_in_process(void)
{
  if (disktest_on)
    disktest_run("sleeping", disktest_rw);
}

void disktest_start(void)
{
  const char *t = cmdline_get("disktest", 0);
  if (!t || !disk_present())
    return;
  disktest_rw = strcmp(t, "rw") == 0;
  disktest_run("halting", disktest_rw);
  disktest_on = true;
}
