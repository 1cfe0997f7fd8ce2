/* The kernel names its own code: a panic's backtrace in functions and lines, as gdb's bt would
 * give them, so that a student sees where without reaching for addr2line.
 *
 * THE TABLE (tools/setup/ksyms.py, linked into the section .ksyms). A backtrace is made of return
 * addresses, each just after a call, so the table lists every call site of the kernel by its
 * return address, with the function, file and line of the call; when the call was inlined, the
 * functions around it follow, innermost first (entries with `inlined` set continue with the
 * next). Any other address (where a trap struck) is named by the function holding it, from a
 * second table of function starts: "func+0x1c". Both are sorted by address and searched by
 * bisection. The kernel is linked twice, the second time with the table made from the first;
 * the table sits after the code, so the code's addresses are the same in both.
 *
 * THE CHAIN. Each frame holds the caller's frame pointer and the return address (the kernel is
 * built with -fno-omit-frame-pointer). trap() is called by alltraps with the trap frame as its
 * argument, so when a return address falls in alltraps the frame above it is a trap: a kernel
 * one (a fault in kernel code) is shown with the eip it struck at, and the chain goes on in the
 * interrupted code; a user one ends the chain. The walk stops at anything that does not look
 * like a frame of this stack (below the last one, outside the kernel): a panic must not fault.
 */
#include "kernel/klib.h"
#include "kernel/memlayout.h"
#include "kernel/trap.h"
#include "kernel/ksyms.h"

struct ksym_site {
  uint32_t addr;            /* a return address */
  uint16_t func, file, line;
  uint8_t inlined;          /* the call was inlined into the function of the next entry */
  uint8_t pad;
};
struct ksym_func {
  uint32_t addr;
  uint32_t name;
};

extern const uint32_t ksym_nsites, ksym_nfuncs, ksym_nstrs;
extern const struct ksym_site ksym_sites[];
extern const struct ksym_func ksym_funcs[];
extern const uint32_t ksym_stroff[];
extern const char ksym_strs[];
extern char alltraps[], trapret[];

static const char *str(uint32_t i)
{
  return i < ksym_nstrs ? ksym_strs + ksym_stroff[i] : "?";
}

/* The first entry for return address ret, or -1. */
static int site(uint32_t ret)
{
  int lo = 0, hi = (int)ksym_nsites - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (ksym_sites[mid].addr < ret)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return lo < (int)ksym_nsites && ksym_sites[lo].addr == ret ? lo : -1;
}

bool ksym_name(uint32_t pc, char *buf, int len)
{
  int lo = 0, hi = (int)ksym_nfuncs - 1, best = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (ksym_funcs[mid].addr <= pc) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  extern char _kernel_start[];
  if (best < 0 || pc < (uint32_t)_kernel_start) {
    snprintf(buf, len, "?");
    return false;
  }
  snprintf(buf, len, "%s+0x%x", str(ksym_funcs[best].name), pc - ksym_funcs[best].addr);
  return true;
}

static void print_return(uint32_t ret)
{
  int i = site(ret);
  if (i < 0) {
    char name[64];
    ksym_name(ret, name, sizeof name);
    kprintf("  0x%08x %s\n", ret, name);
    return;
  }
  kprintf("  0x%08x %s (%s:%u)\n", ret, str(ksym_sites[i].func), str(ksym_sites[i].file), ksym_sites[i].line);
  while (ksym_sites[i].inlined && i + 1 < (int)ksym_nsites) {
    i++;
    kprintf("             inlined in %s (%s:%u)\n", str(ksym_sites[i].func), str(ksym_sites[i].file),
            ksym_sites[i].line);
  }
}

void ksym_backtrace(uint32_t ebp, int max)
{
  kprintf("backtrace (innermost first):\n");
  for (int n = 0; n < max && ebp >= KERNBASE && ebp % 4 == 0; n++) {
    uint32_t *fp = (uint32_t *)ebp;
    uint32_t ret = fp[1];
    if (ret < KERNBASE)
      break;
    print_return(ret);
    if (ret > (uint32_t)alltraps && ret <= (uint32_t)trapret) {
      struct trapframe *tf = (struct trapframe *)fp[2];
      if ((uint32_t)tf < KERNBASE || (tf->cs & 3) != 0)
        break;              /* from user mode: the kernel's chain ends here */
      char name[64];
      ksym_name(tf->eip, name, sizeof name);
      kprintf("  -- trap %u in the kernel at eip 0x%08x %s\n", tf->trapno, tf->eip, name);
      /* Struck at a function's first instruction, before it pushed a frame: the interrupted
       * stack's top (where the CPU put the trap frame's end) is its return address. */
      if (strlen(name) > 4 && strcmp(name + strlen(name) - 4, "+0x0") == 0 &&
          *(uint32_t *)&tf->esp >= KERNBASE)
        print_return(*(uint32_t *)&tf->esp);
    }
    if (fp[0] <= ebp)
      break;                /* a caller's frame lies above its callee's */
    ebp = fp[0];
  }
}
