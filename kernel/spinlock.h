/* Uniprocessor locks: holding a spinlock means interrupts are off.
 * pushcli/popcli nest, so code may take several locks and the interrupt flag
 * comes back as it was when the outermost one is released. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H
#include "types.h"

struct spinlock {
  int locked;
  const char *name;
};

void initlock(struct spinlock *lk, const char *name);
void acquire(struct spinlock *lk);
void release(struct spinlock *lk);
int holding(struct spinlock *lk);
void pushcli(void);
void popcli(void);
int cli_depth(void);          /* pushcli nesting: > 0 while any spinlock is held */
#endif
