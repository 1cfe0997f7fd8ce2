/* Sleep locks: held across disk I/O, so a contender sleeps rather than spins.
 *
 * The ranked ones (sleeplock.h) check the lock order as they are taken: each process keeps
 * a bit for every ranked lock it holds, and taking one while holding one of a larger rank is
 * counted and reported (once), then the audit fails. An order broken deadlocks only when two
 * processes meet in the window between the two acquires (a sync marking the disk clean took
 * the allocator's lock under the superblock's, and sysfuzz once hung on it after hours of
 * runs), but it is broken every time that path runs: the check catches it on the first. */
#include "kernel/klib.h"
#include "kernel/sleeplock.h"
#include "kernel/proc.h"
#include "kernel/stats.h"
#include "kernel/audit.h"

static uint32_t order_violations;
static const char *first_taken, *first_held;        /* the first violation's locks */

void initsleeplock(struct sleeplock *lk, const char *name)
{
  initlock(&lk->lk, "sleeplock");
  lk->name = name;
  lk->locked = 0;
  lk->pid = 0;
  lk->rank = LOCK_UNRANKED;
}

static const char *rank_name[LOCK_RANKS];

void initsleeplock_ranked(struct sleeplock *lk, const char *name, enum lock_rank rank)
{
  initsleeplock(lk, name);
  lk->rank = rank;
  rank_name[rank] = name;
}

static void check_order(struct sleeplock *lk)
{
  if (lk->rank == LOCK_UNRANKED)       /* a cache block's or an inode's: the cached read's path */
    return;
  struct proc *p = myproc();
  if (!p)
    return;
  uint32_t after = p->ranks_held & ~((2u << lk->rank) - 1);   /* held, of a larger rank */
  if (after) {
    if (order_violations++ == 0) {
      first_taken = lk->name;
      first_held = rank_name[31 - __builtin_clz(after)];
      kprintf("lock order: pid %d took %s while holding %s (kernel/mem/coremap.h)\n", p->pid, first_taken,
              first_held);
    }
  }
}

void acquiresleep(struct sleeplock *lk)
{
  check_order(lk);
  acquire(&lk->lk);
  /* Waiting for ourselves would never end: say so at once, as acquire does for a spinlock,
   * rather than leave a silent hang (a process waiting for the cowcor lock it holds). */
  if (lk->locked && myproc() && lk->pid == myproc()->pid)
    panic("acquiresleep %s: already held by this process", lk->name);
  while (lk->locked) {
    if (myproc())
      myproc()->waitlock = lk;
    sleep(lk, &lk->lk);
    if (myproc())
      myproc()->waitlock = 0;
  }
  lk->locked = 1;
  lk->pid = myproc() ? myproc()->pid : 0;
  if (myproc() && lk->rank != LOCK_UNRANKED)
    myproc()->ranks_held |= 1u << lk->rank;
  release(&lk->lk);
}

void releasesleep(struct sleeplock *lk)
{
  acquire(&lk->lk);
  if (lk->rank != LOCK_UNRANKED && myproc() && lk->pid == myproc()->pid)
    myproc()->ranks_held &= ~(1u << lk->rank);
  lk->locked = 0;
  lk->pid = 0;
  wakeup(lk);
  release(&lk->lk);
}

int holdingsleep(struct sleeplock *lk)
{
  acquire(&lk->lk);
  int r = lk->locked && lk->pid == (myproc() ? myproc()->pid : 0);
  release(&lk->lk);
  return r;
}

int sleeplock_audit(bool quiet)
{
  int bad = 0;
  if (order_violations)
    AUDIT_BAD("%u sleep locks taken out of order (the first: %s while holding %s)\n", order_violations,
              first_taken, first_held);
  return bad;
}

static const struct counter counters[] = {
  COUNTER("lock.order_violations", &order_violations),
};

void sleeplock_init(void)
{
  stat_register_table(counters, NELEM(counters));
}
