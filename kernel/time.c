/* Time since boot in milliseconds: the one clock every age in the kernel is read from.
 *
 * Two ways to keep it, chosen by kernel.clock. "ticks" (the default, xv6's way) counts the
 * PIT's interrupts, one a millisecond. A tick that falls due while interrupts are held off
 * for longer than a millisecond is lost: the PIC keeps one pending, not a count. A real CPU
 * never holds them off that long, but a slow one does: under QEMU's -icount shift=8 (256 ns
 * an instruction, a Sun-3's pace) zeroing a page for a fault takes several milliseconds with
 * interrupts off, and the clock lost half the time of a program that only faulted (962 ms
 * counted of 2,008), 2.8 % of one that only computed. "tsc" reads the time-stamp counter
 * instead, its rate measured against the PIT when it is first chosen (drivers/timer.c): it loses
 * nothing however long interrupts wait. Either way the ticks still end time slices and wake
 * sleepers, so the scheduler is the same; only what uptime_ms() says differs. Switching
 * carries the time on from where it is, so no age jumps or runs backwards. time.ticks counts
 * the interrupts themselves: beside uptime_ms it shows how many were lost.
 */
#include "kernel/time.h"
#include "kernel/proc.h"
#include "kernel/spinlock.h"
#include "kernel/sysctl.h"
#include "kernel/stats.h"
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/uapi/errno.h"

static volatile uint32_t ticks;      /* the clock in ticks mode; a wait channel in both */
static uint32_t interrupts;          /* time.ticks: PIT interrupts taken since boot */
static uint32_t slice_start;
static bool use_tsc;
static uint32_t (*measure_tsc)(void);   /* the PIT driver's measure of the TSC's ticks per ms */
static uint32_t tsc_per_ms;          /* 0 until measured, on the first switch to tsc */
static uint32_t base_ms;             /* in tsc mode: uptime when it took over, and the TSC then */
static uint64_t base_tsc;

uint32_t uptime_ms(void)
{
  if (use_tsc)
    return base_ms + (uint32_t)((rdtsc() - base_tsc) / tsc_per_ms);
  return ticks;
}

void timer_tick(void)
{
  ticks++;
  interrupts++;
  wakeup((void *)&ticks);
}

bool time_slice_over(void)
{
  if (interrupts - slice_start >= TIMESLICE_MS) {
    slice_start = interrupts;
    return true;
  }
  return false;
}

/* Returns early (and sets nothing) if the process is killed meanwhile. */
void sleep_ms(uint32_t ms)
{
  pushcli();
  uint32_t start = uptime_ms();
  while (uptime_ms() - start < ms) {
    struct proc *p = myproc();
    if (p && p->killed)
      break;
    sleep((void *)&ticks, 0);
  }
  popcli();
}

static void clock_get(char *out, int len)
{
  snprintf(out, len, "%s", use_tsc ? "tsc" : "ticks");
}

static int clock_set(const char *v)
{
  bool tsc;
  if (strcmp(v, "tsc") == 0)
    tsc = true;
  else if (strcmp(v, "ticks") == 0)
    tsc = false;
  else
    return -EINVAL;
  pushcli();
  if (tsc && !tsc_per_ms && measure_tsc)
    tsc_per_ms = measure_tsc();     /* 10 ms with interrupts off, once */
  if (tsc && !tsc_per_ms) {
    popcli();
    return -EINVAL;
  }
  if (tsc && !use_tsc) {
    base_ms = ticks;
    base_tsc = rdtsc();
  } else if (!tsc && use_tsc) {
    ticks = uptime_ms();
  }
  use_tsc = tsc;
  popcli();
  return 0;
}

static const struct setting settings[] = {
  { "kernel.clock", "ticks: uptime counts the PIT's interrupts (a tick due while interrupts are off too long is lost); tsc: the time-stamp counter, its rate measured against the PIT when first chosen (loses nothing)",
    0, 0, 0, clock_get, clock_set },
};

static const struct counter counters[] = {
  COUNTER_FN("time.uptime_ms", uptime_ms),   /* beside time.ticks in one snapshot: no tick between */
  COUNTER("time.ticks", &interrupts),
  COUNTER("time.tsc_per_ms", &tsc_per_ms),
};

/* From timer_init, which hands over its measure of the TSC: kernel.clock=tsc on the command
 * line measures it then. */
void time_init(uint32_t (*measure)(void))
{
  measure_tsc = measure;
  setting_register_table(settings, NELEM(settings));
  stat_register_table(counters, NELEM(counters));
}
