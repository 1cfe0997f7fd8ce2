/* Traps, exceptions and device interrupts. */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H
#include "types.h"

/* What the CPU and trapasm.S push on the kernel stack at a trap. */
struct trapframe {
  /* pushal */
  uint32_t edi, esi, ebp, oesp, ebx, edx, ecx, eax;
  uint16_t gs, pad1, fs, pad2, es, pad3, ds, pad4;
  uint32_t trapno;
  uint32_t err;           /* error code, or 0 */
  uint32_t eip;
  uint16_t cs, pad5;
  uint32_t eflags;
  uint32_t esp;           /* only when coming from user mode */
  uint16_t ss, pad6;
};

#define T_PGFLT   14
#define T_SYSCALL 0x80
#define T_IRQ0    32      /* IRQ n arrives as vector T_IRQ0 + n */

#define IRQ_TIMER  0
#define IRQ_KBD    1
#define IRQ_COM1   4

/* Registers a handler for a legacy PIC interrupt line and unmasks it.
 * Handlers run with interrupts off and must not sleep. Several may share a line. */
void irq_register(int irq, void (*handler)(void *arg), void *arg);
void trap_init(void);
#endif
