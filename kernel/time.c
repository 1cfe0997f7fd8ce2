/* Time since boot in milliseconds, from the PIT interrupt. */
#include "kernel/time.h"
#include "kernel/proc.h"
#include "kernel/spinlock.h"

static volatile uint32_t ticks;   /* milliseconds since boot */
static uint32_t slice_start;

uint32_t uptime_ms(void)
{
  return ticks;
}

void timer_tick(void)
{
  ticks++;
  wakeup((void *)&ticks);
}

bool time_slice_over(void)
{
  if (ticks - slice_start >= TIMESLICE_MS) {
    slice_start = ticks;
    return true;
  }
  return false;
}

/* Returns early (and sets nothing) if the process is killed meanwhile. */
void sleep_ms(uint32_t ms)
{
  pushcli();
  uint32_t start = ticks;
  while (ticks - start < ms) {
    struct proc *p = myproc();
    if (p && p->killed)
      break;
    sleep((void *)&ticks, 0);
  }
  popcli();
}
