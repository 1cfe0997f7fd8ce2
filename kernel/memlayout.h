/* Where things are in virtual and physical memory.
 *
 *   0x00000000  unmapped (null pointers fault)
 *   0x00400000  code segment      (4 MB slots: each segment owns whole page-directory entries)
 *   0x10000000  heap segment      (initialised data, bss, then sbrk)
 *   0xBF800000  stack segment     (grows down from USER_STACK_TOP by at most USER_STACK_MAX, 8 MB)
 *   0xC0000000  KERNBASE: all physical memory mapped here, the same in every address space
 */
#ifndef KERNEL_MEMLAYOUT_H
#define KERNEL_MEMLAYOUT_H

#define PGSIZE      4096
#define PGSHIFT     12
#define PTSPAN      0x400000          /* bytes mapped by one page table (one PDE) */
#define KERNBASE    0xC0000000u
#define KERNLINK    0xC0100000u       /* the kernel is linked here, loaded at 1 MB */
#define PHYSTOP_MAX 0x38000000u       /* at most 896 MB of RAM is direct-mapped */
/* The least RAM the kernel runs in: the kernel image and its core map take about 2.2 MB, and
 * with 4 MB the remaining ~440 frames no longer run usertests (manyforks fails), with 3 MB
 * init itself runs out. GRUB from the ISO hangs below 5 MB too. main.c refuses less at boot;
 * tools/runqemu.py and the Makefile read this line and refuse less before booting. */
#define MEM_MIN_MB  5

#define USER_CODE_BASE  0x00400000u
#define USER_HEAP_BASE  0x10000000u
#define USER_STACK_TOP  0xC0000000u
#define USER_STACK_MAX  (8u << 20)    /* a stack may grow to 8 MB */
#define USER_TOP        KERNBASE

#define V2P(a) ((uint32_t)(a) - KERNBASE)
#define P2V(a) ((void *)((uint32_t)(a) + KERNBASE))

#define PGROUNDUP(a)   (((uint32_t)(a) + PGSIZE - 1) & ~(uint32_t)(PGSIZE - 1))
#define PGROUNDDOWN(a) ((uint32_t)(a) & ~(uint32_t)(PGSIZE - 1))

/* x86 page-table entry bits */
#define PTE_P   0x001
#define PTE_W   0x002
#define PTE_U   0x004
#define PTE_A   0x020
#define PTE_D   0x040
#define PTE_PS  0x080
#define PTE_ADDR(e) ((uint32_t)(e) & ~0xFFFu)
#define PDX(va) (((uint32_t)(va) >> 22) & 0x3FF)
#define PTX(va) (((uint32_t)(va) >> 12) & 0x3FF)
#endif
