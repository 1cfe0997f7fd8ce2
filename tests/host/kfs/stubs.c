/* The kernel services the file system uses, for running the real fs/ and kernel/pipe.c code
 * as a host program (a static i686 executable, so that pointers are 32 bits like the
 * kernel's).
 *
 * One process, no scheduler: anything that would sleep would sleep forever, so sleep()
 * aborts with a message; so does a sleeplock found held (a self-deadlock in the kernel).
 * The disk is an image file; cache frames live at 0xC0000000 like the kernel's direct map
 * (frame_va() computes that address); "user memory" is one static buffer, and a user
 * pointer outside it gives -EFAULT.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/uapi/stat.h"
#include "kernel/proc.h"
#include "kernel/sysctl.h"
#include "kernel/sleeplock.h"
#include "kernel/uapi/errno.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "kernel/stats.h"
#include "drivers/disk.h"
#include "kfs.h"
#include "hostio.h"

/* --- klib -------------------------------------------------------------------------------- */

int kfs_quiet;
char kfs_log[1 << 16];          /* everything kprintf said, for tests to search */
static size_t kfs_loglen;

void kprintf(const char *fmt, ...)
{
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (!kfs_quiet)
    fputs(buf, stdout);
  size_t n = strlen(buf);
  if (kfs_loglen + n < sizeof(kfs_log)) {
    memcpy(kfs_log + kfs_loglen, buf, n + 1);
    kfs_loglen += n;
  }
}

void kfs_log_clear(void)
{
  kfs_loglen = 0;
  kfs_log[0] = 0;
}

void panic(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  printf("kernel panic: ");
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  abort();
}

/* --- locks and processes ----------------------------------------------------------------- */

static struct proc theproc;
struct proc *myproc(void) { return &theproc; }

void initlock(struct spinlock *lk, const char *name) { lk->locked = 0; lk->name = name; }
void acquire(struct spinlock *lk)
{
  if (lk->locked)
    panic("acquire %s: already held", lk->name);
  lk->locked = 1;
}
void release(struct spinlock *lk)
{
  if (!lk->locked)
    panic("release %s: not held", lk->name);
  lk->locked = 0;
}
int holding(struct spinlock *lk) { return lk->locked; }
void pushcli(void) {}
void popcli(void) {}

void initsleeplock(struct sleeplock *lk, const char *name)
{
  lk->locked = 0;
  lk->pid = 0;
  lk->name = name;
  lk->rank = LOCK_UNRANKED;
  initlock(&lk->lk, "sleeplock");
}
void initsleeplock_ranked(struct sleeplock *lk, const char *name, enum lock_rank rank)
{
  initsleeplock(lk, name);
  lk->rank = rank;
}
/* The lock order is checked here as in the kernel (kernel/sleeplock.c), and a violation is
 * fatal: the one process here takes the same paths in the same order every run. */
static uint32_t ranks_held;
void acquiresleep(struct sleeplock *lk)
{
  if (lk->locked)
    panic("acquiresleep %s: already held (the only process would wait forever)", lk->name);
  if (lk->rank != LOCK_UNRANKED && (ranks_held & ~((2u << lk->rank) - 1)))
    panic("lock order: %s taken while holding a lock of a larger rank (kernel/mem/coremap.h)", lk->name);
  lk->locked = 1;
  lk->pid = 1;
  if (lk->rank != LOCK_UNRANKED)
    ranks_held |= 1u << lk->rank;
}
void releasesleep(struct sleeplock *lk)
{
  if (!lk->locked)
    panic("releasesleep %s: not held", lk->name);
  lk->locked = 0;
  if (lk->rank != LOCK_UNRANKED)
    ranks_held &= ~(1u << lk->rank);
}
int holdingsleep(struct sleeplock *lk) { return lk->locked; }

void (sleep)(void *chan, struct spinlock *lk, const char *what)
{
  (void)lk;
  panic("sleep on %s (%p): the only process would sleep forever", what, chan);
}
void wakeup(void *chan) { (void)chan; }
void yield(void) { }              /* one process: nobody else to run */

static uint32_t now_ms;
uint32_t uptime_ms(void) { return now_ms += 1; }

void machine_poweroff(int failure)
{
  printf("POWEROFF %d\n", failure);
  fflush(stdout);
  exit(failure ? 3 : 0);
}

/* --- settings and counters --------------------------------------------------------------- */

char *safestrcpy(char *dst, const char *src, size_t n)
{
  if (n > 0)
    snprintf(dst, n, "%s", src);
  return dst;
}

int parse_uint(const char *s, uint32_t *out)
{
  char *end;
  if (!*s)
    return -1;
  unsigned long v = strtoul(s, &end, 0);
  if (*end)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

/* kfs_setting("fs.write_policy", "through") plays sysctl, through the kernel's own table
 * (kernel/sysctl.c); KFS_CMDLINE="fs.cache_max_kb=64 ..." plays the kernel command line. */
int kfs_setting(const char *name, const char *value)
{
  char out[256];
  return sysctl(name, value, out, sizeof out);
}

uint32_t kfs_setting_value(const char *name)
{
  char out[256];
  if (sysctl(name, 0, out, sizeof out) < 0)
    panic("no setting %s", name);
  return (uint32_t)strtoul(out, 0, 10);
}

/* No scheduler: no kernel threads. The cache then writes everything itself on sync. */
int kthread_create(const char *name, void (*fn)(void *), void *arg)
{
  (void)name; (void)fn; (void)arg;
  return -1;
}
void sleep_ms(uint32_t ms) { (void)ms; panic("sleep_ms: the only process would sleep"); }

static struct { const char *name; const uint32_t *value; uint32_t (*get)(void); } stats[128];
static int nstats;
void stat_register_table(const struct counter *c, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++) {
    stats[nstats].name = c[i].name;
    stats[nstats].value = c[i].value;
    stats[nstats].get = c[i].get;
    nstats++;
  }
}
uint32_t kfs_stat(const char *name)
{
  for (int i = 0; i < nstats; i++)
    if (strcmp(stats[i].name, name) == 0)
      return stats[i].get ? stats[i].get() : *stats[i].value;
  panic("no counter %s", name);
  return 0;
}

/* --- the core map ------------------------------------------------------------------------ */

#define NFRAMES 2048
static struct frame frames[NFRAMES];
struct frame *coremap = frames;
uint32_t nframes = NFRAMES;
static struct frame *freelist;
uint32_t kfs_frames_used;

void kfs_memory_init(void)
{
  if (hostio_map(0xC0000000u, NFRAMES * 4096u) < 0)
    exit(2);
  for (int i = NFRAMES - 1; i >= 0; i--) {
    frames[i].pool = POOL_FREE;
    frames[i].next = freelist;
    freelist = &frames[i];
  }
}

struct frame *frame_alloc(enum frame_pool pool, bool zero)
{
  struct frame *f = freelist;
  if (!f)
    return 0;
  freelist = f->next;
  f->pool = (uint8_t)pool;
  f->flags = 0;
  f->owner = 0;
  f->next = f->prev = 0;
  kfs_frames_used++;
  if (zero)
    memset(frame_va(f), 0, 4096);
  return f;
}

uint32_t frame_total(void) { return NFRAMES; }
uint32_t frame_count(enum frame_pool pool)
{
  uint32_t n = 0;
  for (int i = 0; i < NFRAMES; i++)
    n += frames[i].pool == pool;
  return n;
}

/* No VM to trade with: the cache registers its answers, nobody asks them. */
void neg_register_pool(enum neg_pool pool, const struct pool_ops *ops) { (void)pool; (void)ops; }

/* Free frames while more than a kernel reserve are left. */
struct frame *neg_getframe(enum neg_pool asker, enum neg_verdict *verdict)
{
  *verdict = NEG_OWN;
  return NFRAMES - kfs_frames_used > 64 ? frame_alloc(neg_frame_pool(asker), false) : 0;
}
/* No negotiation to learn for: the cache's refaults go unremembered. */
void refault_gave(enum neg_pool pool, uint32_t key, uint32_t lastref_ms) { (void)pool; (void)key; (void)lastref_ms; }
void refault_missed(enum neg_pool pool, uint32_t key) { (void)pool; (void)key; }

/* Nobody answers busy here: an asker never waits. */
bool neg_wait_clean(uint32_t *waited_ms) { (void)waited_ms; return false; }
void neg_note_clean(void) { }

void frame_free(struct frame *f)
{
  if (f->pool == POOL_FREE || (f->flags & FRAME_BUSY))
    panic("frame_free: bad frame");
  f->pool = POOL_FREE;
  f->next = freelist;
  freelist = f;
  kfs_frames_used--;
}

bool frame_try_busy(struct frame *f)
{
  bool was = f->flags & FRAME_BUSY;
  f->flags |= FRAME_BUSY;
  return !was;
}
void frame_unbusy(struct frame *f)
{
  if (!(f->flags & FRAME_BUSY))
    panic("frame_unbusy: not busy");
  f->flags &= ~FRAME_BUSY;
}
void frame_wait(struct frame *f, struct spinlock *lk)
{
  (void)lk;
  if (f->flags & FRAME_BUSY)
    panic("frame_wait: busy (would wait forever)");
}

void *kalloc_page(void)
{
  struct frame *f = frame_alloc(POOL_KERNEL, true);
  return f ? frame_va(f) : 0;
}
void kfree_page(void *va)
{
  frame_free(&coremap[((uint32_t)va - 0xC0000000u) >> 12]);
}

/* --- the disk ---------------------------------------------------------------------------- */

static int disk_fd = -1;
static uint64_t disk_bytes;
uint32_t kfs_disk_reads, kfs_disk_writes;
long kfs_fail_writes_after = -1;   /* >= 0: writes after this many fail with -EIO */
long kfs_fail_read_block = -1;     /* >= 0: reads of this block fail */

void kfs_disk_open(const char *path)
{
  disk_fd = hostio_open(path, &disk_bytes);
  if (disk_fd < 0)
    exit(2);
  hostio_log_writes();
}

bool disk_present(void) { return disk_fd >= 0; }
uint64_t disk_sectors(void) { return disk_bytes / SECTOR_SIZE; }

uint32_t kfs_disk_flushes;

int disk_rw(enum disk_op op, uint64_t sector, void *buf, uint32_t nbytes)
{
  if (disk_fd < 0)
    return -EIO;
  if (op == DISK_FLUSH) {
    kfs_disk_flushes++;
    return 0;
  }
  if ((sector * SECTOR_SIZE + nbytes) > disk_bytes)
    panic("disk_rw: sector %llu beyond the disk", (unsigned long long)sector);
  if ((uint32_t)buf < 0xC0000000u)
    panic("disk_rw: buffer %p is not in the direct map", buf);
  uint64_t off = sector * SECTOR_SIZE;
  if (op == DISK_READ) {
    kfs_disk_reads++;
    if (kfs_fail_read_block >= 0 && (long)(sector / 8) == kfs_fail_read_block)
      return -EIO;
    return hostio_pread(disk_fd, buf, nbytes, off) == 0 ? 0 : -EIO;
  }
  if (kfs_fail_writes_after >= 0 && (long)kfs_disk_writes >= kfs_fail_writes_after)
    return -EIO;
  kfs_disk_writes++;
  hostio_wrote(off, nbytes);
  return hostio_pwrite(disk_fd, buf, nbytes, off) == 0 ? 0 : -EIO;
}

/* --- user memory and system-call arguments ----------------------------------------------- */

static uint8_t uspace[24 << 20] __attribute__((aligned(4096)));
static uint32_t ubrk;
uint32_t kfs_args[6];

uint32_t ualloc(uint32_t n)
{
  n = (n + 15) & ~15u;
  if (ubrk + n > sizeof(uspace))
    panic("ualloc: user space exhausted");
  uint32_t a = (uint32_t)(uspace + ubrk);
  ubrk += n;
  return a;
}
void ureset(void) { ubrk = 0; }
uint32_t ustr(const char *s)
{
  uint32_t a = ualloc((uint32_t)strlen(s) + 1);
  strcpy((char *)a, s);
  return a;
}
static bool uok(uint32_t a, uint32_t n)
{
  uint32_t lo = (uint32_t)uspace, hi = lo + sizeof(uspace);
  return a >= lo && a <= hi && n <= hi - a;
}

uint32_t argraw(int n) { return kfs_args[n]; }
int argint(int n) { return (int)kfs_args[n]; }
int argptr(int n, void **pp, uint32_t size)
{
  if (!uok(kfs_args[n], size))
    return -EFAULT;
  *pp = (void *)kfs_args[n];
  return 0;
}
int copy_to_user(uint32_t udst, const void *src, uint32_t n)
{
  if (!uok(udst, n))
    return -EFAULT;
  memcpy((void *)udst, src, n);
  return 0;
}
int copy_from_user(void *dst, uint32_t usrc, uint32_t n)
{
  if (!uok(usrc, n))
    return -EFAULT;
  memcpy(dst, (void *)usrc, n);
  return 0;
}
int argstr(int n, char *buf, uint32_t max)
{
  uint32_t a = kfs_args[n];
  for (uint32_t i = 0; i < max; i++) {
    if (!uok(a + i, 1))
      return -EFAULT;
    buf[i] = *(char *)(a + i);
    if (buf[i] == 0)
      return (int)i;
  }
  return -ENAMETOOLONG;
}
int either_copyout(bool user, uint32_t dst, const void *src, uint32_t n)
{
  if (user)
    return copy_to_user(dst, src, n);
  memcpy((void *)dst, src, n);
  return 0;
}
int either_copyin(bool user, void *dst, uint32_t src, uint32_t n)
{
  if (user)
    return copy_from_user(dst, src, n);
  memcpy(dst, (void *)src, n);
  return 0;
}

/* --- the console ------------------------------------------------------------------------- */

int console_read(uint32_t udst, uint32_t n) { (void)udst; (void)n; return 0; }
int console_write(uint32_t usrc, uint32_t n)
{
  if (!uok(usrc, n))
    return -EFAULT;
  fwrite((void *)usrc, 1, n, stdout);
  return (int)n;
}

/* Requests complete at once: submit does the I/O, wait returns its status. A request that
 * gathers several buffers is their I/Os one after another, each counted. */
uint32_t kfs_disk_requests;
uint32_t disk_max_segs(void) { return DISK_MAX_SEGS; }
void disk_set_spare(uint64_t first_sector) { (void)first_sector; }
void disk_submit(struct disk_req *r)
{
  kfs_disk_requests++;
  if (r->nsegs == 0) {
    r->status = disk_rw(r->op, r->sector, r->buf, r->nbytes);
  } else {
    uint64_t sector = r->sector;
    r->status = 0;
    for (uint32_t i = 0; i < r->nsegs && r->status == 0; i++) {
      r->status = disk_rw(r->op, sector, r->segs[i].buf, r->segs[i].nbytes);
      sector += r->segs[i].nbytes / SECTOR_SIZE;
    }
  }
  r->complete = 1;
  if (r->done)
    r->done(r);
}
int disk_wait(struct disk_req *r) { return r->status; }
