/* The block cache (Sprite thesis ch. 3).
 *
 * Blocks are 4 KB and named virtually: a file's data block by (file id, logical block
 * number), so a hit needs no block map; blocks that belong to no file (the superblock, the
 * bitmap, descriptors, indirect blocks) by the device file id CACHE_DEV and their disk
 * address. Each cached block's data is one core-map frame of POOL_CACHE, whose owner field
 * points back at the block header.
 *
 * Lists: every block that has an identity (is in the hash table) is on the LRU list, kept in
 * perfect LRU order (moved to the tail, with the time, on every access); blocks that hold a
 * frame but no identity are on the free list. A new identity takes a block from the free
 * list, else grows the cache by a frame while under its size limit, else takes the least
 * recently used block that nobody holds and that is clean (cache_alloc_block, the one place
 * a later negotiation with the VM plugs in).
 *
 * Locking: a spinlock guards the hash table, the lists and reference counts; each block has
 * a sleeplock held by whoever reads or changes its contents (cache_get returns it locked).
 * While a block is under disk I/O its frame is FRAME_BUSY (the core map's "busy, wait for
 * it"), so the VM and the cache agree on what may not be taken.
 *
 * Writing: cache_write marks a block dirty and, in this version, writes it through to disk
 * at once (write-through); the dirty flag and cache_sync_* are where delayed write goes.
 */
#ifndef FS_CACHE_H
#define FS_CACHE_H
#include "kernel/types.h"
#include "kernel/sleeplock.h"

#define CACHE_DEV          0u       /* file id of blocks named by disk address */
#define CACHE_MAX_BLOCKS   4096u    /* headers are a static array: 16 MB of cache at most */
#define CACHE_MIN_BLOCKS   16u
#define CACHE_DEFAULT_BLOCKS 256u

#define CB_VALID 0x1        /* data holds the block's contents */
#define CB_DIRTY 0x2        /* data differs from the disk */

struct frame;

struct cblock {
  uint32_t fileid;          /* CACHE_DEV, or a descriptor number */
  uint32_t blockno;         /* logical block in the file, or disk address for CACHE_DEV */
  uint32_t diskaddr;        /* where it lives on disk; 0 until known */
  uint32_t flags;           /* CB_VALID, CB_DIRTY */
  int refcnt;               /* holders (and waiters for the sleeplock) */
  bool hashed;              /* has an identity: in the hash table and on the LRU list */
  uint32_t lastref;         /* ms since boot of the last access */
  struct sleeplock lock;
  struct frame *frame;      /* 0 while the header is unused */
  uint8_t *data;            /* the frame's kernel address */
  struct cblock *hnext;     /* hash chain */
  struct cblock *prev, *next;   /* LRU list or free list */
};

void cache_init(void);

/* Returns the block (fileid, blockno), locked and referenced. It may not be valid yet: the
 * caller then fills it (cache_fill, or cache_assign after writing all of data). Sleeps when
 * every block is in use. */
struct cblock *cache_get(uint32_t fileid, uint32_t blockno);
/* Reads a locked, invalid block from diskaddr. 0 or -EIO (the block stays invalid). */
int cache_fill(struct cblock *b, uint32_t diskaddr);
/* The caller has put the block's full contents in b->data: it is valid, at diskaddr. */
void cache_assign(struct cblock *b, uint32_t diskaddr);
/* Marks a locked, valid block dirty and (write-through, for now) writes it. 0 or -EIO; on
 * failure the block loses its identity, so a later read sees what the disk holds. */
int cache_write(struct cblock *b);
/* Unlocks and drops the reference. */
void cache_release(struct cblock *b);
/* Like cache_release, but the contents are not to be trusted: the block loses its identity. */
void cache_discard(struct cblock *b);

/* A device block (superblock, bitmap, descriptors, indirect), locked and valid; 0 with
 * *err = -EIO when it cannot be read. */
struct cblock *cache_read_dev(uint32_t diskaddr, int *err);
/* A freed block's cached copy is dropped (a truncated file's blocks, a freed indirect). */
void cache_invalidate(uint32_t fileid, uint32_t blockno);

/* For the VM's demand loading (no double caching): when (fileid, blockno) is cached and
 * valid, copies it to dst, makes it the oldest block (the next to go) and returns true. */
bool cache_copy_out_oldest(uint32_t fileid, uint32_t blockno, void *dst);

/* Writes every dirty block of the file (CACHE_DEV: device blocks), or of all files.
 * 0, or -EIO when some write failed. */
int cache_sync_file(uint32_t fileid);
int cache_sync_all(void);
#endif
