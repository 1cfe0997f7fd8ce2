/* Kernel counters, read by user programs through SYS_kstat ("name value" lines, for vmstat).
 * A module adds its counters with stat_register, once, at init. */
#ifndef KERNEL_STATS_H
#define KERNEL_STATS_H
#include "types.h"

/* A counter is a variable the module updates, or a function computed on demand (it may take
 * spinlocks: the ^P dump calls it from an interrupt, which came with interrupts on, so with
 * no spinlock held; never a sleep lock). */
void stat_register(const char *name, const uint32_t *value);
void stat_register_fn(const char *name, uint32_t (*get)(void));
/* A module's counters as one table, registered in its order (vmstat and ^P print them so):
 * each a variable, or (value 0) a function computed when read. */
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
