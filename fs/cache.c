/* The block cache: see cache.h for the design, the lists and the locking. */
#include "fs/cache.h"
#include "fs/layout.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/cmdline.h"
#include "kernel/stats.h"
#include "kernel/uapi/errno.h"
#include "vm/coremap.h"
#include "drivers/disk.h"

#define NHASH 1024u                 /* a power of two, a few times the usual cache size */
#define ALL_FILES 0xFFFFFFFFu

static struct spinlock cache_lock;
static struct cblock blocks[CACHE_MAX_BLOCKS];
static struct cblock *hashtab[NHASH];
static struct cblock lru;           /* sentinel: lru.next is the oldest, lru.prev the newest */
static struct cblock freelist;      /* sentinel: blocks with a frame but no identity */
static uint32_t nheaders;           /* headers that have a frame: blocks[0 .. nheaders-1] */
static uint32_t cache_limit;        /* most frames the cache may hold (fs.cache_blocks) */
static uint32_t disk_nblocks;       /* the disk's size, for a last range check */
static int waiters;                 /* processes waiting for a block to become free */

static uint32_t st_blocks, st_hits, st_misses, st_reads, st_writes;

/* --- lists and hash (cache_lock held) ---------------------------------------------------- */

static void list_init(struct cblock *head) { head->next = head->prev = head; }

static void list_remove(struct cblock *b)
{
  b->prev->next = b->next;
  b->next->prev = b->prev;
  b->next = b->prev = 0;
}

static void list_append(struct cblock *head, struct cblock *b)
{
  b->prev = head->prev;
  b->next = head;
  head->prev->next = b;
  head->prev = b;
}

static uint32_t hash(uint32_t fileid, uint32_t blockno)
{
  return (fileid * 2654435761u + blockno) & (NHASH - 1);
}

static struct cblock *lookup(uint32_t fileid, uint32_t blockno)
{
  for (struct cblock *b = hashtab[hash(fileid, blockno)]; b; b = b->hnext)
    if (b->fileid == fileid && b->blockno == blockno)
      return b;
  return 0;
}

static void hash_insert(struct cblock *b)
{
  uint32_t h = hash(b->fileid, b->blockno);
  b->hnext = hashtab[h];
  hashtab[h] = b;
  b->hashed = true;
}

static void hash_remove(struct cblock *b)
{
  struct cblock **pp = &hashtab[hash(b->fileid, b->blockno)];
  while (*pp != b)
    pp = &(*pp)->hnext;
  *pp = b->hnext;
  b->hnext = 0;
  b->hashed = false;
}

/* Perfect LRU: every access moves the block to the tail and stamps it. */
static void touch(struct cblock *b)
{
  uint32_t now = uptime_ms();
  list_remove(b);
  list_append(&lru, b);
  b->lastref = now;
  b->frame->lastref = now;
}

/* Takes away a block's identity. An unreferenced block goes straight to the free list; a
 * held one gets there when its last holder lets go (cache_release). */
static void forget(struct cblock *b)
{
  b->flags = 0;
  if (!b->hashed)
    return;
  hash_remove(b);
  list_remove(b);
  if (b->refcnt == 0)
    list_append(&freelist, b);
}

/* The one place a block for a new identity comes from: the free list, else a new frame
 * while the cache is under its limit, else the least recently used block that nobody holds,
 * that is clean and whose frame is not under I/O. 0 when there is none. */
static struct cblock *cache_alloc_block(void)
{
  if (freelist.next != &freelist) {
    struct cblock *b = freelist.next;
    list_remove(b);
    return b;
  }
  if (nheaders < cache_limit) {
    struct frame *f = frame_alloc(POOL_CACHE, false);
    if (f) {
      struct cblock *b = &blocks[nheaders++];
      b->frame = f;
      b->data = frame_va(f);
      f->owner = b;
      st_blocks = nheaders;
      return b;
    }
  }
  for (struct cblock *b = lru.next; b != &lru; b = b->next) {
    if (b->refcnt == 0 && !(b->flags & CB_DIRTY) && !(b->frame->flags & FRAME_BUSY)) {
      hash_remove(b);
      list_remove(b);
      b->flags = 0;
      return b;
    }
  }
  return 0;
}

/* --- the interface ----------------------------------------------------------------------- */

void cache_init(void)
{
  initlock(&cache_lock, "cache");
  list_init(&lru);
  list_init(&freelist);
  for (uint32_t i = 0; i < CACHE_MAX_BLOCKS; i++)
    initsleeplock(&blocks[i].lock, "cblock");
  cache_limit = cmdline_get_uint("fs.cache_blocks", CACHE_DEFAULT_BLOCKS);
  if (cache_limit < CACHE_MIN_BLOCKS || cache_limit > CACHE_MAX_BLOCKS) {
    uint32_t want = cache_limit;
    cache_limit = MAX(CACHE_MIN_BLOCKS, MIN(cache_limit, CACHE_MAX_BLOCKS));
    kprintf("fs: fs.cache_blocks=%u is out of range [%u, %u]; using %u\n", want,
            CACHE_MIN_BLOCKS, CACHE_MAX_BLOCKS, cache_limit);
  }
  uint64_t nb = disk_present() ? disk_sectors() / FS_SECTORS_PER_BLOCK : 0;
  disk_nblocks = nb > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)nb;
  stat_register("fs.cache.blocks", &st_blocks);
  stat_register("fs.cache.limit", &cache_limit);
  stat_register("fs.cache.hits", &st_hits);
  stat_register("fs.cache.misses", &st_misses);
  stat_register("fs.disk.reads", &st_reads);
  stat_register("fs.disk.writes", &st_writes);
}

struct cblock *cache_get(uint32_t fileid, uint32_t blockno)
{
  acquire(&cache_lock);
  for (;;) {
    struct cblock *b = lookup(fileid, blockno);
    if (b) {
      b->refcnt++;
      touch(b);
      st_hits++;
      release(&cache_lock);
      acquiresleep(&b->lock);
      if (b->hashed)
        return b;
      /* Its holder gave up on it (a failed read or write) while we waited: start over. */
      cache_release(b);
      acquire(&cache_lock);
      continue;
    }
    b = cache_alloc_block();
    if (!b) {
      /* Every block is held or dirty: wait for a release. */
      waiters++;
      sleep(&waiters, &cache_lock);
      waiters--;
      continue;
    }
    b->fileid = fileid;
    b->blockno = blockno;
    b->diskaddr = 0;
    b->flags = 0;
    b->refcnt = 1;
    hash_insert(b);
    list_append(&lru, b);
    touch(b);
    st_misses++;
    release(&cache_lock);
    /* Nobody can hold it: an unreferenced block's lock is always free. */
    acquiresleep(&b->lock);
    return b;
  }
}

int cache_fill(struct cblock *b, uint32_t diskaddr)
{
  KASSERT(holdingsleep(&b->lock) && !(b->flags & CB_VALID));
  if (diskaddr == 0 || diskaddr >= disk_nblocks) {
    kprintf("fs: read of block %u, outside the disk\n", diskaddr);
    return -EIO;
  }
  b->diskaddr = diskaddr;
  frame_set_busy(b->frame);
  int r = disk_rw(DISK_READ, (uint64_t)diskaddr * FS_SECTORS_PER_BLOCK, b->data, FS_BSIZE);
  frame_clear_busy(b->frame);
  st_reads++;
  if (r < 0) {
    kprintf("fs: disk read error at block %u\n", diskaddr);
    return -EIO;
  }
  b->flags |= CB_VALID;
  return 0;
}

void cache_assign(struct cblock *b, uint32_t diskaddr)
{
  KASSERT(holdingsleep(&b->lock));
  b->diskaddr = diskaddr;
  b->flags |= CB_VALID;
}

/* Writes a locked dirty block to its disk address. */
static int writeback(struct cblock *b)
{
  if (b->diskaddr == 0 || b->diskaddr >= disk_nblocks) {
    kprintf("fs: write of block %u, outside the disk\n", b->diskaddr);
    return -EIO;
  }
  frame_set_busy(b->frame);
  int r = disk_rw(DISK_WRITE, (uint64_t)b->diskaddr * FS_SECTORS_PER_BLOCK, b->data, FS_BSIZE);
  frame_clear_busy(b->frame);
  st_writes++;
  if (r < 0) {
    kprintf("fs: disk write error at block %u (file %u, block %u)\n", b->diskaddr, b->fileid,
            b->blockno);
    acquire(&cache_lock);
    forget(b);
    release(&cache_lock);
    return -EIO;
  }
  b->flags &= ~CB_DIRTY;
  return 0;
}

int cache_write(struct cblock *b)
{
  KASSERT(holdingsleep(&b->lock) && (b->flags & CB_VALID));
  b->flags |= CB_DIRTY;
  /* Write-through: a later version returns here and lets the cleaner write it. */
  return writeback(b);
}

void cache_release(struct cblock *b)
{
  releasesleep(&b->lock);
  acquire(&cache_lock);
  b->refcnt--;
  if (b->refcnt == 0) {
    if (!b->hashed)
      list_append(&freelist, b);
    else if (!(b->flags & CB_VALID))
      forget(b);            /* never filled (a failed read): nothing worth keeping */
    if (waiters)
      wakeup(&waiters);
  }
  release(&cache_lock);
}

void cache_discard(struct cblock *b)
{
  acquire(&cache_lock);
  if (b->hashed) {
    hash_remove(b);
    list_remove(b);
  }
  b->flags = 0;
  release(&cache_lock);
  cache_release(b);
}

struct cblock *cache_read_dev(uint32_t diskaddr, int *err)
{
  struct cblock *b = cache_get(CACHE_DEV, diskaddr);
  if (!(b->flags & CB_VALID)) {
    int r = cache_fill(b, diskaddr);
    if (r < 0) {
      cache_release(b);
      *err = r;
      return 0;
    }
  }
  return b;
}

void cache_invalidate(uint32_t fileid, uint32_t blockno)
{
  acquire(&cache_lock);
  struct cblock *b = lookup(fileid, blockno);
  if (b)
    forget(b);
  release(&cache_lock);
}

int cache_sync_file(uint32_t fileid)
{
  int err = 0;
  acquire(&cache_lock);
  struct cblock *b = lru.next;
  while (b != &lru) {
    if ((b->flags & CB_DIRTY) && (fileid == ALL_FILES || b->fileid == fileid)) {
      b->refcnt++;
      release(&cache_lock);
      acquiresleep(&b->lock);
      if (b->hashed && (b->flags & CB_DIRTY) && writeback(b) < 0)
        err = -EIO;
      cache_release(b);
      /* The list may have changed while we slept: rescan (the block written is clean). */
      acquire(&cache_lock);
      b = lru.next;
      continue;
    }
    b = b->next;
  }
  release(&cache_lock);
  return err;
}

int cache_sync_all(void)
{
  return cache_sync_file(ALL_FILES);
}

/* The VM copies a cached code or data block instead of reading the disk, and the block then
 * goes first: it is at the head of the LRU list with an infinite age (time 0). Copied under
 * the spinlock: an executable in use cannot be written (ETXTBSY), so nobody changes it. */
bool cache_copy_out_oldest(uint32_t fileid, uint32_t blockno, void *dst)
{
  acquire(&cache_lock);
  struct cblock *b = lookup(fileid, blockno);
  bool hit = b && (b->flags & CB_VALID);
  if (hit) {
    memcpy(dst, b->data, FS_BSIZE);
    list_remove(b);
    b->next = lru.next;
    b->prev = &lru;
    lru.next->prev = b;
    lru.next = b;
    b->lastref = 0;
    b->frame->lastref = 0;
  }
  release(&cache_lock);
  return hit;
}
