/* Clustering: blocks side by side on the disk go in one request (fs/cluster.c says why). */
#ifndef FS_CLUSTER_H
#define FS_CLUSTER_H
#include "kernel/types.h"
#include "drivers/disk.h"

#define CLUSTER_MAX_BLOCKS 16       /* blocks one call may take */

void cluster_init(void);            /* the setting and the counters, at boot */
/* Blocks one request may carry now: fs.cluster_max, and no more than the device takes. */
uint32_t cluster_limit(void);
/* Submits op (read or write) of n 4 KB blocks, block i at disk address addr[i] from or into
 * buf[i], any order, as one request for each run of consecutive addresses (at most
 * cluster_limit() blocks). reqs and segs have room for n each; grp[i] is the index in reqs of
 * block i's request. Returns the number of requests submitted; the caller waits for each. */
int cluster_submit(enum disk_op op, const uint32_t *addr, void *const *buf, int n,
                   struct disk_req *reqs, struct disk_seg *segs, int *grp);
#endif
