/* The console's ^P state dump (kernel/dump.c). */
#ifndef KERNEL_DUMP_H
#define KERNEL_DUMP_H
void state_dump(void);
#endif
