/* The one clock: milliseconds since boot, kept by the PIT's 1000 Hz interrupts or, with
 * kernel.clock=tsc, by the time-stamp counter (kernel/time.c says why two).
 * Everything that keeps an age (the cache's LRU, the VM's frames) reads this. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H
#include "types.h"

#define HZ 1000
uint32_t uptime_ms(void);
void timer_tick(void);            /* called by the PIT interrupt */
/* From the PIT driver, with its measure of the TSC's ticks a ms: registers kernel.clock. */
void time_init(uint32_t (*measure)(void));
void sleep_ms(uint32_t ms);        /* sleeps the calling process or kernel thread */
#define TIMESLICE_MS 10
bool time_slice_over(void);        /* true once every TIMESLICE_MS: the timer preempts */
#endif
