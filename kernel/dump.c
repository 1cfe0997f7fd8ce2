/* The console's ^P: a picture of the kernel's state for a hang, as xv6's ^P prints its process
 * list. Each process with what it sleeps on (a sleep lock and its holder, a frame under I/O,
 * a child's exit) and its kernel call chain; the busy frames; every counter. tools/runqemu.py
 * sends ^P when a run times out and turns the call chains into function names.
 *
 * It runs in the console's interrupt handler, so it works while every process is asleep,
 * which is what a hang is; it cannot help a CPU spinning with interrupts off. It takes no
 * sleep lock and only spinlocks that an interrupted context cannot hold (spinlocks turn
 * interrupts off on this uniprocessor). */
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/stats.h"
#include "kernel/time.h"
#include "kernel/dump.h"
#include "kernel/mem/coremap.h"

void state_dump(void)
{
  kprintf("\n--- ^P dump at %u ms: processes\n", uptime_ms());
  proc_dump();
  kprintf("--- busy frames\n");
  frame_dump_busy();
  kprintf("--- counters\n");
  stat_dump();
  kprintf("--- end of ^P dump\n");
}
