/* The block cache: see cache.h for the design, the lists and the locking. */
#include "fs/cache.h"
#include "fs/layout.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/errno.h"
#include "kernel/uapi/syscall.h"
#include "kernel/coremap.h"
#include "drivers/disk.h"
#include "fs/ordering.h"
#include "kernel/negotiate.h"

#define NHASH   8192u               /* a power of two: chains of a few blocks in 64 MB */
#define NCFILE  256                 /* files with dirty blocks (or a name or error) at once */
#define NBATCH  16                  /* write-backs a cleaner keeps in flight */
#define ALL_FILES 0xFFFFFFFFu
#define DATA_FILES 0xFFFFFFFEu      /* every file but the device's: data and directories */

/* A file as the cache sees it: its dirty blocks, in the order they became dirty. */
struct cfile {
  bool used;
  uint32_t fileid;
  struct cblock *dhead, *dtail;
  uint32_t ndirty, nsched;
  bool queued;              /* on the dirty-file queue */
  bool cleaning;            /* a cleaner (or a sync) is writing it: one at a time */
  int err;                  /* a write-back failed since the owner last asked */
  char name[32];
  struct cfile *qnext;
};

static struct spinlock cache_lock;
static struct cblock *hashtab[NHASH];
static struct cblock lru;           /* sentinel: lru.next is the oldest, lru.prev the newest */
static struct cblock freelist;      /* sentinel: blocks with a frame but no identity */
static struct cblock spare;         /* sentinel: headers without a frame */
static struct cfile cfiles[NCFILE];
static struct cfile *qhead, *qtail; /* files with scheduled blocks */
static uint32_t nframes_held;       /* frames the cache holds */
static uint32_t min_kb = CACHE_MIN_KB, max_kb = 0, fixed_kb = 0;   /* the size settings */
static uint32_t disk_nblocks;       /* the disk's size, for a last range check */
static uint32_t desc_lo, desc_hi;   /* descriptor blocks */
static uint32_t dirtyseq;
static int waiters;                 /* processes waiting for a block to become free */
static struct sleeplock flush_lock; /* one flush at a time (fs/ordering.c's bookkeeping) */
static uint32_t durable_seq = 1;    /* every change dirtied before this is on stable storage */
static uint32_t writes_at_flush;    /* st_writes when the last flush began */
bool cache_have_cleaners;
uint32_t cache_policy = WP_DELAY;

static uint32_t st_hits, st_misses, st_reads, st_writes, st_writes_data, st_writes_meta, st_writes_desc;
static uint32_t st_flushes, st_dirty, st_wb_delayed, st_wb_recycled, st_wb_fsync, st_wb_errors;
static uint32_t st_min_held, st_max_held, st_hpages;

enum wbclass { WB_DELAYED, WB_FSYNC, WB_RECYCLED };

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

/* A block under disk I/O has its frame busy (kernel/coremap.h: busy, wait for it); a valid one
 * is being written, an invalid one read. */
static bool busy(struct cblock *b) { return b->frame && frame_busy(b->frame); }
static bool writing(struct cblock *b) { return busy(b) && (b->flags & CB_VALID); }

/* Perfect LRU: every access moves the block to the tail and stamps it. */
static void touch(struct cblock *b)
{
  uint32_t now = uptime_ms();
  list_remove(b);
  list_append(&lru, b);
  b->lastref = now;
  b->frame->lastref = now;
}

/* --- dirty files (cache_lock held) -------------------------------------------------------- */

static struct cfile *cf_find(uint32_t fileid, bool create)
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

static void enqueue(struct cfile *cf)
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

/* Puts a valid block on its file's dirty list. -1 when no file entry is left (the caller
 * then writes it at once). */
static int dirty_add(struct cblock *b)
{
  /* Aged from its oldest unsaved change, not its latest: a block changed again and again
   * (a busy directory) would otherwise never be written, and a power cut could take changes
   * of any age (issue 10: nothing older than the delay and a scan may be lost). */
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
  return 0;
}

static void dirty_remove(struct cblock *b)
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
  if (b->flags & CB_SCHED)
    cf->nsched--;
  b->flags &= ~(CB_DIRTY | CB_SCHED);
  st_dirty--;
}

static void schedule(struct cblock *b)
{
  if (!(b->flags & CB_DIRTY) || (b->flags & CB_SCHED))
    return;
  b->flags |= CB_SCHED;
  b->cf->nsched++;
  enqueue(b->cf);
}

/* --- the cache's size and its frames ------------------------------------------------------- */

/* Block headers live in pages of the kernel pool, made at boot, one header for every frame
 * of memory: no table caps the cache (they cost 2 % of memory), and the kernel pool does not
 * change size as the cache does. */
struct hpage {
  struct hpage *next;
  uint32_t n;
  struct cblock b[];
};
#define HPAGE_BLOCKS ((FS_BSIZE - sizeof(struct hpage)) / sizeof(struct cblock))
static struct hpage *hpages;

#define FOR_EACH_HEADER(hp, b) \
  for (struct hpage *hp = hpages; hp; hp = hp->next) \
    for (struct cblock *b = hp->b; b < hp->b + hp->n; b++)

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
 * I/O. With schedule, the dirty ones met on the way are handed to the cleaners, to go to the
 * free list once clean. 0 when there is none. */
static struct cblock *oldest_clean(bool schedule_dirty)
{
  for (struct cblock *b = lru.next; b != &lru; b = b->next) {
    if (b->refcnt > 0 || busy(b))
      continue;
    if (!(b->flags & CB_DIRTY))
      return b;
    if (schedule_dirty && !(b->flags & CB_RECYCLE) && cache_have_cleaners) {
      b->flags |= CB_RECYCLE;
      schedule(b);
    }
  }
  return 0;
}

/* A frame for a new block: free, or traded from the VM (cache_lock held, and let go
 * meanwhile: the negotiation takes vm_lock, never with cache_lock). */
static struct frame *new_frame(void)
{
  enum neg_verdict verdict;
  release(&cache_lock);
  struct frame *f = neg_getframe(NEG_FS, &verdict);
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
  struct cblock *b = oldest_clean(true);
  if (b) {
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

/* --- what the negotiation asks (kernel/negotiate.c) ------------------------------------------- */

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
    b = oldest_clean(false);
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
  } else if ((b = oldest_clean(true))) {
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

/* Ties every block header, its frame and the lists together (the audit program; cache_lock
 * taken). A cache frame owned by nobody is on its way between a pool and its new owner (a
 * negotiation's frame not yet attached): counted apart, not a problem. */
#define BAD(...) do { bad++; if (!quiet) kprintf("audit: cache: " __VA_ARGS__); } while (0)
static int cache_audit(bool quiet)
{
  int bad = 0;
  acquire(&cache_lock);
  uint32_t with_frame = 0, hashed = 0, dirty = 0, headers = 0;
  FOR_EACH_HEADER(hp, b) {
    headers++;
    struct frame *f = b->frame;
    if (f) {
      with_frame++;
      if (f < coremap || f >= coremap + nframes || f->pool != POOL_CACHE || f->owner != b ||
          b->data != frame_va(f))
        BAD("block %u of file %u holds frame %d, which is not its own\n", b->blockno, b->fileid,
            (int)(f - coremap));
    }
    if (b->hashed) {
      hashed++;
      if (!f || lookup(b->fileid, b->blockno) != b)
        BAD("block %u of file %u is hashed without a frame or cannot be found\n", b->blockno, b->fileid);
    }
    if (b->flags & CB_DIRTY) {
      dirty++;
      if (!b->hashed || !b->cf || b->cf->fileid != b->fileid)
        BAD("dirty block %u of file %u has no identity or no file entry\n", b->blockno, b->fileid);
    } else if (b->flags & CB_SCHED) {
      BAD("block %u of file %u is scheduled but clean\n", b->blockno, b->fileid);
    }
    if (b->refcnt < 0)
      BAD("block %u of file %u has %d references\n", b->blockno, b->fileid, b->refcnt);
  }
  uint32_t onlru = 0, onfree = 0, onspare = 0;
  for (struct cblock *b = lru.next; b != &lru && onlru <= headers; b = b->next, onlru++)
    if (!b->hashed || b->next->prev != b)
      BAD("block %u of file %u on the LRU list has no identity\n", b->blockno, b->fileid);
  for (struct cblock *b = freelist.next; b != &freelist && onfree <= headers; b = b->next, onfree++)
    if (b->hashed || !b->frame || b->refcnt != 0)
      BAD("a block on the free list has an identity, no frame, or holders\n");
  for (struct cblock *b = spare.next; b != &spare && onspare <= headers; b = b->next, onspare++)
    if (b->frame)
      BAD("a spare header holds a frame\n");
  if (onlru != hashed)
    BAD("%u blocks on the LRU list, %u with an identity\n", onlru, hashed);
  if (onspare != headers - with_frame)
    BAD("%u spare headers, %u without a frame\n", onspare, headers - with_frame);
  if (with_frame != nframes_held)
    BAD("%u blocks hold a frame, the cache counts %u\n", with_frame, nframes_held);
  if (dirty != st_dirty)
    BAD("%u dirty blocks, the cache counts %u\n", dirty, st_dirty);
  uint32_t listed = 0;
  for (int i = 0; i < NCFILE; i++) {
    uint32_t n = 0;
    for (struct cblock *b = cfiles[i].used ? cfiles[i].dhead : 0; b && n <= headers; b = b->dnext, n++)
      if (b->cf != &cfiles[i] || !(b->flags & CB_DIRTY))
        BAD("block %u of file %u on the dirty list of file %u is not dirty there\n", b->blockno,
            b->fileid, cfiles[i].fileid);
    if (cfiles[i].used && n != cfiles[i].ndirty)
      BAD("file %u has %u blocks on its dirty list, counts %u\n", cfiles[i].fileid, n, cfiles[i].ndirty);
    listed += n;
  }
  if (listed != st_dirty)
    BAD("%u blocks on dirty lists, %u dirty\n", listed, st_dirty);
  /* Every cache frame of the core map is a block's, or in hand. */
  uint32_t inhand = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    struct frame *f = &coremap[i];
    if (f->pool != POOL_CACHE)
      continue;
    struct cblock *b = f->owner;
    if (!b)
      inhand++;
    else if (b->frame != f)
      BAD("cache frame %u names a block that does not hold it\n", i);
  }
  if (frame_count(POOL_CACHE) != nframes_held + inhand)
    BAD("the core map has %u cache frames, the cache holds %u (and %u in hand)\n",
        frame_count(POOL_CACHE), nframes_held, inhand);
  release(&cache_lock);
  return bad;
}
#undef BAD

static void cache_minmax_reset(void)
{
  acquire(&cache_lock);
  st_min_held = st_max_held = nframes_held;
  release(&cache_lock);
}

/* --- writing ------------------------------------------------------------------------------ */

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

/* Takes an unreferenced dirty block for writing (its sleeplock is free: see cache.h). */
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
  struct disk_req reqs[NBATCH];
  KASSERT(n <= NBATCH);
  bool superblock = false;
  for (int i = 0; i < n; i++)
    superblock |= v[i]->fileid == CACHE_DEV && v[i]->blockno == FS_SUPER_BLOCK;
  if (!superblock)
    fs_dirtying();          /* the clean mark goes before the disk changes */
  uint8_t *copy[NBATCH];
  for (int i = 0; i < n; i++) {
    struct cblock *b = v[i];
    memset(&reqs[i], 0, sizeof(reqs[i]));
    copy[i] = 0;
    if (b->diskaddr == 0 || b->diskaddr >= disk_nblocks) {
      kprintf("fs: write of block %u, outside the disk\n", b->diskaddr);
      reqs[i].status = -EIO;
      reqs[i].complete = 1;
      continue;
    }
    /* A pointer to a block whose contents are not yet durable goes out cleared
     * (fs/ordering.c, rule 1); the block then stays dirty. */
    if (b->fileid == CACHE_DEV && order_holds_pointers(b->diskaddr)) {
      copy[i] = kalloc_page();
      if (!copy[i]) {
        reqs[i].status = -ENOMEM;     /* not written now; kept dirty, tried again later */
        reqs[i].complete = 1;
        continue;
      }
      if (!order_filter(b->diskaddr, b->data, copy[i])) {
        kfree_page(copy[i]);
        copy[i] = 0;
      }
    }
    reqs[i].op = DISK_WRITE;
    reqs[i].sector = (uint64_t)b->diskaddr * FS_SECTORS_PER_BLOCK;
    reqs[i].buf = copy[i] ? copy[i] : b->data;
    reqs[i].nbytes = FS_BSIZE;
    disk_submit(&reqs[i]);
  }
  int ret = 0;
  for (int i = 0; i < n; i++) {
    int r = reqs[i].op == DISK_WRITE ? disk_wait(&reqs[i]) : reqs[i].status;
    if (r < 0) {
      reqs[i].status = r;
      ret = -EIO;
    }
  }
  acquire(&cache_lock);
  for (int i = 0; i < n; i++) {
    struct cblock *b = v[i];
    if (reqs[i].op == DISK_WRITE) {
      st_writes++;
      if (b->fileid == CACHE_DEV)
        st_writes_meta++;
      else
        st_writes_data++;
      if (b->fileid == CACHE_DEV && b->blockno >= desc_lo && b->blockno < desc_hi)
        st_writes_desc++;         /* of the metadata, the descriptor blocks (fs.desc_delay) */
    }
    frame_unbusy(b->frame);
    if (copy[i])
      kfree_page(copy[i]);
    if (reqs[i].status == 0)
      order_written(b->diskaddr);
    if (reqs[i].status == -ENOMEM || (reqs[i].status == 0 && copy[i])) {
      /* Written without some new pointer (or not at all): dirty again, as old as it was,
       * so the write-back after the next flush puts the whole block out. */
      b->flags &= ~CB_RECYCLE;
      uint32_t modified = b->modified;
      if (b->hashed && dirty_add(b) == 0)
        b->modified = modified;
      if (reqs[i].status < 0)
        ret = -EIO;
    } else if (reqs[i].status == 0) {
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
  return ret;
}

/* Writes the dirty blocks of cf: only the scheduled ones (sync false), or every one that
 * became dirty up to maxseq, waiting for blocks others hold (sync true). The caller owns
 * cf->cleaning and holds cache_lock, which is let go during the I/O. */
static int clean_file(struct cfile *cf, bool sync, uint32_t maxseq, int *written)
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

/* --- settings ----------------------------------------------------------------------------- */

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

static const struct setting policy_setting = {
  "fs.write_policy", "delay: write back later; through: write() waits for the disk; asap: at once, not waiting",
  0, 0, 0, get_policy, set_policy,
};
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

/* Blocks waiting for a cleaner or being written: 0 once the cleaners are idle (a test of
 * fs.write_policy=asap waits for it; dirty blocks not yet old enough do not count). */
static uint32_t scheduled(void)
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

/* --- the interface ----------------------------------------------------------------------- */

/* The cache's answers to the negotiation (kernel/negotiate.h). */
static const struct pool_ops cache_pool = {
  .name = "cache", .offer = cache_offer, .surrender = cache_surrender, .audit = cache_audit,
  .reset = cache_minmax_reset,
};

void cache_init(void)
{
  initlock(&cache_lock, "cache");
  initsleeplock(&flush_lock, "diskflush");
  list_init(&lru);
  list_init(&freelist);
  list_init(&spare);
  for (uint32_t n = 0; n < frame_total(); n += HPAGE_BLOCKS)
    if (!more_headers())
      break;
  uint64_t nb = disk_present() ? disk_sectors() / FS_SECTORS_PER_BLOCK : 0;
  disk_nblocks = nb > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)nb;
  for (uint32_t i = 0; i < NELEM(size_settings); i++)
    setting_register(&size_settings[i]);
  setting_register(&policy_setting);
  neg_register_pool(NEG_FS, &cache_pool);
  stat_register("fs.cache.blocks", &nframes_held);
  stat_register_fn("fs.cache.min_kb", min_held_kb);
  stat_register_fn("fs.cache.max_kb", max_held_kb);
  stat_register("fs.cache.header_pages", &st_hpages);
  stat_register("fs.cache.dirty", &st_dirty);
  stat_register_fn("fs.cache.scheduled", scheduled);
  stat_register("fs.cache.hits", &st_hits);
  stat_register("fs.cache.misses", &st_misses);
  stat_register("fs.disk.reads", &st_reads);
  stat_register("fs.disk.writes", &st_writes);
  stat_register("fs.disk.writes.data", &st_writes_data);
  stat_register("fs.disk.writes.meta", &st_writes_meta);
  stat_register("fs.disk.writes.desc", &st_writes_desc);
  stat_register("fs.disk.flushes", &st_flushes);
  stat_register("fs.writebacks.delayed", &st_wb_delayed);
  stat_register("fs.writebacks.recycled", &st_wb_recycled);
  stat_register("fs.writebacks.fsync", &st_wb_fsync);
  stat_register("fs.writebacks.errors", &st_wb_errors);
}

void cache_set_desc_range(uint32_t lo, uint32_t hi)
{
  desc_lo = lo;
  desc_hi = hi;
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
    if (!b && cache_have_cleaners) {
      /* No clean block anywhere, and no frame to be had: the cleaners write the dirty ones
       * cache_alloc_block just scheduled, and a release wakes us. We do not write them
       * ourselves: we may hold other blocks and inodes locked (kernel/coremap.h). A pointer
       * block held back for data not yet durable needs a flush to go out whole. */
      if (cache_unflushed()) {
        release(&cache_lock);
        cache_flush_disk();
        acquire(&cache_lock);
        continue;
      }
      if (st_dirty == 0) {
        /* Nothing for the cleaners to write, so no release may come soon: the VM's page-out
         * daemon may have a clean page for the next ask. */
        release(&cache_lock);
        sleep_ms(1);
        acquire(&cache_lock);
        continue;
      }
      waiters++;
      sleep(&waiters, &cache_lock);
      waiters--;
      continue;
    }
    if (!b) {
      /* No cleaners (the host harness, or before they start): write the least recently
       * used dirty block ourselves. Data before pointer blocks: a pointer block may go out
       * only in part until the data it names is written and flushed (fs/ordering.c). */
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
        continue;
      }
      /* Every block is held or being written: wait for a release. */
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
    acquiresleep(&b->lock);   /* nobody can hold it: free at once */
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
  acquire(&cache_lock);
  if (!frame_try_busy(b->frame))
    panic("cache: block %u of file %u is under I/O twice", b->blockno, b->fileid);
  release(&cache_lock);
  int r = disk_rw(DISK_READ, (uint64_t)diskaddr * FS_SECTORS_PER_BLOCK, b->data, FS_BSIZE);
  acquire(&cache_lock);
  frame_unbusy(b->frame);
  st_reads++;
  if (r == 0)
    b->flags |= CB_VALID;
  release(&cache_lock);
  if (r < 0) {
    kprintf("fs: disk read error at block %u\n", diskaddr);
    return -EIO;
  }
  return 0;
}

void cache_assign(struct cblock *b, uint32_t diskaddr)
{
  KASSERT(holdingsleep(&b->lock));
  b->diskaddr = diskaddr;
  b->flags |= CB_VALID;
}

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

uint32_t cache_ndirty(void)
{
  return st_dirty;
}

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

static bool in_class(struct cfile *cf, enum sched_class which)
{
  return which == SCHED_ALL || (cf->fileid == CACHE_DEV) == (which == SCHED_META);
}

void cache_schedule_old(uint32_t delay_ms, uint32_t desc_delay_ms, enum sched_class which)
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
      bool desc = b->fileid == CACHE_DEV && b->blockno >= desc_lo && b->blockno < desc_hi;
      if (now - b->modified >= (desc ? desc_delay_ms : delay_ms))
        schedule(b);
    }
    enqueue(cf);              /* also files whose scheduled blocks were held last time */
  }
  release(&cache_lock);
}

void cache_wait_scheduled(enum sched_class which, uint32_t timeout_ms)
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

int cache_clean_next(void)
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
