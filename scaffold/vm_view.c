/* A process's resident pages as the kernel sees them (SYS_vmpages, the pages program).
 *
 * The VM's state lives in two places that must agree: the page tables (what the MMU uses,
 * with the accessed and dirty bits the hardware sets) and the core map (which segment and
 * page each frame holds, its time of last reference, the dirty bit once folded in). gdb's
 * commands (tools/gdb) read both from memory while the machine is stopped; this call reads
 * them the kernel's own way, under vm_lock, from the process's side: each present entry of its
 * segments, then the frame that entry names. A test stopped in gdb at the end of the walk
 * (the lock still held, so nothing has changed since) holds each command's answer against
 * these records (tests/qemu/test_views.py). Nothing is changed: the accessed bits stay for
 * the aging clock.
 */
#include "kernel/klib.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "kernel/uapi/vmpages.h"
#include "vm/vm.h"
#include "kernel/mem/coremap.h"

static struct vmpage out[VMPAGES_MAX];
static struct vmpages_info info;

static struct addrspace *as_of(int pid)
{
  for (uint32_t k = 0; k < nsegtab; k++)
    if (segtab[k].used && segtab[k].refs > 0 && segtab[k].as && segtab[k].as->pid == pid)
      return segtab[k].as;
  return 0;
}

static void one(struct segment *s, uint32_t va, pte_t e, uint32_t *n)
{
  info.count++;
  if (*n >= VMPAGES_MAX)
    return;
  struct frame *f = pa_to_frame(PTE_ADDR(e));
  struct segment *o = f->owner;
  bool vm = f->pool == POOL_VM;
  struct vmpage *p = &out[(*n)++];
  *p = (struct vmpage){
    .va = va, .frame = PTE_ADDR(e) >> PGSHIFT, .pool = f->pool, .type = s->type, .seg = s - segtab,
    .owner_seg = vm && o ? (uint32_t)(o - segtab) : VMP_NONE,
    .owner_va = vm && o ? o->lo + (f->index << PGSHIFT) : 0,
    .lastref_ms = f->lastref,
  };
  p->flags = (e & PTE_A ? VMP_ACCESSED : 0) | (e & PTE_COW ? VMP_COW : 0) | (e & PTE_W ? VMP_WRITE : 0) |
             ((e & PTE_D) || (vm && (f->pflags & VMF_DIRTY)) ? VMP_DIRTY : 0) |
             (frame_busy(f) ? VMP_BUSY : 0);
}

/* The walk; vm_lock held. Not inlined: a test stops as it returns (gdb's finish), the lock
 * still held. */
static __attribute__((noinline)) uint32_t vmpages_walk(struct addrspace *as)
{
  uint32_t n = 0;
  info = (struct vmpages_info){ .now_ms = uptime_ms() };
  for (int t = SEG_CODE; t <= SEG_STACK; t++) {
    struct segment *s = as->seg[t];
    if (!s || !s->pts)
      continue;
    for (uint32_t va = s->start; va < s->end; va += PGSIZE) {
      pte_t *pte = seg_walk(s, va, false);
      if (pte && (*pte & PTE_P))
        one(s, va, *pte, &n);
    }
  }
  return n;
}

/* (int pid, struct vmpages_info *info, struct vmpage *buf, int max) -> records copied */
int sys_vmpages(void)
{
  int pid = argint(0), max = argint(3);
  uint32_t uinfo = argraw(1), ubuf = argraw(2);
  if (max < 0)
    return -EINVAL;
  acquire(&vm_lock);
  struct addrspace *as = as_of(pid);
  uint32_t n = as ? vmpages_walk(as) : 0;
  struct vmpages_info in = info;
  release(&vm_lock);
  if (!as)
    return -ESRCH;
  n = MIN(n, (uint32_t)max);
  int err = copy_to_user(uinfo, &in, sizeof in);
  if (err == 0 && n)
    err = copy_to_user(ubuf, out, n * sizeof out[0]);
  return err < 0 ? err : (int)n;
}
