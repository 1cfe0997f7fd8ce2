/* Dirty blocks on stable storage now rather than after the delay: the cache's half of sync
 * and fsync, and the flush.
 *
 * A sync writes every block of a file (CACHE_DEV: the device blocks), or of all files, that
 * was dirty when it was called, through the cleaners' own clean_file (fs/writeback.c): one
 * writer of a file at a time, several requests in flight, waiting for blocks others hold.
 * It then waits for the writes of the file already under way. All of it goes in the order
 * rule 1 of fs/ordering.c needs: file data and directories, a flush, then descriptors,
 * indirect blocks and the bitmap.
 *
 * A flush asks the disk to put what it has been given on stable storage, and makes stable
 * every write completed before it was issued: the new blocks written so far stop being new
 * (fs/ordering.c), and every change older than the oldest one not yet written is durable.
 * Changes are numbered as they dirty blocks (dirtyseq); the pending frees (fs/alloc.c) wait
 * until cache_durable_seq has passed the number of the change that freed them.
 */
#include "fs/cache_internal.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/uapi/errno.h"
#include "drivers/disk.h"
#include "fs/ordering.h"

#define ALL_FILES 0xFFFFFFFFu
#define DATA_FILES 0xFFFFFFFEu      /* every file but the device's: data and directories */

static struct sleeplock flush_lock; /* one flush at a time (fs/ordering.c's bookkeeping) */
static uint32_t durable_seq = 1;    /* every change dirtied before this is on stable storage */
static uint32_t writes_at_flush;    /* st_writes when the last flush began */

void flush_init(void)
{
  initsleeplock_ranked(&flush_lock, "diskflush", LOCK_FLUSH);
}

/* Waits for the writes of fileid's blocks already under way outside any cleaner (a block
 * recycled by an allocating process, a write-through): taken off the dirty list, they are
 * no sync's to write, but a sync is not done before they are. cache_lock held. */
static bool of_file(struct cblock *b, uint32_t fileid)
{
  return fileid == ALL_FILES || (fileid == DATA_FILES ? b->fileid != CACHE_DEV : b->fileid == fileid);
}

static void wait_writes(uint32_t fileid)
{
  FOR_EACH_HEADER(hp, b)
    while (busy(b) && of_file(b, fileid))
      frame_wait(b->frame, &cache_lock);
}

/* Syncs one file entry; cache_lock held. */
static int sync_cf(struct cfile *cf, uint32_t maxseq)
{
  while (cf->cleaning)
    sleep(cf, &cache_lock);
  cf->cleaning = true;
  int written = 0;
  int err = clean_file(cf, true, maxseq, &written);
  cf->cleaning = false;
  wakeup(cf);
  enqueue(cf);                /* blocks it left scheduled go to the cleaners again */
  return err;
}

int cache_sync_data(void)
{
  return cache_sync_file(DATA_FILES);
}

int cache_sync_file(uint32_t fileid)
{
  int err = 0;
  acquire(&cache_lock);
  uint32_t maxseq = dirtyseq;
  if (fileid != ALL_FILES && fileid != DATA_FILES) {
    struct cfile *cf = cf_find(fileid, false);
    if (cf && cf->ndirty > 0)
      err = sync_cf(cf, maxseq);
    wait_writes(fileid);
    release(&cache_lock);
    return err;
  }
  /* Data first, then (after a flush, by the caller) the metadata that points at it. */
  for (int pass = 0; pass < (fileid == DATA_FILES ? 1 : 2); pass++) {
    for (int i = 0; i < NCFILE; i++) {
      struct cfile *cf = &cfiles[i];
      if (!cf->used || cf->ndirty == 0 || (cf->fileid == CACHE_DEV) != (pass == 1))
        continue;
      if (sync_cf(cf, maxseq) < 0)
        err = -EIO;
    }
  }
  wait_writes(fileid);
  release(&cache_lock);
  return err;
}

/* Everything dirty now, in the order rule 1 of fs/ordering.c needs: file data and
 * directories, a flush, then descriptors, indirect blocks and the bitmap. The caller
 * flushes at the end. */
int cache_sync_all(void)
{
  int err = cache_sync_data();
  if (cache_flush_disk() < 0)
    err = -EIO;
  if (cache_sync_file(CACHE_DEV) < 0)
    err = -EIO;
  return err;
}

/* --- the flush --------------------------------------------------------------------------- */

/* The oldest change not yet written: the least dirtyseq of the blocks dirty or under a
 * write. cache_lock held. */
static uint32_t oldest_unwritten(void)
{
  uint32_t oldest = dirtyseq + 1;
  for (int i = 0; i < NCFILE; i++)
    if (cfiles[i].used && cfiles[i].dhead && (int32_t)(cfiles[i].dhead->dirtyseq - oldest) < 0)
      oldest = cfiles[i].dhead->dirtyseq;
  FOR_EACH_HEADER(hp, b)
    if (writing(b) && (int32_t)(b->dirtyseq - oldest) < 0)
      oldest = b->dirtyseq;
  return oldest;
}

/* A flush makes stable every write completed before it was issued: the new blocks written
 * so far stop being new, and every change older than the oldest unwritten one is durable. */
int cache_flush_disk(void)
{
  acquiresleep(&flush_lock);
  acquire(&cache_lock);
  st_flushes++;
  writes_at_flush = st_writes;
  uint32_t oldest = oldest_unwritten();
  order_flush_begin();
  release(&cache_lock);
  int r = disk_rw(DISK_FLUSH, 0, 0, 0);
  acquire(&cache_lock);
  order_flush_end(r == 0);
  if (r == 0 && (int32_t)(oldest - durable_seq) > 0)
    durable_seq = oldest;
  release(&cache_lock);
  releasesleep(&flush_lock);
  return r;
}

uint32_t cache_seq_now(void)
{
  return dirtyseq;
}

uint32_t cache_durable_seq(void)
{
  return durable_seq;
}

bool cache_unflushed(void)
{
  return st_writes != writes_at_flush;
}
