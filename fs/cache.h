/* The block cache (Sprite thesis ch. 3.2 and 3.5): 4 KB blocks named by (file, block), and
 * delayed write. fs/cache.c is the cache itself (names, the LRU list, getting and releasing
 * blocks, its size and what it tells the negotiation), fs/writeback.c the dirty lists, the
 * write-back daemon and the cleaners, fs/sync.c sync and the disk flush; each opens with
 * its design. A block comes locked (its sleeplock) and referenced; cache_release lets go of
 * both.
 */
#ifndef FS_CACHE_H
#define FS_CACHE_H
#include "kernel/types.h"
#include "kernel/sleeplock.h"

#define CACHE_DEV          0u       /* file id of blocks named by disk address */
#define CACHE_MIN_KB       64u      /* the least fs.cache_min_kb: 16 blocks */

#define CB_VALID   0x01     /* data holds the block's contents */
#define CB_DIRTY   0x02     /* data differs from the disk */
#define CB_SCHED   0x04     /* scheduled for write-back */
#define CB_RECYCLE 0x08     /* to the free list once clean (it reached the LRU head) */
#define CB_AHEAD   0x10     /* read ahead, not yet asked for (fs/readahead.c) */

enum write_policy { WP_DELAY, WP_THROUGH, WP_ASAP };

struct frame;
struct cfile;

struct cblock {
  uint32_t fileid;          /* CACHE_DEV, or a descriptor number */
  uint32_t blockno;         /* logical block in the file, or disk address for CACHE_DEV */
  uint32_t diskaddr;        /* where it lives on disk; 0 until known */
  uint32_t flags;           /* CB_* */
  int refcnt;               /* holders (and waiters for the sleeplock) */
  bool hashed;              /* has an identity: in the hash table and on the LRU list */
  uint32_t lastref;         /* ms since boot of the last access */
  uint32_t modified;        /* ms since boot it became dirty: the age of its oldest change */
  uint32_t dirtyseq;        /* when it became dirty, in dirtyings: bounds a sync's work */
  struct sleeplock lock;
  struct frame *frame;      /* 0 while the header is spare */
  uint8_t *data;            /* the frame's kernel address */
  struct cblock *hnext;     /* hash chain */
  struct cblock *prev, *next;   /* LRU list, free list or spare list */
  struct cblock *dprev, *dnext; /* the file's dirty list */
  struct cfile *cf;         /* the file whose dirty list holds it */
};

void cache_init(void);
/* Descriptor blocks [lo, hi) are written after fs.desc_delay instead of fs.writeback_delay. */
void cache_set_desc_range(uint32_t lo, uint32_t hi);

/* Returns the block (fileid, blockno), locked and referenced. It may not be valid yet: the
 * caller then fills it (cache_fill, or cache_assign after writing all of data). */
struct cblock *cache_get(uint32_t fileid, uint32_t blockno);
/* For the read-ahead (fs/readahead.c): a new block (fileid, blockno), locked, not valid, or 0
 * when it is cached already or no block can be had without waiting. */
struct cblock *cache_get_new(uint32_t fileid, uint32_t blockno);
/* Reads a locked, invalid block from diskaddr. 0 or -EIO (the block stays invalid).
 * fs/readahead.c, with cache_read_dev and the read-ahead. */
int cache_fill(struct cblock *b, uint32_t diskaddr);
/* The caller has put the block's full contents in b->data: it is valid, at diskaddr. */
void cache_assign(struct cblock *b, uint32_t diskaddr);
/* The caller changed a locked, valid block: under the write policy it is dirty (delay),
 * scheduled at once (asap) or written before returning (through: 0 or -EIO). */
int cache_dirty(struct cblock *b);
/* Writes a locked, valid block now, whatever the policy (the superblock, a new indirect
 * block's zeroes). 0 or -EIO; on failure it stays dirty. */
int cache_write_now(struct cblock *b);
/* Unlocks and drops the reference. */
void cache_release(struct cblock *b);
/* Like cache_release, but the contents are not to be trusted: the block loses its identity. */
void cache_discard(struct cblock *b);

/* A device block (superblock, bitmap, descriptors, indirect), locked and valid; 0 with
 * *err = -EIO when it cannot be read. */
struct cblock *cache_read_dev(uint32_t diskaddr, int *err);
/* A freed block's cached copy is dropped, dirty or not, without writing it (waits for a
 * write-back in flight, so the disk block is quiet before it can be handed out again). */
void cache_invalidate(uint32_t fileid, uint32_t blockno);

/* Which of blocks [from, from + n) of the file are in the cache (vec[i]: INCORE_* bits of
 * uapi/syscall.h), looked up without touching the LRU order: asking changes nothing. */
void cache_incore(uint32_t fileid, uint32_t from, uint32_t n, uint8_t *vec);

/* For the VM's demand loading (no double caching): when (fileid, blockno) is cached and
 * valid, copies it to dst, makes it the oldest block (the next to go) and returns true. */
bool cache_copy_out_oldest(uint32_t fileid, uint32_t blockno, void *dst);

/* Writes every block of the file (CACHE_DEV: device blocks) that was dirty when called,
 * or of all files, and waits. 0, or -EIO when some write failed. */
int cache_sync_file(uint32_t fileid);
int cache_sync_data(void);          /* every file's blocks, not the device's */
/* All of it, data before metadata with a flush between (fs/ordering.c); flush after it. */
int cache_sync_all(void);
/* Asks the disk to put what it has been given on stable storage (virtio flush). */
int cache_flush_disk(void);
uint32_t cache_ndirty(void);
/* Dirty sequence numbers: the latest handed out, and the oldest not yet durable (every
 * change dirtied before it is on stable storage). For fs/alloc.c's pending frees. */
uint32_t cache_seq_now(void);
uint32_t cache_durable_seq(void);
bool cache_unflushed(void);         /* some write completed since the last flush began */

/* The file's name for messages about it (a failed write-back names it on the console). */
void cache_set_name(uint32_t fileid, const char *name);
/* The error of a failed write-back of the file since the last call (0 or -EIO), cleared. */
int cache_take_error(uint32_t fileid);

/* fs/writeback.c, fs/flushd.c: settings and boot keys first (at boot), the daemon and the
 * cleaners once the disk is mounted. */
void writeback_init(void);
void writeback_start(void);
extern uint32_t cache_policy;       /* enum write_policy (fs.write_policy) */
/* fs/super.c: takes the clean mark off the disk before the cache writes to it after a sync. */
void fs_dirtying(void);
#endif
