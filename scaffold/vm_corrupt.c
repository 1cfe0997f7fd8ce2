/* Test-only damage to the VM's bookkeeping (SYS_vmcorrupt, kernel/uapi/vmcorrupt.h).
 *
 * WHY. The VM audit (vm_audit, coremap_audit, cowcor_audit, as_audit) is the tests' witness
 * that page tables, the core map and the COW-COR rings agree. A checker that has only ever been
 * seen passing may be checking nothing: a condition written the wrong way round, a loop that
 * never reaches the entries it should look at. So tests/qemu/test_audit_checks.py damages one
 * thing at a time through this call (one page-table entry, one core-map entry, one ring link,
 * one count), runs the audit, expects it to name exactly that thing, puts it back and expects
 * the audit clean again. Nothing else in the kernel uses this file.
 *
 * WHAT. A word of kernel state is named by its target and coordinates (the header lists them);
 * VMC_GET reads it, VMC_SET writes it and logs the word and its old value, VMC_RESTORE writes
 * the logged values back, last first. Pointers (a frame's owner, a free-list link, a ring link)
 * travel as numbers, so a test can only make them point at real segments and frames (or null):
 * the damage is a wrong bookkeeping entry, never a wild pointer that would crash the audit.
 * Counts the kernel keeps changing meanwhile (frames per pool) are restored by difference.
 *
 * SAFETY. Refused with -EPERM unless debug.corrupt=1 (boot key or sysctl); restoring is always
 * allowed. While anything is damaged, vm_damaged is set and the VM daemon skips its clock and
 * lazy reservations, which would otherwise act on the damage (clear accessed bits through a
 * frame whose owner is wrong, say). Tests damage processes that sit blocked in the kernel and
 * never touch their memory (corrupt family, sleep), free frames at the far end of the free list
 * (allocated last), and frames that belong to no pool, so the rest of the system runs on while
 * the audit looks; with plenty of free memory nothing is paged out meanwhile.
 *
 * VMC_PANIC panics on purpose, from a function of its own (or, with field 1, by a page fault in
 * one): tests/qemu/test_gdb.py checks that the backtrace a panic prints names it, with its file
 * and line, and the trap on the way (kernel/ksyms.c).
 */
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/sysctl.h"
#include "kernel/syscall.h"
#include "kernel/uapi/vmcorrupt.h"
#include "vm/vm.h"
#include "kernel/mem/coremap.h"

volatile bool vm_damaged;
static uint32_t corrupt_allowed;          /* the setting debug.corrupt */

/* How a word is shown to user space: as it is, or a pointer as a number. */
enum { AS_IS, SEG_PTR, FRAME_PTR };

struct word {
  void *p;
  uint8_t size;             /* 1 or 4 bytes */
  uint8_t conv;
  bool count;               /* restored by difference */
};

#define NLOG 64
static struct {
  struct word w;
  uint32_t old, now;        /* raw values */
} undo[NLOG];
static int nundo;

static struct addrspace *as_of_pid(int pid)
{
  for (uint32_t k = 0; k < nsegtab; k++)
    if (segtab[k].used && segtab[k].refs > 0 && segtab[k].as && segtab[k].as->pid == pid)
      return segtab[k].as;
  return 0;
}

static uint32_t raw_get(struct word *w)
{
  return w->size == 1 ? *(uint8_t *)w->p : *(uint32_t *)w->p;
}

static void raw_set(struct word *w, uint32_t v)
{
  if (w->size == 1)
    *(uint8_t *)w->p = (uint8_t)v;
  else
    *(uint32_t *)w->p = v;
}

static uint32_t to_user(struct word *w, uint32_t raw)
{
  if (w->conv == AS_IS)
    return raw;
  if (raw == 0)
    return VMC_NONE;
  if (w->conv == SEG_PTR) {
    struct segment *s = (struct segment *)raw;
    return s >= segtab && s < segtab + nsegtab ? (uint32_t)(s - segtab) : VMC_BOGUS;
  }
  struct frame *f = (struct frame *)raw;
  return f >= coremap && f < coremap + nframes ? (uint32_t)(f - coremap) : VMC_BOGUS;
}

static int from_user(struct word *w, uint32_t v, uint32_t *raw)
{
  if (w->conv == AS_IS) {
    if (w->size == 1 && v > 0xff)
      return -EINVAL;
    *raw = v;
  } else if (v == VMC_NONE) {
    *raw = 0;
  } else if (w->conv == SEG_PTR) {
    if (v >= nsegtab)
      return -EINVAL;
    *raw = (uint32_t)&segtab[v];
  } else {
    if (v >= nframes)
      return -EINVAL;
    *raw = (uint32_t)&coremap[v];
  }
  return 0;
}

/* The word r names (vm_lock held). */
static int locate(struct vmcorrupt *r, struct word *w)
{
  *w = (struct word){ 0, 4, AS_IS, false };
  switch (r->target) {
  case VMC_PTE:
  case VMC_PDE: {
    struct addrspace *as = as_of_pid(r->pid);
    if (!as)
      return -ESRCH;
    if (r->target == VMC_PDE) {
      if (r->where >= KERNBASE)
        return -EINVAL;
      w->p = &as->pgdir[PDX(r->where)];
      return 0;
    }
    if (r->seg > VMC_STACK)
      return -EINVAL;
    struct segment *s = as->seg[r->seg];
    if (!s || !s->pts)
      return -ENOENT;
    if (r->where < s->lo || r->where >= s->hi)
      return -EINVAL;
    w->p = seg_walk(s, r->where, false);
    r->segno = s - segtab;
    return w->p ? 0 : -ENOENT;        /* no page table there */
  }
  case VMC_FRAME: {
    if (r->where >= nframes)
      return -EINVAL;
    struct frame *f = &coremap[r->where];
    switch (r->field) {
    case VMC_F_POOL:  *w = (struct word){ &f->pool, 1, AS_IS, false }; return 0;
    case VMC_F_FLAGS: *w = (struct word){ &f->flags, 1, AS_IS, false }; return 0;
    case VMC_F_OWNER: *w = (struct word){ &f->owner, 4, SEG_PTR, false }; return 0;
    case VMC_F_INDEX: *w = (struct word){ &f->index, 4, AS_IS, false }; return 0;
    case VMC_F_NEXT:  *w = (struct word){ &f->next, 4, FRAME_PTR, false }; return 0;
    }
    return -EINVAL;
  }
  case VMC_SEG: {
    if (r->where >= nsegtab)
      return -EINVAL;
    struct segment *s = &segtab[r->where];
    _Static_assert(sizeof(bool) == 1 && sizeof(enum seg_type) == 4, "word sizes");
    switch (r->field) {
    case VMC_S_USED:       *w = (struct word){ &s->used, 1, AS_IS, false }; return 0;
    case VMC_S_TYPE:       w->p = &s->type; return 0;
    case VMC_S_REFS:       w->p = &s->refs; return 0;
    case VMC_S_START:      w->p = &s->start; return 0;
    case VMC_S_END:        w->p = &s->end; return 0;
    case VMC_S_RESIDENT:   w->p = &s->resident; return 0;
    case VMC_S_SWAPBLOCKS: w->p = &s->swapblocks; return 0;
    case VMC_S_LAZY:       *w = (struct word){ &s->lazy, 1, AS_IS, false }; return 0;
    case VMC_S_COR_REFS:   w->p = &s->cor_refs; return 0;
    case VMC_S_COW_NEXT:   *w = (struct word){ &s->cow_next, 4, SEG_PTR, false }; return 0;
    case VMC_S_COW_PREV:   *w = (struct word){ &s->cow_prev, 4, SEG_PTR, false }; return 0;
    }
    return -EINVAL;
  }
  case VMC_COUNT:
    if (r->where >= NPOOL)
      return -EINVAL;
    *w = (struct word){ coremap_count_word(r->where), 4, AS_IS, true };
    return 0;
  }
  return -EINVAL;
}

/* VMC_INFO and the read-only VMC_S_PID (vm_lock held). */
static int info(struct vmcorrupt *r)
{
  if (r->target == VMC_SEG) {
    if (r->where >= nsegtab)
      return -EINVAL;
    struct segment *s = &segtab[r->where];
    r->old = s->used && s->as ? (uint32_t)s->as->pid : 0;
    return 0;
  }
  struct frame *tail = 0, *before = 0;
  uint32_t n = 0;
  switch (r->field) {
  case VMC_I_NFRAMES: r->old = nframes; return 0;
  case VMC_I_NSEGS:   r->old = nsegtab; return 0;
  case VMC_I_DAMAGED: r->old = nundo; return 0;
  case VMC_I_SEGMENT: {
    struct addrspace *as = as_of_pid(r->pid);
    if (!as)
      return -ESRCH;
    if (r->seg > VMC_STACK || !as->seg[r->seg])
      return -EINVAL;
    r->old = as->seg[r->seg] - segtab;
    return 0;
  }
  case VMC_I_FREE_TAIL:
  case VMC_I_FREE_BEFORE_TAIL:
    for (struct frame *f = coremap_freelist(); f && n <= nframes; f = f->next, n++) {
      before = tail;
      tail = f;
    }
    if (!before)
      return -ENOENT;
    r->old = (r->field == VMC_I_FREE_TAIL ? tail : before) - coremap;
    return 0;
  case VMC_I_NONE_FRAME:
    for (uint32_t i = 0; i < nframes; i++)
      if (coremap[i].pool == POOL_NONE) {
        r->old = i;
        return 0;
      }
    return -ENOENT;
  }
  return -EINVAL;
}

static void restore_all(void)
{
  while (nundo > 0) {
    nundo--;
    struct word *w = &undo[nundo].w;
    if (w->count)
      raw_set(w, raw_get(w) - (undo[nundo].now - undo[nundo].old));
    else
      raw_set(w, undo[nundo].old);
  }
  vm_damaged = false;
}

static __attribute__((noinline, noreturn)) void panic_on_request(int pid)
{
  panic("corrupt panic: asked for by pid %d (debug.corrupt=1)", pid);
}

/* A kernel page fault: below the code segment nothing is ever mapped. */
static __attribute__((noinline)) void fault_on_request(void)
{
  *(volatile uint32_t *)0x1000 = 1;
}

int sys_vmcorrupt(void)
{
  struct vmcorrupt r;
  uint32_t ur = argraw(0);
  if (copy_from_user(&r, ur, sizeof r) < 0)
    return -EFAULT;
  if (!corrupt_allowed && r.op != VMC_RESTORE)
    return -EPERM;
  if (r.op == VMC_PANIC && r.field == 1)
    fault_on_request();
  if (r.op == VMC_PANIC)
    panic_on_request(myproc()->pid);
  int err = 0;
  struct word w;
  acquire(&vm_lock);
  switch (r.op) {
  case VMC_RESTORE:
    err = nundo;
    restore_all();
    break;
  case VMC_GET:
    if (r.target == VMC_INFO || (r.target == VMC_SEG && r.field == VMC_S_PID)) {
      err = info(&r);
      break;
    }
    if ((err = locate(&r, &w)) == 0)
      r.old = to_user(&w, raw_get(&w));
    break;
  case VMC_SET: {
    uint32_t raw;
    /* A slot marked unused, or a count of references run down, would be reused or freed by the
     * next fork or exit: damage the kernel acts on, not only bookkeeping the audit reads. */
    if (r.target == VMC_SEG && (r.field == VMC_S_USED || r.field == VMC_S_REFS)) {
      err = -EINVAL;
      break;
    }
    if ((err = locate(&r, &w)) < 0 || (err = from_user(&w, r.value, &raw)) < 0)
      break;
    if (nundo == NLOG) {
      err = -ENOSPC;
      break;
    }
    r.old = to_user(&w, raw_get(&w));
    undo[nundo].w = w;
    undo[nundo].old = raw_get(&w);
    undo[nundo].now = raw;
    nundo++;
    vm_damaged = true;
    raw_set(&w, raw);
    break;
  }
  default:
    err = -EINVAL;
  }
  release(&vm_lock);
  if (err < 0)
    return err;
  if (r.op != VMC_RESTORE && copy_to_user(ur, &r, sizeof r) < 0)
    return -EFAULT;
  return err;
}

static const struct setting set_corrupt = {
  "debug.corrupt", "1: allow the test-only VM damage of the corrupt program (SYS_vmcorrupt)",
  &corrupt_allowed, 0, 1, 0, 0 };

void corrupt_init(void)
{
  setting_register(&set_corrupt);
}
