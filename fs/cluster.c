/* Clustering: blocks that lie side by side on the disk go to it in one request.
 *
 * A 1990 disk charged a seek and a rotation for every request and a transfer time for every
 * byte; QEMU's throttle (tools/runqemu.py) charges the same two budgets, requests a second
 * and bytes a second. Sixteen 4 KB blocks written one request each cost sixteen requests;
 * side by side on the disk they can go as one 64 KB request that gathers the sixteen frames
 * wherever they lie in memory (drivers/virtio_blk.c: a request of several buffers).
 *
 * cluster_submit takes n blocks, each a disk address and a 4 KB buffer, in any order; it
 * sorts them by address and cuts the sorted list into runs of consecutive addresses, each
 * at most fs.cluster_max blocks (and what the device takes), and submits one request a run.
 * Every block keeps its own buffer, so whatever the caller put there goes out: the write
 * ordering's filtered copy of a pointer block (fs/ordering.c), not the cached block, is
 * what a cluster carries for it, exactly as a request of its own would. A block's write is
 * done, or failed, with its run: the caller reads each block's request from grp[].
 *
 * Its users: the cleaners' write-back (fs/writeback.c, write_batch), the read-ahead
 * (fs/readahead.c) and the VM's page-out through the backing-store interface (fs/backing.c,
 * backing_rwv). fs.cluster_max=1 gives one request a block, as before clustering.
 *
 * Clustering changes what a power cut can leave: the disk may keep any subset of the blocks
 * of one request, as of separate requests (tools/crash/crashstates.py tears requests at
 * any block), so no rule may count on a cluster landing whole, and none does: the ordering
 * rules are about flushes, which clustering leaves where they were.
 */
#include "fs/cluster.h"
#include "fs/layout.h"
#include "kernel/klib.h"
#include "kernel/sysctl.h"
#include "kernel/stats.h"

static uint32_t cluster_max = DISK_MAX_SEGS;
static uint32_t st_requests, st_blocks, st_largest;

static const struct setting max_setting = {
  "fs.cluster_max", "blocks one write-back, read-ahead or page-out request may carry (1: a request a block)",
  &cluster_max, 1, DISK_MAX_SEGS, 0, 0,
};

static const struct counter counters[] = {
  COUNTER("fs.cluster.requests", &st_requests),
  COUNTER("fs.cluster.blocks", &st_blocks),
  COUNTER("fs.cluster.largest", &st_largest),
};

void cluster_init(void)
{
  setting_register(&max_setting);
  stat_register_table(counters, NELEM(counters));
}

uint32_t cluster_limit(void)
{
  return MIN(cluster_max, disk_max_segs());
}

int cluster_submit(enum disk_op op, const uint32_t *addr, void *const *buf, int n,
                   struct disk_req *reqs, struct disk_seg *segs, int *grp)
{
  KASSERT(n <= CLUSTER_MAX_BLOCKS);
  int order[CLUSTER_MAX_BLOCKS];
  for (int i = 0; i < n; i++) {     /* insertion sort by disk address: n is at most 16 */
    int j = i;
    for (; j > 0 && addr[order[j - 1]] > addr[i]; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
  uint32_t limit = cluster_limit();
  int nreq = 0;
  for (int k = 0; k < n;) {
    int first = k;
    do {
      int i = order[k];
      segs[k].buf = buf[i];
      segs[k].nbytes = FS_BSIZE;
      grp[i] = nreq;
      k++;
    } while (k < n && addr[order[k]] == addr[order[k - 1]] + 1 && (uint32_t)(k - first) < limit);
    struct disk_req *r = &reqs[nreq++];
    memset(r, 0, sizeof *r);
    r->op = op;
    r->sector = (uint64_t)addr[order[first]] * FS_SECTORS_PER_BLOCK;
    r->nsegs = k - first;
    r->segs = &segs[first];
    r->nbytes = r->nsegs * FS_BSIZE;
    st_requests++;
    st_blocks += r->nsegs;
    if (r->nsegs > st_largest)
      st_largest = r->nsegs;
    disk_submit(r);
  }
  return nreq;
}
