/* The one clock: milliseconds since boot, kept by the PIT's 1000 Hz interrupts or, with
 * kernel.clock=tsc, by the time-stamp counter (kernel/time.c says why two).
 * Everything that keeps an age (the cache's LRU, the VM's frames) reads this. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H
#include "types.h"

#define HZ 1000
uint32_t uptime_ms(void);
void timer_tick(void);            /* called by the PIT interrupt */
void time_set_tsc_measure(uint32_t (*measure)(void));   /* the PIT driver's: TSC ticks a ms */
void time_init(void);              /* registers kernel.clock, once the rate is known */
void sleep_ms(uint32_t ms);        /* sleeps the calling process or kernel thread */
#define TIMESLICE_MS 10
bool time_slice_over(void);        /* true once every TIMESLICE_MS: the timer preempts */
#endif
