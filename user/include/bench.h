/* What every benchmark program shares (user/lib/bench.c): the guest's clock and the reference
 * costs the figures are set against, so that bench-vm, bench-fs and bench-fork quote one
 * and the same page copy. */
#ifndef _BENCH_H
#define _BENCH_H

/* The time-stamp counter: under QEMU -icount shift=0, one tick per guest instruction, 1 ns of
 * guest time, exactly repeatable. */
static inline unsigned long long bench_ticks(void)
{
  unsigned lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((unsigned long long)hi << 32) | lo;
}

/* Ticks to copy one resident 4 KB page with a 32-bit word loop (the fewest of 32 copies):
 * the reference for every copying cost. */
unsigned long long bench_copy4k(void);
/* Ticks to zero one resident 4 KB page with a word loop (the fewest of 32). */
unsigned long long bench_zero4k(void);
#endif
