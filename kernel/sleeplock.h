/* Locks held across sleeps (disk I/O): a waiter sleeps instead of spinning. */
#ifndef KERNEL_SLEEPLOCK_H
#define KERNEL_SLEEPLOCK_H
#include "spinlock.h"

struct sleeplock {
  int locked;
  int pid;              /* holder, for debugging */
  struct spinlock lk;
  const char *name;
  int rank;             /* its place in the lock order, or LOCK_UNRANKED (below) */
};

/* The lock order of kernel/mem/coremap.h for the sleep locks of which there is one each:
 * a lock may be taken while holding those of a smaller rank, never one of a larger. The
 * many of a kind (inode and cache-block locks, ordered among themselves by other rules)
 * are not ranked. */
enum lock_rank { LOCK_UNRANKED = 0, LOCK_RESERVE, LOCK_NAMESPACE, LOCK_ALLOC, LOCK_SUPER, LOCK_FLUSH,
                 LOCK_COWCOR, LOCK_RANKS };

void initsleeplock(struct sleeplock *lk, const char *name);
void initsleeplock_ranked(struct sleeplock *lk, const char *name, enum lock_rank rank);
void sleeplock_init(void);
/* Locks taken out of order since boot, reported by the audit (SYS_vmaudit): each
 * would deadlock against a process taking the same two in order. */
int sleeplock_audit(bool quiet);
void acquiresleep(struct sleeplock *lk);
void releasesleep(struct sleeplock *lk);
int holdingsleep(struct sleeplock *lk);
#endif
