/* Segments: flat 4 GB code and data for the kernel (ring 0) and user (ring 3), and the TSS
 * that tells the CPU which kernel stack to use when a user process traps. */
#include "kernel/gdt.h"
#include "kernel/klib.h"

struct tss {
  uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
  uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
  uint32_t es, cs, ss, ds, fs, gs, ldt;
  uint16_t trap, iomb;
} __attribute__((packed));

static uint64_t gdt[6];
static struct tss tss;

static uint64_t seg(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
  return (uint64_t)(limit & 0xFFFF) | ((uint64_t)(base & 0xFFFFFF) << 16) |
         ((uint64_t)access << 40) | ((uint64_t)((limit >> 16) & 0xF) << 48) |
         ((uint64_t)(flags & 0xF) << 52) | ((uint64_t)(base >> 24) << 56);
}

void gdt_init(void)
{
  gdt[0] = 0;
  gdt[1] = seg(0, 0xFFFFF, 0x9A, 0xC);      /* kernel code */
  gdt[2] = seg(0, 0xFFFFF, 0x92, 0xC);      /* kernel data */
  gdt[3] = seg(0, 0xFFFFF, 0xFA, 0xC);      /* user code */
  gdt[4] = seg(0, 0xFFFFF, 0xF2, 0xC);      /* user data */
  memset(&tss, 0, sizeof tss);
  tss.ss0 = SEG_KDATA;
  tss.iomb = sizeof tss;                    /* no I/O permission bitmap: user port I/O faults */
  gdt[5] = seg((uint32_t)&tss, sizeof tss - 1, 0x89, 0x0);

  struct { uint16_t limit; uint32_t base; } __attribute__((packed)) d = { sizeof gdt - 1, (uint32_t)gdt };
  __asm__ volatile("lgdt %0" : : "m"(d));
  __asm__ volatile("movw %0, %%ds; movw %0, %%es; movw %0, %%ss; movw %0, %%fs; movw %0, %%gs"
                   : : "r"((uint16_t)SEG_KDATA));
  __asm__ volatile("ljmp %0, $1f; 1:" : : "i"(SEG_KCODE));
  __asm__ volatile("ltr %0" : : "r"((uint16_t)SEG_TSS));
}

void tss_set_kstack(uint32_t esp0)
{
  tss.esp0 = esp0;
}
