/* What the VM needs from the file system, and nothing more (fs and vm stay apart):
 *   - backing files in /swap, created and removed by name, with their blocks allocated
 *     (reserved) when a segment grows; reserving tells the VM each block's disk address, so
 *     that it reads and writes pages straight to disk by address: never through the block
 *     cache (no double caching of VM pages), and never reading a block map through it (a
 *     page-out, which may run to give a cache miss a frame, must not re-enter the cache);
 *   - demand loading of an executable's blocks: a block the cache holds is copied from there
 *     and made the cache's oldest (it goes first); any other is read straight from disk.
 * Interface in fs/backing.h (the VM's whole view of the file system). Its lookups are the
 * kernel's (LOOKUP_KERNEL): /swap is refused to every user program (fs/protect.c). */
#include "fs/backing.h"
#include "fs/cluster.h"
#include "fs/fs.h"
#include "fs/internal.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/uapi/errno.h"
#include "drivers/disk.h"

#define SWAPDIR "swap"

/* Disk blocks held by backing files (data and indirect), so that tests can tell backing store
 * from leaks. fs/alloc.c counts them as the allocator takes and frees them (count_blocks), in
 * the same step as the free count. */
uint32_t backing_swap_blocks;

/* /swap, referenced and locked; made when missing (mkfs makes it, an older image may lack
 * it). ns_lock held. */
static struct inode *swapdir(int *err)
{
  struct inode *dp = namei_for("/" SWAPDIR, LOOKUP_KERNEL, err);
  if (dp) {
    ilock(dp);
    return dp;
  }
  return *err == -ENOENT ? create("/" SWAPDIR, T_DIR, true, LOOKUP_KERNEL, err) : 0;
}

struct inode *backing_create(const char *name, int *err)
{
  char path[FS_NAME_MAX + 8];
  snprintf(path, sizeof path, "/%s/%s", SWAPDIR, name);
  acquiresleep(&ns_lock);
  struct inode *ip = 0, *dp = swapdir(err);
  if (dp) {
    iunlockput(dp);
    ip = create(path, T_FILE, false, LOOKUP_KERNEL, err);
  }
  releasesleep(&ns_lock);
  if (!ip) {
    /* A damaged /swap (its entry naming a bad descriptor, a file, a damaged directory)
     * fails every program's start, init's too: say which. */
    if (*err == -EIO || *err == -ENOTDIR)
      kprintf("fs: /swap is unusable (error %d): no backing files\n", *err);
    return 0;
  }
  /* Backing before the truncation: one left by an earlier boot starts empty, and its blocks,
   * a backing file's, are free at once (fs/alloc.c, pending frees). */
  if (!ip->backing) {
    pushcli();                /* its blocks are backing store from now on (count_blocks) */
    ip->backing = true;
    backing_swap_blocks += ip->d.blocks;
    popcli();
  }
  *err = itrunc(ip);
  if (*err < 0) {
    iunlockput(ip);
    return 0;
  }
  iunlock(ip);
  return ip;
}

void backing_remove(struct inode *ip, const char *name)
{
  acquiresleep(&ns_lock);
  int err;
  struct inode *dp = swapdir(&err);
  if (dp) {
    uint32_t off;
    struct inode *found = dirlookup(dp, name, &off, &err);
    if (found == ip) {
      if (dirset(dp, off, 0, 0) == 0) {
        ilock(ip);
        ip->d.nlink = 0;
        iupdate(ip);
        iunlock(ip);
      }
    }
    if (found)
      iput(found);
    iunlockput(dp);
  }
  releasesleep(&ns_lock);
  iput(ip);                   /* the last reference frees the blocks */
}

static int reserve(struct inode *ip, uint32_t from, uint32_t to, uint32_t *addr)
{
  int err = 0;
  ilock(ip);
  for (uint32_t b = from; b < to && err == 0; b++) {
    err = inode_bmap(ip, b, true, &addr[b - from]);
  }
  if (ip->d.size < to * FS_BSIZE)
    ip->d.size = to * FS_BSIZE;
  int uerr = iupdate(ip);
  iunlock(ip);
  if (err == -EFBIG)
    return -ENOSPC;
  return err < 0 ? err : uerr;
}

/* At most the blocks reserving [from, to) takes: the data and the indirect blocks above it
 * (blocks the file holds already make it an overestimate). */
static uint32_t blocks_needed(uint32_t from, uint32_t to)
{
  const uint32_t single = FS_NDIRECT, dbl = FS_NDIRECT + FS_NINDIRECT;
  uint32_t n = to - from;
  if (to > single && from < dbl)
    n++;                      /* the indirect block */
  if (to > dbl) {
    uint32_t a = MAX(from, dbl) - dbl, b = to - dbl;
    n += 1 + (b - 1) / FS_NINDIRECT - a / FS_NINDIRECT + 1;    /* the double indirect and its children */
  }
  return n;
}

int backing_may_reserve(uint32_t from, uint32_t to)
{
  /* All or nothing, as far as the free count can tell: a reservation that fails half way
   * keeps the blocks it took until its segment dies, so a request that cannot fit (an
   * sbrk of 1.5 GB) would take every free block in milliseconds, and the next backing store
   * the VM reserves (another process's stack) would fail and its process be killed. */
  uint32_t need = blocks_needed(from, to);
  if (need > fs_sb.free_blocks && need <= fs_sb.free_blocks + fs_pending_blocks())
    fs_sync();                /* blocks freed lately become reusable (fs/alloc.c, pending frees) */
  return need > fs_sb.free_blocks ? -ENOSPC : 0;
}

int backing_reserve_range(struct inode *ip, uint32_t from, uint32_t to, uint32_t *addr)
{
  if (backing_may_reserve(from, to) < 0)
    return -ENOSPC;
  int err = reserve(ip, from, to, addr);
  if (err == -ENOSPC && fs_pending_blocks() > 0) {
    /* Blocks freed lately wait to be reusable (fs/alloc.c, pending frees): a sync makes
     * them so at once. */
    fs_sync();
    err = reserve(ip, from, to, addr);
  }
  return err;
}

/* A backing file's blocks stay where reserving put them until the file is removed (it is
 * never truncated while in use), so the address the VM keeps stays good. */
int backing_rw(uint32_t addr, void *buf, bool write)
{
  if (addr == 0 || addr >= fs_sb.nblocks) {
    kprintf("fs: backing store I/O at block %u, outside the disk\n", addr);
    return -EIO;
  }
  int err = disk_rw(write ? DISK_WRITE : DISK_READ, (uint64_t)addr * FS_SECTORS_PER_BLOCK, buf, FS_BSIZE);
  return err < 0 ? -EIO : 0;
}

_Static_assert(BACKING_RUN == CLUSTER_MAX_BLOCKS, "a page-out run is one call to cluster_submit");

int backing_rwv(const uint32_t *addr, void *const *buf, int n, bool write)
{
  KASSERT(n <= BACKING_RUN);
  for (int i = 0; i < n; i++)
    if (addr[i] == 0 || addr[i] >= fs_sb.nblocks) {
      kprintf("fs: backing store I/O at block %u, outside the disk\n", addr[i]);
      return -EIO;
    }
  struct disk_req reqs[BACKING_RUN];
  struct disk_seg segs[BACKING_RUN];
  int grp[BACKING_RUN], err = 0;
  int nreq = cluster_submit(write ? DISK_WRITE : DISK_READ, addr, buf, n, reqs, segs, grp);
  for (int k = 0; k < nreq; k++)
    if (disk_wait(&reqs[k]) < 0)
      err = -EIO;
  return err < 0 ? err : nreq;
}

uint32_t backing_run_limit(void)
{
  return cluster_limit();
}

int backing_read_file(struct inode *ip, uint32_t lbn, void *buf)
{
  if (cache_copy_out_oldest(ip->inum, lbn, buf))
    return 0;
  uint32_t a;
  int err = inode_bmap(ip, lbn, false, &a);
  if (err < 0)
    return err;
  if (a == 0) {
    memset(buf, 0, FS_BSIZE);
    return 0;
  }
  err = disk_rw(DISK_READ, (uint64_t)a * FS_SECTORS_PER_BLOCK, buf, FS_BSIZE);
  return err < 0 ? -EIO : 0;
}
