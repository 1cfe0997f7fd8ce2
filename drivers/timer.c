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

/* The TSC's ticks in one millisecond, timed against the PIT's channel 2 counting down 10 ms
 * (its output read at port 0x61, the speaker off), as Linux's pit_calibrate_tsc does: under
 * QEMU -icount both run on the guest's virtual clock, so it is exact there too. Called with
 * interrupts off (kernel/time.c, when kernel.clock=tsc is first chosen). */
static uint32_t tsc_per_ms(void)
{
  const uint32_t ms = 10;
  uint16_t count = (uint16_t)(PIT_FREQ * ms / 1000);
  outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01));   /* gate on, speaker off */
  outb(0x43, 0xB0);            /* channel 2, lo/hi byte, mode 0: out goes high at zero */
  outb(0x42, count & 0xFF);
  outb(0x42, count >> 8);
  uint64_t t0 = rdtsc();
  while (!(inb(0x61) & 0x20))
    ;
  uint64_t t1 = rdtsc();
  return (uint32_t)((t1 - t0) / ms);
}

void timer_init(void)
{
  time_init(tsc_per_ms);
  uint16_t div = PIT_FREQ / HZ;
  outb(0x43, 0x34);            /* channel 0, lo/hi byte, rate generator */
  outb(0x40, div & 0xFF);
  outb(0x40, div >> 8);
  irq_register(IRQ_TIMER, timer_intr, 0);
}
