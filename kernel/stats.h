/* Kernel counters, read by user programs through SYS_kstat ("name value" lines, for vmstat).
 * A module adds its counters as one table (stat_register_table), once, at init. */
#ifndef KERNEL_STATS_H
#define KERNEL_STATS_H
#include "types.h"

/* A module's counters as one table, registered in its order (vmstat and ^P print them so):
 * each a variable the module updates (COUNTER), or a function computed when read (COUNTER_FN:
 * it may take spinlocks, since the ^P dump calls it from an interrupt that came with interrupts
 * on, so with no spinlock held; never a sleep lock). */
struct counter {
  const char *name;
  const uint32_t *value;
  uint32_t (*get)(void);
};
void stat_register_table(const struct counter *c, uint32_t n);
#define COUNTER(n, v)    { .name = (n), .value = (v) }
#define COUNTER_FN(n, f) { .name = (n), .get = (f) }
/* Writes all counters into buf, as they were at one instant; returns the number of bytes. */
int stat_format(char *buf, int len);
/* Prints every counter, several to a line (the ^P dump). */
void stat_dump(void);
#endif
