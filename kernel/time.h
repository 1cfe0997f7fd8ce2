/* The one clock: milliseconds since boot, driven by the PIT at 1000 Hz.
 * Everything that keeps an age (the cache's LRU, the VM's frames) reads this. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H
#include "types.h"

#define HZ 1000
uint32_t uptime_ms(void);
void timer_tick(void);            /* called by the PIT interrupt */
void sleep_ms(uint32_t ms);        /* sleeps the calling process or kernel thread */
#define TIMESLICE_MS 10
bool time_slice_over(void);        /* true once every TIMESLICE_MS: the timer preempts */
#endif
