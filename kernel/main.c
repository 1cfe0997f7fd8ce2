/* Boot: from GRUB's Multiboot hand-off to the scheduler running /bin/init. */
#include "kernel/klib.h"
#include "kernel/memlayout.h"
#include "kernel/console.h"
#include "kernel/cmdline.h"
#include "kernel/gdt.h"
#include "kernel/trap.h"
#include "kernel/proc.h"
#include "kernel/sleeplock.h"
#include "kernel/power.h"
#include "kernel/x86.h"
#include "drivers/serial.h"
#include "drivers/timer.h"
#include "drivers/pci.h"
#include "drivers/disk.h"
#include "drivers/kbd.h"
#include "kernel/mem/coremap.h"
#include "vm/vm.h"
#include "kernel/mem/negotiate.h"
#include "kernel/arbiters.h"

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002
#define MB_INFO_CMDLINE 0x004
#define MB_INFO_MMAP    0x040

struct mb_info {
  uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
  uint32_t syms[4];
  uint32_t mmap_length, mmap_addr;
};

struct mb_mmap {
  uint32_t size;
  uint64_t addr, len;
  uint32_t type;                /* 1: available RAM */
} __attribute__((packed));

extern char _kernel_end[];

/* Builds the core map from the Multiboot memory map: every available page above the kernel
 * and the core map itself becomes a free frame. Memory below 1 MB is left alone. */
static void memory_init(struct mb_info *mbi)
{
  if (!(mbi->flags & MB_INFO_MMAP)) {
    kprintf("boot: the boot loader gave no memory map\n");
    machine_poweroff(1);
  }
  uint32_t top = 0;
  for (uint32_t off = 0; off < mbi->mmap_length;) {
    struct mb_mmap *m = P2V(mbi->mmap_addr + off);
    if (m->type == 1 && m->addr < PHYSTOP_MAX) {
      uint64_t end = m->addr + m->len;
      if (end > PHYSTOP_MAX)
        end = PHYSTOP_MAX;
      if (end > top)
        top = end;
    }
    off += m->size + 4;
  }
  /* QEMU keeps a little of the top of RAM for the firmware: round to the nearest MB. */
  uint32_t mb = (top + (1u << 19)) >> 20;
  if (mb < MEM_MIN_MB) {
    kprintf("memory: %u MB is too little: the kernel needs at least %u MB (MEM=%u or more)\n",
            mb, MEM_MIN_MB, MEM_MIN_MB);
    machine_poweroff(1);
  }
  coremap_init_begin(top, V2P(_kernel_end));
  uint32_t first = coremap_end_pa();
  for (uint32_t off = 0; off < mbi->mmap_length;) {
    struct mb_mmap *m = P2V(mbi->mmap_addr + off);
    if (m->type == 1 && m->addr < top) {
      for (uint64_t a = PGROUNDUP((uint32_t)m->addr); a + PGSIZE <= m->addr + m->len && a < top; a += PGSIZE)
        if (a >= first)
          coremap_add_free(a);
    }
    off += m->size + 4;
  }
  kprintf("memory: %u MB, %u frames free\n", mb, frame_count(POOL_FREE));
}

void kmain(uint32_t magic, uint32_t mbi_pa)
{
  console_init();
  kprintf("\nsprite-memory kernel booting\n");
  if (magic != MULTIBOOT_BOOTLOADER_MAGIC) {
    kprintf("boot: not started by a Multiboot loader (magic 0x%x)\n", magic);
    machine_poweroff(1);
  }
  struct mb_info *mbi = P2V(mbi_pa);
  cmdline_init((mbi->flags & MB_INFO_CMDLINE) ? (const char *)P2V(mbi->cmdline) : "");
  memory_init(mbi);
  gdt_init();
  trap_init();
  vm_init();
  neg_init();
  arbiter_init();
  coremap_register_stats();
  proc_init();
  sleeplock_init();
  timer_init();
  serial_enable_input();
  kbd_init();
  pci_init();
  disk_init();
  userinit();
  vm_start();
  scheduler();
}
