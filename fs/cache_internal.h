/* What the parts of the block cache share, and nothing else in the kernel needs: fs/cache.c
 * (names, the LRU list, getting and releasing blocks, the cache's size), fs/writeback.c (the
 * dirty lists, the delayed-write daemon and the cleaners) and fs/sync.c (sync and the flush).
 * The locking rules are at the top of fs/cache.c. */
#ifndef FS_CACHE_INTERNAL_H
#define FS_CACHE_INTERNAL_H
#include "fs/cache.h"
#include "fs/layout.h"
#include "kernel/spinlock.h"
#include "kernel/mem/coremap.h"

#define NCFILE  256                 /* files with dirty blocks (or a name or error) at once */

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

/* cache.c */
extern struct spinlock cache_lock;  /* the hash table, the lists, reference counts and flags */
extern uint32_t disk_nblocks;       /* the disk's size, for a last range check */
extern struct cblock lru;           /* sentinel: lru.next is the oldest, lru.prev the newest */
extern int waiters;                 /* processes waiting for a block to become free */
uint32_t cache_blocks_held(void);   /* frames the cache holds now (fs.cache.blocks) */
/* cache.c, for its audit (fs/cache_audit.c; cache_lock held): the other two lists' sentinels,
 * the frames it counts, and a block found by its name. */
extern struct cblock freelist, spare;
extern uint32_t nframes_held;
struct cblock *cache_lookup(uint32_t fileid, uint32_t blockno);
int cache_audit(bool quiet);

/* Block headers live in pages of the kernel pool, made at boot, one header for every frame
 * of memory: no table caps the cache (they cost 2 % of memory), and the kernel pool does not
 * change size as the cache does. */
struct hpage {
  struct hpage *next;
  uint32_t n;
  struct cblock b[];
};
extern struct hpage *hpages;

#define FOR_EACH_HEADER(hp, b) \
  for (struct hpage *hp = hpages; hp; hp = hp->next) \
    for (struct cblock *b = hp->b; b < hp->b + hp->n; b++)

/* A block under disk I/O has its frame busy (kernel/mem/coremap.h: busy, wait for it); a valid one
 * is being written, an invalid one read. */
static inline bool busy(struct cblock *b) { return b->frame && frame_busy(b->frame); }
static inline bool writing(struct cblock *b) { return busy(b) && (b->flags & CB_VALID); }

/* writeback.c: the dirty files, and the counters (cache.c registers them with its own, in
 * the order vmstat prints them). */
extern struct cfile cfiles[NCFILE];
extern bool cache_have_cleaners;    /* set once cleaner threads run: someone serves the queue */
extern uint32_t st_reads;           /* cache.c: blocks read from the disk (fs.disk.reads) */
extern uint32_t st_dirty, st_writes, st_writes_data, st_writes_meta, st_writes_desc;
extern uint32_t st_flushes, st_wb_delayed, st_wb_recycled, st_wb_fsync, st_wb_errors;

/* writeback.c, for cache.c (cache_lock held). */
void dirty_remove(struct cblock *b);        /* off its file's dirty list: not to be written */
void schedule(struct cblock *b);            /* a dirty block goes to the cleaners */
/* cache_get found no clean block and no frame: gets dirty ones written, or waits for a
 * release (cache_lock let go meanwhile); the caller then looks again. */
void wait_for_clean_block(void);
/* The cache's audit of the dirty lists: the number of problems, each named unless quiet
 * (headers: how many blocks exist, to stop on a list that loops). */
int dirty_audit(bool quiet, uint32_t headers);

/* writeback.c, for sync.c and flushd.c (cache_lock held). */
extern uint32_t dirtyseq;           /* blocks dirtied so far: the latest sequence number */
extern uint32_t cache_desc_lo, cache_desc_hi;   /* descriptor blocks: [lo, hi) */
struct cfile *cf_find(uint32_t fileid, bool create);   /* 0 when not found (or no room) */

/* flushd.c: the dirty-file queue (cache_lock held). */
void enqueue(struct cfile *cf);     /* on the dirty-file queue, if it has scheduled blocks */
/* Blocks waiting for a cleaner or being written (fs.cache.scheduled; takes cache_lock). */
uint32_t cache_scheduled(void);
/* The write policy's setting and the daemon's (from writeback_init). */
void flushd_init(void);
/* Writes the dirty blocks of cf: only the scheduled ones (sync false), or every one that
 * became dirty up to maxseq, waiting for blocks others hold (sync true). The caller owns
 * cf->cleaning; cache_lock is let go during the I/O. */
int clean_file(struct cfile *cf, bool sync, uint32_t maxseq, int *written);

/* sync.c */
void flush_init(void);

/* dirtybound.c: the bound on dirty blocks (its design at its top). cache_lock held. */
extern uint32_t st_dirty_data, st_sched_data;   /* dirty data blocks; of them, scheduled */
void dirty_bound_init(void);
void dirty_bound_added(void);       /* a block became dirty: past the lower bound, clean */
void dirty_bound_written(void);     /* a write-back completed: throttled writers look again */
void dirty_bound_tick(void);        /* the daemon's tick (cache_lock not held): so they see time */
/* A writer about to make locked block b dirty waits here while the count is at the upper
 * bound (cache_lock let go meanwhile: b may lose its identity). */
void dirty_throttle(struct cblock *b);
void dirty_bound_reset(void);       /* fs.dirty.max starts again (neg.reset) */
#endif
