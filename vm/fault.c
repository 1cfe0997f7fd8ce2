/* Page faults: the one path by which pages come in, for a user access (trap) and for the
 * kernel's own accesses to user memory (vm_check_user, and a kernel-mode fault on a user
 * address, which trap() also sends here).
 *
 *   not present, entry 0        zero fill, or load from the executable (code, initialised data)
 *   not present, PTE_ONDISK     read back from the segment's backing file
 *   not present, PTE_INTRANS    someone is doing I/O on it: wait for the frame, look again
 *   not present, PTE_COR        copy-on-reference: copy from the master (vm/cowcor.c)
 *   present, PTE_COW, a write   copy-on-write (vm/cowcor.c); a COW page on backing store is
 *                               paged in here first (still COW), then the write faults again
 *   below the stack             grow the stack (reserving backing store) up to vm.stack_max
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "fs/backing.h"
#include "kernel/mem/refault.h"
#include "vm/vm.h"
#include "vm/fault.h"
#include "kernel/mem/coremap.h"

/* Why the last fault could not be handled, for the kill message. */
const char *vm_fault_reason;
/* Counted here and by COW-COR's faults (vm/cowcor.c); registered by vm/vm.c. */
uint32_t st_vm_faults, st_vm_faults_zero, st_vm_faults_code, st_vm_pageins;
uint32_t st_vm_pageins_backing;

/* Fills frame f with page va of s from the executable; false on an I/O error. */
static bool load_from_exec(struct segment *s, uint32_t va, void *page, bool *loaded)
{
  *loaded = false;
  memset(page, 0, PGSIZE);
  for (int i = 0; i < s->nload; i++) {
    struct seg_load *l = &s->load[i];
    uint32_t lo = MAX(va, l->va), hi = MIN(va + PGSIZE, l->va + l->filesz);
    if (lo >= hi)
      continue;
    /* Pages and file blocks line up (exec checked vaddr and offset agree mod 4 KB). */
    uint32_t off = l->off + (lo - l->va);
    if ((off & (PGSIZE - 1)) == (lo & (PGSIZE - 1)) && lo == va && hi == va + PGSIZE) {
      if (backing_read_file(s->ip, off / PGSIZE, page) < 0)
        return false;
    } else {
      /* A partial page: read the block whole into a kernel page, keep the part in range. */
      char *tmp = kalloc_page();
      if (!tmp || backing_read_file(s->ip, off / PGSIZE, tmp) < 0) {
        if (tmp)
          kfree_page(tmp);
        return false;
      }
      memmove((char *)page + (lo - va), tmp + (off & (PGSIZE - 1)), hi - lo);
      kfree_page(tmp);
    }
    *loaded = true;
  }
  return true;
}

/* What pagein found that COW-COR must handle (vm/cowcor.c); vm_fault calls it and looks again. */
enum { NEED_COR = 1, NEED_COW = 2 };

/* Brings page va of s in for address space as, or finds it there: 0, NEED_COR (a
 * copy-on-reference entry), NEED_COW (a write to a present COW page, perhaps just paged in),
 * or -1 with vm_fault_reason set. The zero-fill fault, the one every new page takes, looks at
 * the entry only here: one walk before taking a frame, one after. */
static int pagein(struct addrspace *as, struct segment *s, uint32_t va, bool write)
{
  pte_t *pte, e;
  struct frame *f = 0;
  for (;;) {
    acquire(&vm_lock);
    pte = seg_walk(s, va, true);
    if (!pte) {
      if (f)
        vm_putframe_locked(f);
      release(&vm_lock);
      vm_fault_reason = "out of memory for page tables";
      return -1;
    }
    as_link_pt(as, s, va);     /* a shared code segment's table made by another process */
    e = *pte;
    if (e & PTE_P) {
      if (f)
        vm_putframe_locked(f);
      release(&vm_lock);
      if (write && !(e & PTE_W)) {
        if (e & PTE_COW)
          return NEED_COW;
        vm_fault_reason = 0;
        return -1;
      }
      return 0;             /* there already (someone else brought it in) */
    }
    if (pte_is_cor(e)) {
      if (f)
        vm_putframe_locked(f);
      release(&vm_lock);
      return NEED_COR;
    }
    if (e & PTE_INTRANS) {
      frame_wait(pa_to_frame(PTE_ADDR(e)), &vm_lock);
      release(&vm_lock);
      continue;
    }
    if (f)
      break;                /* still not there, and we have a frame: claim it (lock held) */
    release(&vm_lock);
    f = vm_getframe(s, va);
    if (!f) {
      vm_fault_reason = "out of memory";
      return -1;
    }
  }
  *pte = frame_pa(f) | PTE_INTRANS | (e & PTE_COW);
  /* Given up before? (kernel/mem/refault.c; named as pol_page names a resident page) */
  refault_missed(NEG_VM, s->serial * 2654435761u + ((va - s->lo) >> PGSHIFT));
  s->resident++;            /* an entry in transit counts as resident (the audit's rule) */
  release(&vm_lock);

  st_vm_faults++;
  void *page = frame_va(f);
  bool ok = true, backed = false;
  if (e & PTE_ONDISK) {
    ok = seg_rw(s, va, page, false) == 0;
    backed = true;
    st_vm_pageins++;
    st_vm_pageins_backing++;
    myproc()->pageins++;
  } else {
    bool loaded = false;
    if (s->ip)
      ok = load_from_exec(s, va, page, &loaded);     /* zeroes what it does not load */
    else
      memset(page, 0, PGSIZE);
    if (loaded) {
      st_vm_pageins++;
      myproc()->pageins++;  /* shared code: charged to the process that faulted */
    } else if (s->type != SEG_CODE)
      st_vm_faults_zero++;
    if (s->type == SEG_CODE)
      st_vm_faults_code++;
  }

  acquire(&vm_lock);
  s->resident--;            /* vm_map_frame counts it again */
  if (!ok) {
    *pte = (e & ~PTE_COW) | (*pte & PTE_COW);
    vm_putframe_locked(f);
    release(&vm_lock);
    vm_fault_reason = "I/O error paging in";
    return -1;
  }
  if (backed)
    f->pflags |= VMF_BACKED;
  /* A COW page stays read-only; COW-COR may have made it writable while we read it. */
  pte_t perm = s->type == SEG_CODE ? 0 : (*pte & PTE_COW) ? PTE_COW : PTE_W;
  vm_map_frame(s, va, f, PTE_U | perm);
  release(&vm_lock);
  if (vm_audit_every_fault && coremap_audit(false) + vm_audit(false) != 0)
    panic("vm: audit failed after a fault at 0x%x", va);
  return write && perm == PTE_COW ? NEED_COW : 0;
}

int vm_fault(uint32_t va, uint32_t err, bool from_user)
{
  struct proc *p = myproc();
  vm_fault_reason = 0;
  if (!p || !p->as || va >= USER_TOP)
    return -1;
  struct addrspace *as = p->as;
  struct segment *s = as_segment_at(as, va);
  if (!s)
    return -1;
  va = PGROUNDDOWN(va);
  bool write = err & FAULT_WRITE;
  if (s->type == SEG_STACK && va < s->start) {
    if (va < USER_STACK_TOP - USER_STACK_MAX) {
      vm_fault_reason = "stack overflow";
      return -1;
    }
    /* Grown 64 KB at a time: fewer, larger reservations of backing store. */
    uint32_t lim = USER_STACK_TOP - USER_STACK_MAX;
    int gerr = seg_grow(s, MAX(MIN(va, s->start - 16 * PGSIZE), lim), s->end);
    if (gerr < 0) {
      vm_fault_reason = gerr == -ENOSWAP ? "out of backing store growing the stack (the disk is full)"
                                         : "out of memory growing the stack";
      return -1;
    }
  }
  if (va < s->start || va >= s->end)
    return -1;
  if (write && s->type == SEG_CODE)
    return -1;
  int traced = vm_trace_fault(as, va, write);
  if (traced > 0)
    return 0;               /* hidden by an ordered trace for its first use this epoch */
  /* Each pass handles one state; a write to a COW page on backing store takes two (7.4.4):
   * pagein brings it in still COW, then cow_fault copies it. */
  for (int pass = 0; pass < 8; pass++) {
    int r = pagein(as, s, va, write);
    if (r == NEED_COR)
      r = cor_fault(s, va);
    else if (r == NEED_COW)
      r = cow_fault(s, va);
    else {
      if (r == 0 && traced < 0)
        vm_trace_arrived(as, va, write);
      return r;
    }
    if (r < 0)
      return r;
  }
  return 0;
}

int vm_check_user(uint32_t va, uint32_t len, bool write)
{
  struct proc *p = myproc();
  if (len == 0)
    return 0;
  if (!p || !p->as || va >= USER_TOP || va + len > USER_TOP || va + len < va)
    return -EFAULT;
  /* Twice: bringing in a later page may have pushed out an earlier one. A page pushed out
   * after this still faults in from the kernel's own access (trap sends that here too). */
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t a = PGROUNDDOWN(va); a < va + len; a += PGSIZE) {
      acquire(&vm_lock);
      pte_t *pte = as_walk(p->as, a);
      bool ok = pte && (*pte & PTE_P) && (*pte & PTE_U) && (!write || (*pte & PTE_W));
      bool present = pte && (*pte & PTE_P);
      release(&vm_lock);
      if (!ok) {
        uint32_t err = FAULT_USER | (write ? FAULT_WRITE : 0) | (present ? FAULT_PRESENT : 0);
        if (vm_fault(a, err, false) < 0)
          return -EFAULT;
      }
    }
  }
  return 0;
}
