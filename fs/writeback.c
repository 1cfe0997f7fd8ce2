/* Delayed write (Sprite thesis 3.5): the dirty lists, and the writing of dirty blocks.
 *
 * A write only dirties the block (fs.write_policy=delay): it goes on its file's dirty list
 * (struct cfile), in the order the file's blocks became dirty, aged from its oldest unsaved
 * change. When it goes out is fs/flushd.c's: the daemon schedules what is old, and the cleaner
 * threads write each queued file's scheduled blocks sixteen at a time, those side by side on
 * the disk in one request (clean_file, fs/cluster.c). A block scheduled because it reached the
 * LRU head for recycling (fs/cache.c) goes to the free list once clean. Age is not the only
 * reason to write: past a share of memory in dirty blocks the oldest are scheduled at once,
 * and a writer past a greater share waits in cache_dirty (fs/dirtybound.c, the bound on dirty
 * memory Sprite lacked).
 *
 * Data goes out before the metadata that names it (fs/ordering.c); a sync writes in the same
 * order at once (fs/sync.c). A failed write-back leaves the block dirty, names the file on the
 * console and is retried; the file's owner hears of it at fsync or close (thesis 3.5.1). The
 * policy may also be through (write() waits for the disk) or asap (scheduled at once). The
 * locking is the cache's (fs/cache.c).
 */
#include "fs/cache_internal.h"
#include "fs/internal.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/errno.h"
#include "drivers/disk.h"
#include "fs/ordering.h"
#include "kernel/mem/negotiate.h"
#include "fs/cluster.h"
#include "kernel/audit.h"

#define NBATCH  CLUSTER_MAX_BLOCKS  /* blocks a cleaner writes at once: a cluster at most */

/* Why a block was written, for the fs.writebacks counters. */
enum wbclass { WB_DELAYED, WB_FSYNC, WB_RECYCLED };

struct cfile cfiles[NCFILE];        /* the dirty lists: each file's dirty blocks */
uint32_t cache_desc_lo, cache_desc_hi;   /* descriptor blocks */
uint32_t dirtyseq;                  /* blocks dirtied so far: the latest sequence number */
bool cache_have_cleaners;
uint32_t cache_policy = WP_DELAY;

uint32_t st_dirty, st_writes, st_writes_data, st_writes_meta, st_writes_desc;
uint32_t st_flushes, st_wb_delayed, st_wb_recycled, st_wb_fsync, st_wb_errors;
static uint32_t st_data_requests;   /* disk requests that carried data blocks */

/* --- dirty files (cache_lock held) ------------------------------------------------------- */

struct cfile *cf_find(uint32_t fileid, bool create)
{
  struct cfile *free = 0, *idle = 0;
  for (int i = 0; i < NCFILE; i++) {
    struct cfile *cf = &cfiles[i];
    if (cf->used && cf->fileid == fileid)
      return cf;
    if (!cf->used && !free)
      free = cf;
    else if (cf->used && !idle && cf->ndirty == 0 && !cf->queued && !cf->cleaning && !cf->err)
      idle = cf;
  }
  if (!create)
    return 0;
  struct cfile *cf = free ? free : idle;    /* an idle one only loses its name */
  if (cf) {
    memset(cf, 0, sizeof(*cf));
    cf->used = true;
    cf->fileid = fileid;
  }
  return cf;
}

/* Puts a valid block on its file's dirty list. -1 when no file entry is left (the caller
 * then writes it at once). */
static int dirty_add(struct cblock *b)
{
  /* Aged from its oldest unsaved change, not its latest: a block changed again and again
   * (a busy directory) would otherwise never be written, and a power cut could take changes
   * of any age. So a power cut loses nothing older than the delay and a scan. */
  if (b->flags & CB_DIRTY)
    return 0;
  b->modified = uptime_ms();
  struct cfile *cf = cf_find(b->fileid, true);
  if (!cf)
    return -1;
  b->cf = cf;
  b->dnext = 0;
  b->dprev = cf->dtail;
  if (cf->dtail)
    cf->dtail->dnext = b;
  else
    cf->dhead = b;
  cf->dtail = b;
  cf->ndirty++;
  b->flags |= CB_DIRTY;
  b->dirtyseq = ++dirtyseq;
  st_dirty++;
  st_dirty_data += b->fileid != CACHE_DEV;
  dirty_bound_added();
  return 0;
}

void dirty_remove(struct cblock *b)
{
  if (!(b->flags & CB_DIRTY))
    return;
  struct cfile *cf = b->cf;
  if (b->dprev)
    b->dprev->dnext = b->dnext;
  else
    cf->dhead = b->dnext;
  if (b->dnext)
    b->dnext->dprev = b->dprev;
  else
    cf->dtail = b->dprev;
  b->dnext = b->dprev = 0;
  b->cf = 0;
  cf->ndirty--;
  if (b->flags & CB_SCHED) {
    cf->nsched--;
    st_sched_data -= b->fileid != CACHE_DEV;
  }
  b->flags &= ~(CB_DIRTY | CB_SCHED);
  st_dirty--;
  st_dirty_data -= b->fileid != CACHE_DEV;
}

uint32_t cache_ndirty(void)
{
  return st_dirty;
}

/* The dirty lists against the blocks' flags and the count, for the cache's audit (fs/cache.c,
 * cache_lock held). */
int dirty_audit(bool quiet, uint32_t headers)
{
  int bad = 0;
  uint32_t listed = 0;
  for (int i = 0; i < NCFILE; i++) {
    uint32_t n = 0;
    for (struct cblock *b = cfiles[i].used ? cfiles[i].dhead : 0; b && n <= headers; b = b->dnext, n++)
      if (b->cf != &cfiles[i] || !(b->flags & CB_DIRTY))
        AUDIT_BAD("cache: block %u of file %u on the dirty list of file %u is not dirty there\n", b->blockno,
            b->fileid, cfiles[i].fileid);
    if (cfiles[i].used && n != cfiles[i].ndirty)
      AUDIT_BAD("cache: file %u has %u blocks on its dirty list, counts %u\n", cfiles[i].fileid, n, cfiles[i].ndirty);
    listed += n;
  }
  if (listed != st_dirty)
    AUDIT_BAD("cache: %u blocks on dirty lists, %u dirty\n", listed, st_dirty);
  return bad;
}

/* --- writing ----------------------------------------------------------------------------- */

static void describe(struct cblock *b, char *out, int len)
{
  struct cfile *cf = b->fileid == CACHE_DEV ? 0 : cf_find(b->fileid, false);
  if (b->fileid == CACHE_DEV)
    snprintf(out, len, "metadata block %u", b->blockno);
  else if (cf && cf->name[0])
    snprintf(out, len, "%s (file %u, block %u)", cf->name, b->fileid, b->blockno);
  else
    snprintf(out, len, "file %u, block %u", b->fileid, b->blockno);
}

/* A block locked by the caller goes to the disk: off its dirty list, its frame busy until the
 * write completes (whoever holds the sleeplock is the only one who reads or writes it). */
static void start_write(struct cblock *b)
{
  dirty_remove(b);
  if (!frame_try_busy(b->frame))
    panic("cache: block %u of file %u is under I/O twice", b->blockno, b->fileid);
}

/* Takes an unreferenced dirty block for writing (its sleeplock is free: see fs/cache.c). */
static void take_for_write(struct cblock *b)
{
  b->refcnt++;
  acquiresleep(&b->lock);
  start_write(b);
}

/* Writes blocks taken by take_for_write (or locked by the caller and started by start_write),
 * all requests in flight at once, and waits. A failed write leaves the block dirty, names
 * the file on the console and records the error for the file's owner. Returns 0 or -EIO.
 * With release, the blocks are released afterwards. */
static int write_batch(struct cblock **v, int n, enum wbclass cls, bool release_them)
{
  KASSERT(n <= NBATCH);
  bool superblock = false;
  for (int i = 0; i < n; i++)
    superblock |= v[i]->fileid == CACHE_DEV && v[i]->blockno == FS_SUPER_BLOCK;
  if (!superblock)
    fs_dirtying();          /* the clean mark goes before the disk changes */
  /* What goes out: block i's buffer at its address, those side by side in one request
   * (fs/cluster.c). status[i]: 1 written, -EIO failed, -ENOMEM or -ERANGE never sent. */
  uint8_t *copy[NBATCH];
  int status[NBATCH], which[NBATCH], m = 0, ret = 0;
  uint32_t addr[NBATCH];
  void *buf[NBATCH];
  for (int i = 0; i < n; i++) {
    struct cblock *b = v[i];
    copy[i] = 0;
    status[i] = 0;
    if (b->diskaddr == 0 || b->diskaddr >= disk_nblocks) {
      kprintf("fs: write of block %u, outside the disk\n", b->diskaddr);
      status[i] = -ERANGE;            /* not written: no request */
      ret = -EIO;
      continue;
    }
    /* A pointer to a block whose contents are not yet durable goes out cleared
     * (fs/ordering.c, rule 1); the block then stays dirty. */
    if (b->fileid == CACHE_DEV && order_holds_pointers(b->diskaddr)) {
      copy[i] = kalloc_page();
      if (!copy[i]) {
        status[i] = -ENOMEM;          /* not written now; kept dirty, tried again later */
        ret = -EIO;
        continue;
      }
      if (!order_filter(b->diskaddr, b->data, copy[i])) {
        kfree_page(copy[i]);
        copy[i] = 0;
      }
    }
    addr[m] = b->diskaddr;
    buf[m] = copy[i] ? copy[i] : b->data;
    which[m++] = i;
  }
  struct disk_req reqs[NBATCH];
  struct disk_seg segs[NBATCH];
  int mgrp[NBATCH];
  int nreq = cluster_submit(DISK_WRITE, addr, buf, m, reqs, segs, mgrp);
  if (n > 0 && v[0]->fileid != CACHE_DEV)
    st_data_requests += nreq;   /* one file's blocks (a batch never mixes files) */
  for (int k = 0; k < nreq; k++)
    disk_wait(&reqs[k]);
  for (int j = 0; j < m; j++)
    if ((status[which[j]] = reqs[mgrp[j]].status < 0 ? -EIO : 1) < 0)
      ret = -EIO;
  acquire(&cache_lock);
  dirty_bound_written();
  for (int i = 0; i < n; i++) {
    struct cblock *b = v[i];
    if (status[i] > 0 || status[i] == -EIO) {
      st_writes++;
      if (b->fileid == CACHE_DEV)
        st_writes_meta++;
      else
        st_writes_data++;
      if (b->fileid == CACHE_DEV && b->blockno >= cache_desc_lo && b->blockno < cache_desc_hi)
        st_writes_desc++;         /* of the metadata, the descriptor blocks (fs.desc_delay) */
    }
    frame_unbusy(b->frame);
    if (copy[i])
      kfree_page(copy[i]);
    if (status[i] > 0)
      order_written(b->diskaddr);
    if (status[i] == -ENOMEM || (status[i] > 0 && copy[i])) {
      /* Written without some new pointer (or not at all): dirty again, as old as it was,
       * so the write-back after the next flush puts the whole block out. */
      b->flags &= ~CB_RECYCLE;
      uint32_t modified = b->modified;
      if (b->hashed && dirty_add(b) == 0)
        b->modified = modified;
    } else if (status[i] > 0) {
      if (b->flags & CB_RECYCLE)
        st_wb_recycled++;
      else if (cls == WB_FSYNC)
        st_wb_fsync++;
      else if (cls == WB_RECYCLED)
        st_wb_recycled++;
      else
        st_wb_delayed++;
    } else if (b->hashed) {
      /* Keep the data and try again after the delay; the owner hears of it. */
      st_wb_errors++;
      b->flags &= ~CB_RECYCLE;
      if (dirty_add(b) == 0) {
        b->modified = uptime_ms();
        b->cf->err = -EIO;
      }
      char what[64];
      describe(b, what, sizeof(what));
      kprintf("fs: write-back of %s to disk block %u failed; kept in memory to retry\n", what,
              b->diskaddr);
    }
  }
  release(&cache_lock);
  if (release_them)
    for (int i = 0; i < n; i++)
      cache_release(v[i]);
  neg_note_clean();         /* an asker told "busy" may find a clean block now */
  return ret;
}

/* Writes the dirty blocks of cf: only the scheduled ones (sync false), or every one that
 * became dirty up to maxseq, waiting for blocks others hold (sync true). The caller owns
 * cf->cleaning and holds cache_lock, which is let go during the I/O. */
int clean_file(struct cfile *cf, bool sync, uint32_t maxseq, int *written)
{
  struct cblock *v[NBATCH];
  int ret = 0;
  for (;;) {
    int n = 0;
    struct cblock *held = 0;
    for (struct cblock *b = cf->dhead, *next; b && n < NBATCH; b = next) {
      next = b->dnext;
      if (sync ? (int32_t)(b->dirtyseq - maxseq) > 0 : !(b->flags & CB_SCHED))
        continue;
      if (b->refcnt > 0 || busy(b)) {
        if (!held)
          held = b;
        continue;
      }
      take_for_write(b);
      v[n++] = b;
    }
    if (n == 0 && (!sync || !held))
      break;
    if (n == 0) {
      /* Held by someone: wait for it like any user, then write it if still dirty. */
      struct cblock *b = held;
      b->refcnt++;
      release(&cache_lock);
      acquiresleep(&b->lock);
      acquire(&cache_lock);
      if (!b->hashed || !(b->flags & CB_DIRTY) || b->cf != cf) {
        release(&cache_lock);
        cache_release(b);
        acquire(&cache_lock);
        continue;
      }
      start_write(b);
      v[n++] = b;
    }
    release(&cache_lock);
    if (write_batch(v, n, sync ? WB_FSYNC : WB_DELAYED, true) < 0) {
      ret = -EIO;
      if (sync) {
        acquire(&cache_lock);
        break;                /* the failed blocks are dirty again: do not loop on them */
      }
    }
    *written += n;
    acquire(&cache_lock);
  }
  return ret;
}

/* Writes a block the caller holds locked, now. */
static int write_locked(struct cblock *b, enum wbclass cls)
{
  acquire(&cache_lock);
  if (!b->hashed) {
    release(&cache_lock);
    return 0;                 /* dropped (its file was deleted): nothing to keep */
  }
  start_write(b);
  release(&cache_lock);
  return write_batch(&b, 1, cls, false);
}

/* No clean block anywhere, and no frame to be had (cache_get, with cache_lock, which is let go
 * meanwhile): gets the dirty blocks written, or waits for a release. The caller looks again. */
void wait_for_clean_block(void)
{
  if (cache_have_cleaners) {
    /* The cleaners write the dirty ones cache_alloc_block just scheduled, and a release wakes
     * us. We do not write them ourselves: we may hold other blocks and inodes locked
     * (kernel/mem/coremap.h). A pointer block held back for data not yet durable needs a flush
     * to go out whole. */
    if (cache_unflushed()) {
      release(&cache_lock);
      cache_flush_disk();
      acquire(&cache_lock);
      return;
    }
    if (st_dirty == 0) {
      /* Nothing for the cleaners to write, so no release may come soon: the VM's page-out
       * daemon may have a clean page for the next ask. */
      release(&cache_lock);
      sleep_ms(1);
      acquire(&cache_lock);
      return;
    }
  } else {
    /* No cleaners (the host harness, or before they start): write the least recently used
     * dirty block ourselves. Data before pointer blocks: a pointer block may go out only in
     * part until the data it names is written and flushed (fs/ordering.c). */
    struct cblock *v = 0, *ptrs = 0;
    for (struct cblock *c = lru.next; c != &lru && !v; c = c->next)
      if (c->refcnt == 0 && (c->flags & CB_DIRTY) && !busy(c)) {
        if (c->fileid != CACHE_DEV || !order_holds_pointers(c->blockno))
          v = c;
        else if (!ptrs)
          ptrs = c;
      }
    if (!v)
      v = ptrs;
    if (v) {
      take_for_write(v);
      v->flags |= CB_RECYCLE;
      release(&cache_lock);
      write_batch(&v, 1, WB_RECYCLED, true);
      acquire(&cache_lock);
      if (v->flags & CB_DIRTY) {
        /* Held back for a pointer to a block not yet durable: a flush lets it go. */
        release(&cache_lock);
        cache_flush_disk();
        acquire(&cache_lock);
      }
      return;
    }
  }
  /* Every block is held or being written: wait for a release. */
  waiters++;
  sleep(&waiters, &cache_lock);
  waiters--;
}

/* --- the write policy (its setting: fs/flushd.c) --------------------------------------------- */

int cache_dirty(struct cblock *b)
{
  KASSERT(holdingsleep(&b->lock) && (b->flags & CB_VALID));
  if (cache_policy == WP_THROUGH) {
    /* On the disk's stable storage, so the pointers that follow may name it at once. */
    int err = write_locked(b, WB_FSYNC);
    if (err == 0)
      err = cache_flush_disk();
    return err;
  }
  acquire(&cache_lock);
  if (!b->hashed) {
    release(&cache_lock);
    return 0;
  }
  dirty_throttle(b);        /* fs/dirtybound.c: at the upper bound, wait for the cleaners */
  if (!b->hashed) {
    release(&cache_lock);
    return 0;
  }
  if (dirty_add(b) < 0) {
    release(&cache_lock);
    return write_locked(b, WB_FSYNC);   /* no room to remember it: write it now */
  }
  if (cache_policy == WP_ASAP && cache_have_cleaners)
    schedule(b);
  release(&cache_lock);
  return 0;
}

int cache_write_now(struct cblock *b)
{
  KASSERT(holdingsleep(&b->lock) && (b->flags & CB_VALID));
  return write_locked(b, WB_FSYNC);
}

/* --- a file's name and its write-back errors --------------------------------------------- */

void cache_set_name(uint32_t fileid, const char *name)
{
  acquire(&cache_lock);
  struct cfile *cf = cf_find(fileid, true);
  if (cf) {
    size_t n = strlen(name);
    if (n >= sizeof(cf->name))
      name += n - (sizeof(cf->name) - 1);     /* the end of a long path says more */
    memcpy(cf->name, name, MIN(n, sizeof(cf->name) - 1) + 1);
  }
  release(&cache_lock);
}

int cache_take_error(uint32_t fileid)
{
  acquire(&cache_lock);
  struct cfile *cf = cf_find(fileid, false);
  int err = cf ? cf->err : 0;
  if (cf)
    cf->err = 0;
  release(&cache_lock);
  return err;
}

/* --- settings, counters, the threads' start ----------------------------------------------- */

static const struct counter counters[] = {
  COUNTER("fs.disk.data_requests", &st_data_requests),
};

/* Settings and boot keys at boot, beside the cache's; threads once the disk is mounted
 * (writeback_start, fs/flushd.c). */
void writeback_init(void)
{
  flush_init();
  dirty_bound_init();
  flushd_init();
  stat_register_table(counters, NELEM(counters));
}

void cache_set_desc_range(uint32_t lo, uint32_t hi)
{
  cache_desc_lo = lo;
  cache_desc_hi = hi;
}
