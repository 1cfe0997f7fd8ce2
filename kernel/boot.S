# Multiboot entry. GRUB (or QEMU -kernel) jumps to _start with paging off, eax = magic,
# ebx = physical address of the Multiboot information. We turn on paging with 4 MB pages
# that map physical memory both at 0 (so the next instruction still runs) and at KERNBASE,
# then jump to the higher half and call kmain(magic, info).

#define KERNBASE 0xC0000000
#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0x00000003          /* page-aligned modules, memory map */

.section .multiboot
.align 4
.long MB_MAGIC
.long MB_FLAGS
.long -(MB_MAGIC + MB_FLAGS)

.section .boot, "ax"
.globl _start
_start:
  # Build the boot page directory: PDE 0 identity, PDEs 768.. map 896 MB with PSE.
  movl $(boot_pgdir - KERNBASE), %edi
  movl $0x00000083, (%edi)            # 0-4 MB: present, writable, 4 MB page
  movl $0, %ecx
1:
  movl %ecx, %edx
  shll $22, %edx
  orl $0x83, %edx
  movl %edx, (768*4)(%edi,%ecx,4)
  incl %ecx
  cmpl $224, %ecx                     # 224 * 4 MB = 896 MB
  jb 1b

  movl %cr4, %edx
  orl $0x10, %edx                     # CR4.PSE: 4 MB pages
  movl %edx, %cr4
  movl %edi, %cr3
  movl %cr0, %edx
  orl $0x80010000, %edx               # CR0.PG and CR0.WP (the kernel honours read-only pages)
  movl %edx, %cr0

  movl $higher_half, %edx
  jmp *%edx

.section .text
higher_half:
  movl $(boot_stack + 8192), %esp
  xorl %ebp, %ebp                     # end of the frame-pointer chain for gdb's backtrace
  pushl %ebx
  pushl %eax
  call kmain
2:
  cli
  hlt
  jmp 2b

.section .bss
.align 4096
.globl boot_pgdir
boot_pgdir:
  .space 4096
.globl boot_stack
boot_stack:
  .space 8192
