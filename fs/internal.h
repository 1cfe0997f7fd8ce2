/* What the parts of the file system share among themselves (not for the rest of the kernel:
 * that is fs/fs.h).
 *
 * Locking, from the outside in:
 *   ns_lock      one sleeplock for every change to the name space (create, unlink, mkdir,
 *                rmdir, rename), so that those never race each other and may hold a
 *                directory and a child locked at once (always parent, then child). Lookups
 *                and reads do not take it and hold at most one inode lock at a time.
 *   inode lock   a sleeplock per in-memory inode; guards its descriptor copy and contents.
 *   alloc_lock   a sleeplock around the bitmap and descriptor allocation and the free
 *                counts (taken with an inode, and maybe a cache block, already locked).
 *   cache blocks a sleeplock each, innermost but for alloc_lock's bitmap blocks.
 *   icache.lock  a spinlock for reference counts and the text/writer counts.
 */
#ifndef FS_INTERNAL_H
#define FS_INTERNAL_H
#include "kernel/types.h"
#include "kernel/sleeplock.h"
#include "kernel/uapi/stat.h"
#include "fs/layout.h"
#include "fs/cache.h"

#define NINODE     128      /* inodes in memory at once */
#define FS_MAXPATH 256      /* longest path a system call accepts, NUL included */

struct inode {
  uint32_t inum;
  int ref;                  /* references (icache.lock) */
  struct sleeplock lock;
  bool valid;               /* d has been read from disk */
  int err;                  /* 0, or -EIO: the descriptor is damaged or unreadable */
  int writers;              /* open files that may write it (icache.lock) */
  int text;                 /* processes running it as a program (icache.lock) */
  uint32_t lastblk;         /* disk block it was last given: the next goes near it */
  uint32_t parent;          /* directory it was created or renamed in (for fsync), or 0 */
  bool backing;             /* a VM backing file: may use the blocks kept for them */
  uint32_t ra_next, ra_win; /* read-ahead: the block a sequential reader reads next, window */
  bool ra_seq;              /* the last block read was ra_next (fs/readahead.c) */
  struct fs_desc d;         /* copy of the on-disk descriptor */
};

/* What a path is looked up for: a user program's system call reads (or runs, or enters) it,
 * asks about it (stat), or changes it or, for a parent lookup, an entry of its directory; or
 * the kernel looks it up for itself (fs/backing.c). fs/protect.c says what each may reach. */
enum lookup_for { LOOKUP_READ, LOOKUP_STAT, LOOKUP_CHANGE, LOOKUP_KERNEL };

extern struct fs_super fs_sb;       /* the mounted superblock (free counts kept exact) */
extern struct sleeplock ns_lock;

/* inode.c */
void iinit(void);
struct inode *iget(uint32_t inum);          /* 0 when the inode table is full */
/* The in-memory inode for inum, referenced; with fresh (for ialloc), a descriptor still
 * referenced in memory is not handed out: *inuse is set instead. 0 when the table is full. */
struct inode *iget_common(uint32_t inum, bool fresh, bool *inuse);
int iupdate(struct inode *ip);              /* puts ip->d in its (dirty) descriptor block */
int writei(struct inode *ip, bool user, uint32_t src, uint32_t off, uint32_t n);
int itrunc(struct inode *ip);               /* frees every block: size 0 */
void istat(struct inode *ip, struct stat *st);
/* Open-for-writing count, for ETXTBSY. */
int inode_write_get(struct inode *ip);
void inode_write_put(struct inode *ip);
uint32_t fs_now(void);                      /* seconds since boot, for mtime */
/* The disk block of logical block lbn (0 for a hole unless alloc): 0 or -errno. */
int inode_bmap(struct inode *ip, uint32_t lbn, bool alloc, uint32_t *addr);

/* readahead.c: readi tells each block it reads (b, locked: block lbn of ip, locked), and
 * reads a missed one with readahead_fill (from disk address addr, with the blocks that follow
 * it when the reader is sequential). 0 or -EIO. */
void readahead_init(void);
void readahead_note(struct inode *ip, struct cblock *b, uint32_t lbn);
int readahead_fill(struct inode *ip, struct cblock *b, uint32_t lbn, uint32_t addr);
/* Files unlinked while still open (a disk with any is not clean). */
bool have_orphans(void);

/* super.c: puts the file's data, its descriptor, indirect and bitmap blocks, and the
 * directory it was created in on the disk's stable storage. 0, or -EIO (also for an earlier
 * failed write-back of the file). ip need not be locked. */
int fs_fsync(struct inode *ip);

/* alloc.c */
extern struct sleeplock alloc_lock;
void alloc_mount(void);         /* at mount, before the repair: pending frees, search starts */
void alloc_register(void);      /* once mounted: fs.backing_reserve and the counters */
/* A new descriptor, referenced and unlocked, near descriptor near (its directory's). */
struct inode *ialloc(int type, uint32_t near, int *err);
/* A descriptor freed by iput, pending like a block (its name may still be on disk). */
void dfree(uint32_t inum, bool backing);
/* A new block for ip near its last one (zeroed on disk when it will hold pointers), counted
 * in ip->d.blocks: 0, or -ENOSPC / -EIO. */
int newblock(struct inode *ip, bool zero, uint32_t *addr);
int bfree(uint32_t addr, bool backing);     /* pending until the change is durable: 0 or -EIO */
/* Pending frees (fs/ordering.c rule 2): a cut starts waiting for what was freed so far; a
 * release (after a flush) frees what has waited long enough, returning how many. */
void fs_pending_cut(void);
int fs_pending_release(void);
uint32_t fs_pending_blocks(void);
uint32_t fs_pending_descs(void);

/* repair.c: makes a disk left by a crash consistent (at mount, before any allocation). */
void fs_repair(void);

/* dir.c */
/* Looks name up in the locked directory dp: a referenced, unlocked inode or 0 (*err set).
 * *poff gets the entry's offset when poff is not 0. */
struct inode *dirlookup(struct inode *dp, const char *name, uint32_t *poff, int *err);
/* Adds (name, inum) to the locked directory dp: 0 or -errno. The name must not exist. */
int dirlink(struct inode *dp, const char *name, uint32_t inum);
/* Rewrites the entry at off to name inum (or clears it when inum is 0). */
int dirset(struct inode *dp, uint32_t off, const char *name, uint32_t inum);
/* 1 when the locked directory holds nothing but "." and "..", 0 if not, or -errno. */
int dir_isempty(struct inode *dp);
/* namei for a purpose (fs/protect.c decides what a user may reach). */
struct inode *namei_for(const char *path, enum lookup_for how, int *err);
/* The parent directory of path's last element (referenced, unlocked), with that element in
 * name; 0 with *err set on failure (-EBUSY when the path has no last element, like "/").
 * Looked up to change an entry: how is LOOKUP_CHANGE, or LOOKUP_KERNEL. */
struct inode *nameiparent(const char *path, enum lookup_for how, char *name, int *err);
/* sysdir.c: makes path (ns_lock held), returned locked; an existing file as it is unless
 * excl, then -EEXIST. how as for nameiparent. */
struct inode *create(const char *path, int type, bool excl, enum lookup_for how, int *err);
/* create() for a user (LOOKUP_CHANGE), taking ns_lock; a full disk that pending frees make
 * full gets a sync and one more try. */
struct inode *create_retry(const char *path, int type, bool excl, int *err);

/* protect.c: what a user's path may reach. A lookup asks before each step from directory dir
 * to its entry name (last: the path's last element): 0, or -EACCES (/swap) or -EPERM (a
 * change to /bin). Called with no inode locked. */
int protect_step(uint32_t dir, const char *name, bool last, enum lookup_for how);
void protect_init(void);        /* registers fs.bin_writable */
#endif
