/* The block cache (Sprite thesis ch. 3.2 and 3.5): 4 KB blocks, delayed write.
 *
 * Blocks are named virtually: a file's data block by (file id, logical block number), so a
 * hit needs no block map; blocks that belong to no file (the superblock, the bitmap,
 * descriptors, indirect blocks) by the device file id CACHE_DEV and their disk address. A
 * hash table of chains finds a block in O(1) whatever the cache size. Each block's data is
 * one core-map frame of POOL_CACHE (owner: the block header). The cache's size follows
 * demand (Sprite thesis 6.3): it grows by taking a frame, free or traded from the VM
 * (kernel/negotiate.c), and shrinks when the VM asks for its oldest clean block; it never goes
 * below fs.cache_min_kb when asked, nor above fs.cache_max_kb if set, and with
 * fs.cache_fixed_kb set it grows to that size and stays. Headers are made a page at a
 * time as the cache grows; those without a frame wait on a spare list.
 *
 * Lists (thesis Figure 3-1):
 *   LRU list     every block with an identity, in perfect LRU order: moved to the tail,
 *                with the time, on every access. Written-back blocks stay where they are.
 *   free list    blocks with a frame but no identity; taken first.
 *   dirty list   per file (struct cfile): every dirty block of that file.
 *   dirty files  a queue of the files that have blocks scheduled for write-back, served by
 *                the block cleaners (fs/cleaner.c), one cleaner per file at a time.
 *
 * A write only dirties the block (fs.write_policy=delay). The cleaner daemon schedules
 * blocks dirty for fs.writeback_delay seconds (descriptor blocks: fs.desc_delay), counted
 * from their oldest unsaved change so that a block changed over and over still goes out;
 * a cleaner writes a file's scheduled blocks with several requests in flight. A block
 * scheduled because it reached the LRU head for recycling goes to the free list once
 * clean. A new identity takes a free block, else a new frame while the cache may grow,
 * else the least recently used clean block that nobody holds (dirty ones met on the way
 * are scheduled); when there is no clean block at all, the allocating process waits for
 * the cleaners (it never writes itself: it may hold other blocks and inodes locked). A
 * block under I/O is never taken.
 *
 * Locking: cache_lock (a spinlock) guards the hash table, the lists, reference counts and
 * flags; each block has a sleeplock held by whoever reads or changes its contents, and by
 * the writer of a write-back for the whole I/O (so a block changed meanwhile waits, then
 * is dirty again). A block nobody references has a free sleeplock, so a cleaner may take
 * it while holding cache_lock. While a block is under disk I/O (read, or written back) its
 * frame is busy, the core map's one "busy, wait for it" (kernel/coremap.h): nobody takes the
 * block, and whoever must wait for the I/O to end waits on the frame (frame_wait).
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
/* Reads a locked, invalid block from diskaddr. 0 or -EIO (the block stays invalid). */
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
 * change dirtied before it is on stable storage). For fs/inode.c's pending frees. */
uint32_t cache_seq_now(void);
uint32_t cache_durable_seq(void);
bool cache_unflushed(void);         /* some write completed since the last flush began */

/* The file's name for messages about it (a failed write-back names it on the console). */
void cache_set_name(uint32_t fileid, const char *name);
/* The error of a failed write-back of the file since the last call (0 or -EIO), cleared. */
int cache_take_error(uint32_t fileid);

/* For the cleaner daemon and threads (fs/cleaner.c). */
enum sched_class { SCHED_DATA, SCHED_META, SCHED_ALL };   /* files' blocks, device blocks */
void cache_schedule_old(uint32_t delay_ms, uint32_t desc_delay_ms, enum sched_class which);
/* Waits (polling) until no file of the class has blocks scheduled or being written. */
void cache_wait_scheduled(enum sched_class which, uint32_t timeout_ms);
/* Waits for a file with scheduled blocks and writes them; returns blocks written. */
int cache_clean_next(void);
extern bool cache_have_cleaners;
/* fs/cleaner.c: settings and boot keys first, threads once the disk is mounted. */
void cleaner_init(void);
void cleaner_start(void);    /* set once cleaner threads run: someone serves the queue */
extern uint32_t cache_policy;       /* enum write_policy (fs.write_policy) */
/* fs/inode.c: takes the clean mark off the disk before the cache writes to it after a sync. */
void fs_dirtying(void);
#endif
