/* QEMU's debug console (its isa-debugcon device, I/O port 0xe9): bytes out, nothing in. */
#ifndef DRIVERS_DEBUGCON_H
#define DRIVERS_DEBUGCON_H
#include "kernel/types.h"
void debugcon_write(const void *buf, uint32_t n);
#endif
