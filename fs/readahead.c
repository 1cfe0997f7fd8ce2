/* Reading blocks into the cache: one block (cache_fill, cache_read_dev), or, for a file read
 * sequentially, a run of blocks ahead of the reader in one request (the read-ahead).
 *
 * A file read from its start to its end in 4 KB calls costs a disk request a block, and a
 * disk that charges a seek and a rotation per request (a 1990 disk, or QEMU's throttle)
 * spends most of its time on those. The read-ahead notices a sequential reader and reads,
 * at the miss, the blocks that follow too, as long as they lie side by side on the disk:
 * one request (fs/cluster.c gathers the cache blocks' frames, wherever they are in memory).
 *
 * Each inode remembers the block its reader should ask for next (ra_next) and a window
 * (ra_win). A read of block ra_next, or of ra_next - 1 again (small reads), is sequential;
 * any other read is a seek and drops the window. At a miss that is sequential the window
 * doubles, from 4 blocks up to fs.readahead_max (16: 64 KB), and the miss reads that many
 * blocks, the missed one first: so a sequential reader's requests grow 16, 32, 64 KB and
 * stay there, and a random reader never reads a block it did not ask for. The run stops
 * early at the end of the file, at a hole, at a block already cached, at a block not next
 * on the disk, and where no cache block is to be had without waiting (cache_get_new): the
 * read-ahead never waits for memory and never takes a block from anyone. Nor does a run take
 * more than a quarter of the blocks the cache holds, so that in a small cache it does not
 * push out what the reader, or the run itself, is about to use.
 *
 * Unlike Linux's, this read-ahead is synchronous: the reader waits for the whole run, not
 * only for its block, and the next run is read at the next miss rather than while the
 * reader works through this one. On a disk bound by requests the run costs little more than
 * the one block; its gain is the requests saved, which is what a throttled disk charges.
 *
 * Counters: fs.readahead.blocks (read ahead of the reader), fs.readahead.used (of those, the
 * ones a reader then asked for while they were still cached). fs.readahead=0 turns it off.
 */
#include "fs/cache_internal.h"
#include "fs/internal.h"
#include "fs/cluster.h"
#include "kernel/klib.h"
#include "kernel/sysctl.h"
#include "kernel/stats.h"
#include "kernel/uapi/errno.h"
#include "drivers/disk.h"

#define RA_FIRST 4                  /* the window at a file's first sequential miss */

static uint32_t ra_on = 1, ra_max = CLUSTER_MAX_BLOCKS;
static uint32_t st_ra_blocks, st_ra_used, st_ra_runs;

static const struct setting settings[] = {
  { "fs.readahead", "1: read ahead of a sequential reader; 0: read only what is asked for",
    &ra_on, 0, 1, 0, 0 },
  { "fs.readahead_max", "blocks one read-ahead may read, the missed one included (its window's limit)",
    &ra_max, 1, CLUSTER_MAX_BLOCKS, 0, 0 },
};

static const struct counter counters[] = {
  COUNTER("fs.readahead.blocks", &st_ra_blocks),
  COUNTER("fs.readahead.used", &st_ra_used),
  COUNTER("fs.readahead.runs", &st_ra_runs),
};

void readahead_init(void)
{
  setting_register_table(settings, NELEM(settings));
  stat_register_table(counters, NELEM(counters));
}

/* Reads n locked, invalid blocks, v[i] from disk address addr[i], in as few requests as their
 * addresses allow. Returns 0, or -EIO when some failed (those stay invalid). */
static int fill(struct cblock **v, const uint32_t *addr, int n)
{
  void *buf[CLUSTER_MAX_BLOCKS];
  acquire(&cache_lock);
  for (int i = 0; i < n; i++) {
    v[i]->diskaddr = addr[i];
    buf[i] = v[i]->data;
    if (!frame_try_busy(v[i]->frame))
      panic("cache: block %u of file %u is under I/O twice", v[i]->blockno, v[i]->fileid);
  }
  release(&cache_lock);
  struct disk_req reqs[CLUSTER_MAX_BLOCKS];
  struct disk_seg segs[CLUSTER_MAX_BLOCKS];
  int grp[CLUSTER_MAX_BLOCKS];
  int nreq = cluster_submit(DISK_READ, addr, buf, n, reqs, segs, grp);
  for (int k = 0; k < nreq; k++)
    disk_wait(&reqs[k]);
  int err = 0;
  acquire(&cache_lock);
  for (int i = 0; i < n; i++) {
    frame_unbusy(v[i]->frame);
    st_reads++;
    if (reqs[grp[i]].status == 0)
      v[i]->flags |= CB_VALID;
    else
      err = -EIO;
  }
  release(&cache_lock);
  if (err < 0)
    kprintf("fs: disk read error at block %u\n", addr[0]);
  return err;
}

int cache_fill(struct cblock *b, uint32_t diskaddr)
{
  KASSERT(holdingsleep(&b->lock) && !(b->flags & CB_VALID));
  if (diskaddr == 0 || diskaddr >= disk_nblocks) {
    kprintf("fs: read of block %u, outside the disk\n", diskaddr);
    return -EIO;
  }
  return fill(&b, &diskaddr, 1);
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

void readahead_note(struct inode *ip, struct cblock *b, uint32_t lbn)
{
  bool seq = lbn == ip->ra_next || lbn + 1 == ip->ra_next;
  if (!seq)
    ip->ra_win = 0;               /* a seek: start again from one block */
  ip->ra_seq = seq;
  ip->ra_next = lbn + 1;
  if (b->flags & CB_AHEAD) {
    acquire(&cache_lock);
    b->flags &= ~CB_AHEAD;
    st_ra_used++;
    release(&cache_lock);
  }
}

int readahead_fill(struct inode *ip, struct cblock *b, uint32_t lbn, uint32_t addr)
{
  KASSERT(holdingsleep(&b->lock) && !(b->flags & CB_VALID));
  if (addr == 0 || addr >= disk_nblocks) {
    kprintf("fs: read of block %u, outside the disk\n", addr);
    return -EIO;
  }
  struct cblock *v[CLUSTER_MAX_BLOCKS];
  uint32_t a[CLUSTER_MAX_BLOCKS];
  int n = 0;
  v[n] = b;
  a[n++] = addr;
  if (ra_on && ip->ra_seq) {
    ip->ra_win = ip->ra_win ? MIN(2 * ip->ra_win, ra_max) : MIN((uint32_t)RA_FIRST, ra_max);
    uint32_t last = (ip->d.size + FS_BSIZE - 1) / FS_BSIZE;    /* blocks in the file */
    /* A run never takes more than a quarter of the cache: in a small one (64 KB, 16 blocks)
     * a full window would push out everything else, the blocks read ahead included. */
    uint32_t want = MIN(MIN(ip->ra_win, cluster_limit()), MAX(1u, cache_blocks_held() / 4)), run = 1;
    /* The addresses first: the block map may read an indirect block through the cache, which
     * may wait for a block, and must not while we hold the run's blocks (a small fixed cache
     * could be all ours). */
    for (uint32_t next; run < want && lbn + run < last; run++)
      if (inode_bmap(ip, lbn + run, false, &next) < 0 || next != addr + run)
        break;                    /* a hole, or not next on the disk: another request */
    while ((uint32_t)n < run) {
      struct cblock *nb = cache_get_new(ip->inum, lbn + n);
      if (!nb)
        break;                    /* cached already, or no block without waiting */
      v[n] = nb;
      a[n] = addr + n;
      n++;
    }
  }
  int err = fill(v, a, n);
  if (n > 1) {
    acquire(&cache_lock);
    st_ra_runs++;
    for (int i = 1; i < n; i++)
      if (v[i]->flags & CB_VALID) {
        v[i]->flags |= CB_AHEAD;
        st_ra_blocks++;
      }
    release(&cache_lock);
  }
  for (int i = 1; i < n; i++)
    cache_release(v[i]);          /* a failed one is dropped by the release */
  return b->flags & CB_VALID ? 0 : err;
}
