/* Sleep locks: held across disk I/O, so a contender sleeps rather than spins. */
#include "kernel/klib.h"
#include "kernel/sleeplock.h"
#include "kernel/proc.h"

void initsleeplock(struct sleeplock *lk, const char *name)
{
  initlock(&lk->lk, "sleeplock");
  lk->name = name;
  lk->locked = 0;
  lk->pid = 0;
}

void acquiresleep(struct sleeplock *lk)
{
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
  release(&lk->lk);
}

void releasesleep(struct sleeplock *lk)
{
  acquire(&lk->lk);
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
