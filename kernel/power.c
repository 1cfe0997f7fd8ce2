/* Power-off through QEMU's isa-debug-exit device, with ACPI as a fallback for other machines. */
#include "kernel/power.h"
#include "kernel/x86.h"
#include "kernel/klib.h"

#define DEBUG_EXIT_PORT 0xF4

void machine_poweroff(int failure)
{
  cli();
  outb(DEBUG_EXIT_PORT, failure ? POWEROFF_FAILURE : POWEROFF_CLEAN);
  outw(0x604, 0x2000);          /* QEMU's ACPI power-off (PIIX4 PM) */
  for (;;)
    hlt();
}
