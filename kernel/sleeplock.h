/* Locks held across sleeps (disk I/O): a waiter sleeps instead of spinning. */
#ifndef KERNEL_SLEEPLOCK_H
#define KERNEL_SLEEPLOCK_H
#include "spinlock.h"

struct sleeplock {
  int locked;
  int pid;              /* holder, for debugging */
  struct spinlock lk;
  const char *name;
};

void initsleeplock(struct sleeplock *lk, const char *name);
void acquiresleep(struct sleeplock *lk);
void releasesleep(struct sleeplock *lk);
int holdingsleep(struct sleeplock *lk);
#endif
