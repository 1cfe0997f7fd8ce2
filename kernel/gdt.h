#ifndef KERNEL_GDT_H
#define KERNEL_GDT_H
#include "types.h"
#define SEG_KCODE 0x08
#define SEG_KDATA 0x10
#define SEG_UCODE (0x18 | 3)
#define SEG_UDATA (0x20 | 3)
#define SEG_TSS   0x28
void gdt_init(void);
/* The kernel stack the CPU switches to on a trap from user mode. */
void tss_set_kstack(uint32_t esp0);
#endif
