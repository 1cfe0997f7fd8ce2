/* Names for kernel code addresses, so that a panic says where it came from in functions and
 * lines (kernel/ksyms.c; the table is made from the kernel itself by tools/setup/ksyms.py). */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H
#include "types.h"

/* "func+0x1c" for any code address (a trap's eip); false when no function holds it. */
bool ksym_name(uint32_t pc, char *buf, int len);
/* Prints the frame-pointer chain from ebp, innermost first: each return address with the
 * function, file and line of its call (and the functions that call was inlined into), and
 * for a kernel trap on the way, where it struck. At most max frames. */
void ksym_backtrace(uint32_t ebp, int max);
#endif
