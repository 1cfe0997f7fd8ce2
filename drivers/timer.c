/* The 8253/8254 PIT, channel 0, interrupting at HZ (1000) times a second: the one clock. */
#include "kernel/x86.h"
#include "kernel/trap.h"
#include "kernel/time.h"
#include "drivers/timer.h"
#include "drivers/disk.h"

#define PIT_FREQ 1193182

static void timer_intr(void *arg)
{
  timer_tick();
  /* Here rather than in a daemon: a daemon may itself be asleep behind the stuck request. */
  disk_watchdog();
}

void timer_init(void)
{
  uint16_t div = PIT_FREQ / HZ;
  outb(0x43, 0x34);            /* channel 0, lo/hi byte, rate generator */
  outb(0x40, div & 0xFF);
  outb(0x40, div >> 8);
  irq_register(IRQ_TIMER, timer_intr, 0);
}
