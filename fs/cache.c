/* The block cache (Sprite thesis ch. 3.2): 4 KB blocks, found by name, kept in LRU order.
 *
 * Blocks are named virtually: a file's data block by (file id, logical block number), so a
 * hit needs no block map; blocks that belong to no file (the superblock, the bitmap,
 * descriptors, indirect blocks) by the device file id CACHE_DEV and their disk address. A
 * hash table of chains finds a block in O(1) whatever the cache size. Each block's data is
 * one core-map frame of POOL_CACHE (owner: the block header).
 *
 * The cache's size follows demand (Sprite thesis 6.3): it grows by taking a frame, free or
 * traded from the VM (kernel/mem/negotiate.c), and shrinks when the VM asks for its oldest clean
 * block; it never goes below fs.cache_min_kb when asked, nor above fs.cache_max_kb if set,
 * and with fs.cache_fixed_kb set it grows to that size and stays. Headers, one for every
 * frame of memory, are made at boot a page at a time; those without a frame wait on a spare
 * list.
 *
 * Lists (thesis Figure 3-1):
 *   LRU list     every block with an identity, in perfect LRU order: moved to the tail,
 *                with the time, on every access. Written-back blocks stay where they are.
 *   free list    blocks with a frame but no identity; taken first.
 *   spare list   headers without a frame.
 * A dirty block is also on its file's dirty list, for write-back (fs/writeback.c).
 *
 * A new identity takes a free block, else a new frame while the cache may grow, else the
 * least recently used clean block that nobody holds (dirty ones met on the way are
 * scheduled for write-back, and go to the free list once clean); when there is no clean
 * block at all, the allocating process waits for the cleaners (it never writes itself: it
 * may hold other blocks and inodes locked). A block under I/O is never taken.
 *
 * Locking: cache_lock (a spinlock) guards the hash table, the lists, reference counts and
 * flags; each block has a sleeplock held by whoever reads or changes its contents, and by
 * the writer of a write-back for the whole I/O (so a block changed meanwhile waits, then
 * is dirty again). A block nobody references has a free sleeplock, so a cleaner may take
 * it while holding cache_lock. While a block is under disk I/O (read, or written back) its
 * frame is busy, the core map's one "busy, wait for it" (kernel/mem/coremap.h): nobody takes the
 * block, and whoever must wait for the I/O to end waits on the frame (frame_wait).
 */
#include "fs/cache_internal.h"
#include "fs/layout.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/errno.h"
#include "kernel/uapi/syscall.h"
#include "drivers/disk.h"
#include "kernel/mem/negotiate.h"
#include "kernel/mem/refault.h"
#include "kernel/audit.h"

#define NHASH   8192u               /* a power of two: chains of a few blocks in 64 MB */
#define SURRENDER_SCHED 16u         /* dirty blocks one ask may have written, to be clean next */

struct spinlock cache_lock;
static struct cblock *hashtab[NHASH];
struct cblock lru;                  /* sentinel: lru.next is the oldest, lru.prev the newest */
struct cblock freelist;             /* sentinel: blocks with a frame but no identity */
struct cblock spare;                /* sentinel: headers without a frame */
uint32_t nframes_held;              /* frames the cache holds */
static uint32_t min_kb = CACHE_MIN_KB, max_kb = 0, fixed_kb = 0;   /* the size settings */
uint32_t disk_nblocks;              /* the disk's size, for a last range check */
int waiters;                        /* processes waiting for a block to become free */

static uint32_t st_hits, st_misses;
uint32_t st_reads;                  /* blocks read (fs/readahead.c fills them) */
static uint32_t st_min_held, st_max_held, st_hpages;

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

/* A block's name in the shadow table of blocks given up (kernel/mem/refault.c). */
static uint32_t shadow_key(uint32_t fileid, uint32_t blockno)
{
  return fileid * 2654435761u + blockno;
}

static struct cblock *lookup(uint32_t fileid, uint32_t blockno)
{
  for (struct cblock *b = hashtab[hash(fileid, blockno)]; b; b = b->hnext)
    if (b->fileid == fileid && b->blockno == blockno)
      return b;
  return 0;
}

struct cblock *cache_lookup(uint32_t fileid, uint32_t blockno) { return lookup(fileid, blockno); }

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

/* --- the cache's size and its frames ----------------------------------------------------- */

/* Block headers (fs/cache_internal.h), a page of them at a time. */
#define HPAGE_BLOCKS ((FS_BSIZE - sizeof(struct hpage)) / sizeof(struct cblock))
struct hpage *hpages;

static bool more_headers(void)
{
  struct hpage *hp = kalloc_page();
  if (!hp)
    return false;
  hp->n = HPAGE_BLOCKS;
  hp->next = hpages;
  hpages = hp;
  for (uint32_t i = 0; i < hp->n; i++) {
    initsleeplock(&hp->b[i].lock, "cblock");
    list_append(&spare, &hp->b[i]);
  }
  st_hpages++;
  return true;
}

/* The size: never below fs.cache_min_kb when asked to give frames away; exactly
 * fs.cache_fixed_kb once grown to it, when that is set; else up to fs.cache_max_kb, if set.
 * In blocks; cap 0 means no cap. A cap is never below the floor: fewer than 16 blocks (the
 * most the file system holds at once, with room to spare) would starve it. */
static uint32_t min_blocks(void) { return min_kb / (FS_BSIZE / 1024); }
static uint32_t cap(void)
{
  uint32_t kb = fixed_kb ? fixed_kb : max_kb;
  return kb ? MAX(kb / (FS_BSIZE / 1024), min_blocks()) : 0;
}
static bool may_grow(void) { return cap() == 0 || nframes_held < cap(); }
/* Under its floor (or its fixed size) the cache takes frames whatever their age. */
static bool must_grow(void) { return nframes_held < (fixed_kb ? cap() : min_blocks()); }

static void held_changed(void)
{
  if (nframes_held < st_min_held)
    st_min_held = nframes_held;
  if (nframes_held > st_max_held)
    st_max_held = nframes_held;
}

/* The block's frame leaves the cache (to the core map, or to the VM); its header waits for
 * another. The block has no identity and nobody holds it. */
static struct frame *detach_frame(struct cblock *b)
{
  struct frame *f = b->frame;
  b->frame = 0;
  b->data = 0;
  b->flags = 0;
  list_append(&spare, b);
  nframes_held--;
  held_changed();
  return f;
}

/* Frames beyond the cap go back to the frame allocator, from the free list. */
static void give_back(void)
{
  while (cap() && nframes_held > cap() && freelist.next != &freelist) {
    struct cblock *b = freelist.next;
    list_remove(b);
    frame_free(detach_frame(b));
  }
}

/* Takes away a block's identity, dropping it even if dirty. An unreferenced block goes
 * straight to the free list; a held one gets there when its last holder lets go. */
static void forget(struct cblock *b)
{
  dirty_remove(b);
  b->flags = 0;
  if (!b->hashed)
    return;
  hash_remove(b);
  list_remove(b);
  if (b->refcnt == 0) {
    list_append(&freelist, b);
    give_back();
  }
}

/* The least recently used block that could go now: valid, clean, held by nobody, not under
 * I/O. Up to nsched of the dirty ones met on the way are handed to the cleaners, to go to the
 * free list once clean. 0 when there is none; *dirty then says whether one could go once
 * written (the negotiation's "busy"). */
static struct cblock *oldest_clean(uint32_t nsched, struct cblock **dirty)
{
  for (struct cblock *b = lru.next; b != &lru; b = b->next) {
    if (b->refcnt > 0 || busy(b))
      continue;
    if (!(b->flags & CB_DIRTY))
      return b;
    if (dirty && !*dirty)
      *dirty = b;
    if (nsched > 0 && !(b->flags & CB_RECYCLE) && cache_have_cleaners) {
      b->flags |= CB_RECYCLE;
      schedule(b), nsched--;
    }
  }
  return 0;
}

/* A frame for a new block: free, or traded from the VM (cache_lock held, and let go
 * meanwhile: the negotiation takes vm_lock, never with cache_lock). */
static struct frame *new_frame(void)
{
  enum neg_verdict verdict;
  uint32_t waited = 0;
  struct frame *f;
  release(&cache_lock);
  while (!(f = neg_getframe(NEG_FS, &verdict)) && verdict == NEG_BUSY && neg_wait_clean(&waited))
    ;                       /* the VM's oldest pages are in its laundry: a bounded wait */
  acquire(&cache_lock);
  return f;
}

/* A block for a new identity: the free list; else a new frame while the cache may grow;
 * else the least recently used clean block (dirty ones met on the way are scheduled). 0
 * when there is none. cache_lock held; it may be let go meanwhile, so the caller looks the
 * identity up again. */
static struct cblock *cache_alloc_block(void)
{
  if (freelist.next != &freelist) {
    struct cblock *b = freelist.next;
    list_remove(b);
    return b;
  }
  if (may_grow()) {
    struct frame *f = new_frame();
    if (f) {
      if (spare.next == &spare)
        panic("cache: no header for a new frame");   /* one for every frame of memory */
      struct cblock *b = spare.next;
      list_remove(b);
      b->frame = f;
      b->data = frame_va(f);
      f->owner = b;
      nframes_held++;
      held_changed();
      return b;
    }
  }
  struct cblock *b = oldest_clean(~0u, 0);
  if (b) {
    refault_gave(NEG_FS, shadow_key(b->fileid, b->blockno), b->lastref);
    hash_remove(b);
    list_remove(b);
    b->flags = 0;
  }
  return b;
}

/* Lowering the cap gives frames back: clean blocks at once, dirty ones once written. */
static void shrink(void)
{
  uint32_t excess = cap() && nframes_held > cap() ? nframes_held - cap() : 0;
  for (struct cblock *b = lru.next, *next; b != &lru && excess > 0; b = next) {
    next = b->next;
    if (b->refcnt > 0 || busy(b))
      continue;
    if (b->flags & CB_DIRTY) {
      b->flags |= CB_RECYCLE;
      schedule(b);
    } else {
      forget(b);
    }
    excess--;
  }
  give_back();
}

/* --- what the negotiation asks (kernel/mem/negotiate.c) -------------------------------------- */

static struct neg_offer cache_offer(bool giving)
{
  struct neg_offer o = { .refuse = true };
  acquire(&cache_lock);
  if (giving ? fixed_kb || nframes_held <= min_blocks() : must_grow()) {
    release(&cache_lock);
    return o;
  }
  struct cblock *b = 0;
  if (freelist.next != &freelist) {
    o.refuse = false;
    o.lastref_ms = 0;         /* a block without identity is older than anything */
    o.free = true;
  } else if (giving) {
    struct cblock *dirty = 0;
    if (!(b = oldest_clean(0, &dirty)) && (b = dirty))
      o.busy = true;        /* the cleaners can make it clean: wait for them (surrender) */
  } else {
    /* Its own: the block it would recycle, dirty or not. A dirty one is the cleaners' to
     * write, and the cache waits for them rather than take a younger VM page: a cache full
     * of new writes must not get past the penalty (Sprite's FS offers its LRU block too). */
    for (b = lru.next; b != &lru && (b->refcnt > 0 || busy(b)); b = b->next)
      ;
    if (b == &lru)
      b = 0;
  }
  if (b) {
    o.refuse = false;
    o.lastref_ms = b->lastref;
  }
  release(&cache_lock);
  return o;
}

static struct frame *cache_surrender(void)
{
  struct frame *f = 0;
  acquire(&cache_lock);
  if (fixed_kb || nframes_held <= min_blocks()) {
    release(&cache_lock);
    return 0;
  }
  struct cblock *b = freelist.next;
  if (b != &freelist) {
    list_remove(b);
  } else if ((b = oldest_clean(SURRENDER_SCHED, 0))) {
    refault_gave(NEG_FS, shadow_key(b->fileid, b->blockno), b->lastref);
    hash_remove(b);
    list_remove(b);
  }
  if (b) {
    f = detach_frame(b);
    f->owner = 0;
  }
  release(&cache_lock);
  return f;
}

static void cache_minmax_reset(void)
{
  acquire(&cache_lock);
  st_min_held = st_max_held = nframes_held;
  dirty_bound_reset();
  release(&cache_lock);
}

/* --- settings and counters --------------------------------------------------------------- */

/* The size settings, in KB (range-checked by kernel/sysctl.c). */
static int set_size(uint32_t *what, const char *v)
{
  uint32_t n;
  if (parse_uint(v, &n) < 0)
    return -EINVAL;
  acquire(&cache_lock);
  *what = n;
  shrink();
  release(&cache_lock);
  return 0;
}
static int set_max(const char *v) { return set_size(&max_kb, v); }
static int set_fixed(const char *v) { return set_size(&fixed_kb, v); }
static int set_min(const char *v) { return set_size(&min_kb, v); }

static const struct setting size_settings[] = {
  { "fs.cache_min_kb", "KB the file cache keeps whoever asks (64 or more)",
    &min_kb, CACHE_MIN_KB, 4194304, 0, set_min },
  { "fs.cache_max_kb", "most KB the file cache may hold (0: no cap, else fs.cache_min_kb at least)",
    &max_kb, 0, 4194304, 0, set_max },
  { "fs.cache_fixed_kb", "0: the cache's size follows demand; else it grows to this (fs.cache_min_kb at least) and stays",
    &fixed_kb, 0, 4194304, 0, set_fixed },
};

static uint32_t min_held_kb(void) { return st_min_held * (FS_BSIZE / 1024); }
static uint32_t max_held_kb(void) { return st_max_held * (FS_BSIZE / 1024); }

/* --- the interface ----------------------------------------------------------------------- */

/* The cache's answers to the negotiation (kernel/mem/negotiate.h). */
static const struct pool_ops cache_pool = {
  .offer = cache_offer, .surrender = cache_surrender, .audit = cache_audit,
  .reset = cache_minmax_reset,
};

/* The cache's counters and those of its write-back (fs/writeback.c), in the order vmstat
 * prints them. */
static const struct counter counters[] = {
  COUNTER("fs.cache.blocks", &nframes_held),
  COUNTER_FN("fs.cache.held_min_kb", min_held_kb),
  COUNTER_FN("fs.cache.held_max_kb", max_held_kb),
  COUNTER("fs.cache.header_pages", &st_hpages),
  COUNTER("fs.cache.dirty", &st_dirty),
  COUNTER_FN("fs.cache.scheduled", cache_scheduled),
  COUNTER("fs.cache.hits", &st_hits),
  COUNTER("fs.cache.misses", &st_misses),
  COUNTER("fs.disk.reads", &st_reads),
  COUNTER("fs.disk.writes", &st_writes),
  COUNTER("fs.disk.writes.data", &st_writes_data),
  COUNTER("fs.disk.writes.meta", &st_writes_meta),
  COUNTER("fs.disk.writes.desc", &st_writes_desc),
  COUNTER("fs.disk.flushes", &st_flushes),
  COUNTER("fs.writebacks.delayed", &st_wb_delayed),
  COUNTER("fs.writebacks.recycled", &st_wb_recycled),
  COUNTER("fs.writebacks.fsync", &st_wb_fsync),
  COUNTER("fs.writebacks.errors", &st_wb_errors),
};

void cache_init(void)
{
  initlock(&cache_lock, "cache");
  list_init(&lru);
  list_init(&freelist);
  list_init(&spare);
  for (uint32_t n = 0; n < frame_total(); n += HPAGE_BLOCKS)
    if (!more_headers())
      break;
  uint64_t nb = disk_present() ? disk_sectors() / FS_SECTORS_PER_BLOCK : 0;
  disk_nblocks = nb > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)nb;
  setting_register_table(size_settings, NELEM(size_settings));
  neg_register_pool(NEG_FS, &cache_pool);
  stat_register_table(counters, NELEM(counters));
}

/* cache_get, and with ahead cache_get_new: 0 rather than a cached block or a wait. */
static struct cblock *get(uint32_t fileid, uint32_t blockno, bool ahead)
{
  acquire(&cache_lock);
  for (;;) {
    struct cblock *b = lookup(fileid, blockno);
    if (b && ahead)
      break;
    if (b) {
      b->refcnt++;
      touch(b);
      st_hits++;
      release(&cache_lock);
      acquiresleep(&b->lock);
      if (b->hashed)
        return b;
      /* Its holder gave up on it (a failed read, a deleted file) while we waited. */
      cache_release(b);
      acquire(&cache_lock);
      continue;
    }
    b = cache_alloc_block();
    if (b && lookup(fileid, blockno)) {
      /* Brought in by someone else while cache_alloc_block let the lock go. */
      list_append(&freelist, b);
      continue;
    }
    if (!b && ahead)
      break;
    if (!b) {
      wait_for_clean_block();     /* fs/writeback.c; lets cache_lock go meanwhile */
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
    if (!ahead)
      st_misses++;            /* a block read ahead is a miss no reader waited for */
    refault_missed(NEG_FS, shadow_key(fileid, blockno));
    release(&cache_lock);
    acquiresleep(&b->lock);   /* nobody can hold it: free at once */
    return b;
  }
  release(&cache_lock);
  return 0;
}

uint32_t cache_blocks_held(void) { return nframes_held; }
struct cblock *cache_get(uint32_t fileid, uint32_t blockno) { return get(fileid, blockno, false); }
struct cblock *cache_get_new(uint32_t fileid, uint32_t blockno) { return get(fileid, blockno, true); }

void cache_assign(struct cblock *b, uint32_t diskaddr)
{
  KASSERT(holdingsleep(&b->lock));
  b->diskaddr = diskaddr;
  b->flags |= CB_VALID;
}

void cache_release(struct cblock *b)
{
  releasesleep(&b->lock);
  acquire(&cache_lock);
  b->refcnt--;
  if (b->refcnt == 0) {
    if (!b->hashed) {
      b->flags = 0;
      list_append(&freelist, b);
      give_back();
    } else if (!(b->flags & CB_VALID)) {
      forget(b);            /* never filled (a failed read): nothing worth keeping */
    } else if ((b->flags & CB_RECYCLE) && !(b->flags & CB_DIRTY)) {
      forget(b);            /* written because it reached the LRU head: free it */
    }
    if (waiters)
      wakeup(&waiters);
  }
  release(&cache_lock);
}

void cache_discard(struct cblock *b)
{
  acquire(&cache_lock);
  if (b->hashed) {
    dirty_remove(b);
    hash_remove(b);
    list_remove(b);
  }
  b->flags = 0;
  release(&cache_lock);
  cache_release(b);
}

void cache_invalidate(uint32_t fileid, uint32_t blockno)
{
  acquire(&cache_lock);
  for (;;) {
    struct cblock *b = lookup(fileid, blockno);
    if (b && busy(b)) {
      frame_wait(b->frame, &cache_lock);
      continue;
    }
    if (b)
      forget(b);
    break;
  }
  release(&cache_lock);
}

void cache_incore(uint32_t fileid, uint32_t from, uint32_t n, uint8_t *vec)
{
  acquire(&cache_lock);
  for (uint32_t i = 0; i < n; i++) {
    struct cblock *b = lookup(fileid, from + i);
    vec[i] = !b || !(b->flags & CB_VALID) ? 0 :
             (b->flags & CB_DIRTY) || busy(b) ? INCORE_CACHED | INCORE_DIRTY : INCORE_CACHED;
  }
  release(&cache_lock);
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
