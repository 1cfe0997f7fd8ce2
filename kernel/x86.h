/* Inline wrappers for x86 instructions the kernel needs. */
#ifndef KERNEL_X86_H
#define KERNEL_X86_H
#include "types.h"

static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "d"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "d"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "d"(port)); return v; }
static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "d"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "d"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "d"(port)); }

static inline void lcr3(uint32_t pa) { __asm__ volatile("movl %0, %%cr3" : : "r"(pa) : "memory"); }
static inline uint32_t rcr2(void) { uint32_t v; __asm__ volatile("movl %%cr2, %0" : "=r"(v)); return v; }
static inline uint32_t rcr3(void) { uint32_t v; __asm__ volatile("movl %%cr3, %0" : "=r"(v)); return v; }
static inline void invlpg(uint32_t va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }
static inline void sti(void) { __asm__ volatile("sti"); }
static inline void cli(void) { __asm__ volatile("cli"); }
static inline void hlt(void) { __asm__ volatile("hlt"); }
static inline uint32_t readeflags(void) { uint32_t f; __asm__ volatile("pushfl; popl %0" : "=r"(f)); return f; }
static inline uint64_t rdtsc(void) { uint64_t v; __asm__ volatile("rdtsc" : "=A"(v)); return v; }
#define FL_IF 0x200
#endif
