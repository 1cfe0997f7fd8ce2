/* The x87 (and MMX) registers belong to the process running, so they are saved and loaded
 * with every switch between processes, as the general registers are: without it a process
 * read, and overwrote, the floating-point registers of whoever ran before it (a forked child
 * that loaded 0.0 replaced its parent's pi). The kernel itself never touches them (it is
 * built with -mgeneral-regs-only), so the registers in the CPU are always the running
 * process's own, and the scheduler is the only place that saves and loads them (fnsave,
 * 108 bytes; SSE stays off, CR4.OSFXSR clear, so there is no XMM state to keep).
 *
 * CR0: EM and TS clear (the instructions run, nothing is trapped lazily), MP set (wait
 * honours TS), NE set (an unmasked floating-point error is the #MF exception in the process
 * that caused it, which kills it, not an IRQ 13 nobody answers). */
#include "kernel/fpu.h"
#include "kernel/klib.h"

#define CR0_MP 0x02
#define CR0_EM 0x04
#define CR0_TS 0x08
#define CR0_NE 0x20

static uint8_t initial[FPU_STATE_SIZE];

void fpu_init(void)
{
  uint32_t cr0;
  __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
  cr0 = (cr0 | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS);
  __asm__ volatile("movl %0, %%cr0" : : "r"(cr0));
  __asm__ volatile("fninit; fnsave %0" : "=m"(initial));
}

void fpu_initial(uint8_t *state)
{
  memcpy(state, initial, sizeof initial);
}

void fpu_save(uint8_t *state)
{
  __asm__ volatile("fnsave (%0)" : : "r"(state) : "memory");
}

void fpu_restore(const uint8_t *state)
{
  __asm__ volatile("frstor (%0)" : : "r"(state) : "memory");
}

void fpu_copy(uint8_t *state)
{
  fpu_save(state);          /* fnsave leaves the registers reset: load them back */
  fpu_restore(state);
}

void fpu_reset(void)
{
  __asm__ volatile("fninit");
}
