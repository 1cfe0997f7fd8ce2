/* The parts of the ELF format exec needs. */
#ifndef KERNEL_ELF_H
#define KERNEL_ELF_H
#include "types.h"
#define ELF_MAGIC 0x464C457Fu   /* "\x7FELF" little-endian */

struct elfhdr {
  uint32_t magic;
  uint8_t elf[12];
  uint16_t type, machine;
  uint32_t version, entry, phoff, shoff, flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct proghdr {
  uint32_t type, off, vaddr, paddr, filesz, memsz, flags, align;
};

#define ELF_PROG_LOAD 1
#define ELF_PROG_FLAG_EXEC  1
#define ELF_PROG_FLAG_WRITE 2
#endif
