/* Each process's own x87/MMX registers (kernel/fpu.c). */
#ifndef KERNEL_FPU_H
#define KERNEL_FPU_H
#include "types.h"

#define FPU_STATE_SIZE 108        /* what fnsave writes */

/* Sets CR0 for a lazy-free FPU (no emulation, errors as exceptions) and records the state a
 * new program starts with. Once, at boot, before the first process. */
void fpu_init(void);
/* The state a new program starts with (fninit's). */
void fpu_initial(uint8_t *state);
/* The CPU's registers into state, leaving them in the CPU as they were. */
void fpu_copy(uint8_t *state);
/* Saves the CPU's registers into state (then reset); loads them from state. */
void fpu_save(uint8_t *state);
void fpu_restore(const uint8_t *state);
/* The running program's registers as a new program's (exec). */
void fpu_reset(void);
#endif
