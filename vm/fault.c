/* Page faults. In this first version every page of a process is allocated eagerly, so the
 * only fault that is not an error is the stack growing below its lowest page. */
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "vm/vm.h"
#include "vm/fault.h"

/* Why the last fault could not be handled, for the kill message. */
const char *vm_fault_reason;

int vm_fault(uint32_t va, uint32_t err, bool from_user)
{
  struct proc *p = myproc();
  vm_fault_reason = 0;
  if (!p || !p->as || va >= USER_TOP)
    return -1;
  struct segment *s = as_segment_at(p->as, va);
  if (!s || (err & FAULT_PRESENT))
    return -1;
  if (s->type == SEG_STACK && va < s->start) {
    if (va < USER_STACK_TOP - USER_STACK_MAX) {
      vm_fault_reason = "stack overflow";
      return -1;
    }
    uint32_t lo = PGROUNDDOWN(va);
    if (seg_alloc_range(s, lo, s->start - lo, PTE_W) < 0) {
      vm_fault_reason = "out of memory growing the stack";
      return -1;
    }
    s->start = lo;
    return 0;
  }
  return -1;
}

int vm_check_user(uint32_t va, uint32_t len, bool write)
{
  struct proc *p = myproc();
  if (len == 0)
    return 0;
  if (!p || !p->as || va >= USER_TOP || va + len > USER_TOP || va + len < va)
    return -EFAULT;
  for (uint32_t a = PGROUNDDOWN(va); a < va + len; a += PGSIZE) {
    pte_t *pte = as_walk(p->as, a);
    bool ok = pte && (*pte & PTE_P) && (*pte & PTE_U) && (!write || (*pte & PTE_W));
    if (!ok) {
      uint32_t err = FAULT_USER | (write ? FAULT_WRITE : 0) | (pte && (*pte & PTE_P) ? FAULT_PRESENT : 0);
      if (vm_fault(a, err, false) < 0)
        return -EFAULT;
    }
  }
  return 0;
}
