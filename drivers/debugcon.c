/* QEMU's debug console: a write-only port (0xe9) that QEMU copies to a file when it runs with
 * -debugcon file:PATH, and ignores otherwise. The arbiter's recording (kernel/arbiters.c) goes
 * out this way rather than by the serial console: one instruction for a whole record, no status
 * register to poll, nothing mixed with what the shell prints, and no file written through the
 * cache whose decisions are being recorded. */
#include "kernel/types.h"
#include "drivers/debugcon.h"

#define DEBUGCON_PORT 0xe9

void debugcon_write(const void *buf, uint32_t n)
{
  __asm__ volatile("cld; rep outsb" : "+S"(buf), "+c"(n) : "d"(DEBUGCON_PORT) : "memory");
}
