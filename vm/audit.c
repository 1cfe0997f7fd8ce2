/*
 * The VM audit: the VM's accounting checked against itself.
 *
 * The VM keeps the same facts in several places: a frame's owner and index in the core map,
 * the page-table entry that maps it, a segment's count of resident pages, the flags and lists
 * of page-out, the batch of oldest pages the VM offers the negotiation, the COW-COR rings, the
 * page directories that link each segment's page tables. A bug shows first as two of them
 * disagreeing, long before a process reads a wrong page; vm_audit looks at every one and
 * names each disagreement ("audit: ..."), returning how many.
 *
 * It runs from the audit program (SYS_vmaudit, through the memory audit mem_audit of
 * kernel/mem/negotiate.c, which checks the core map first and calls this as the VM pool's audit),
 * and after every fault with vm.audit=1. The parts that concern one file's own structures are
 * that file's: the laundry and the ready list (pageout_audit, vm/pageout.c), the VM's offer
 * (oldest_audit, vm/oldest.c), the COW-COR rings (cowcor_audit), the page directories
 * (as_audit, vm/segment.c); they run in that order after the frames and the page tables here.
 *
 * A checker is trusted only once a test has seen it fail on a planted fault: scaffold/vm_corrupt.c
 * plants them (the corrupt program, debug.corrupt=1), tests/qemu/test_audit_checks.py checks
 * that each is reported.
 */
#include "kernel/klib.h"
#include "kernel/mem/coremap.h"
#include "vm/vm.h"
#include "vm/paging.h"
#include "kernel/audit.h"

int vm_audit(bool quiet)
{
  int bad = 0;
  acquire(&vm_lock);
  /* Every VM frame belongs to a live segment whose entry points back at it. */
  uint32_t vmframes = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    struct frame *f = &coremap[i];
    if (f->pool != POOL_VM)
      continue;
    vmframes++;
    struct segment *s = f->owner;
    if (frame_busy(f))
      continue;               /* being filled or written: its entry is in transit */
    if (!s || s < segtab || s >= segtab + nsegtab || !s->used) {
      AUDIT_BAD("VM frame %u has no live segment\n", i);
      continue;
    }
    uint32_t va = frame_vaddr(f);
    pte_t *pte = f->index < (s->hi - s->lo) >> PGSHIFT ? seg_walk(s, va, false) : 0;
    if (!pte || !(*pte & PTE_P) || PTE_ADDR(*pte) != frame_pa(f))
      AUDIT_BAD("VM frame %u (segment %u, va 0x%x) is not mapped there\n", i, (uint32_t)(s - segtab), va);
  }
  /* Every present entry points at a VM frame of its segment; counts agree. */
  for (uint32_t k = 0; k < nsegtab; k++) {
    struct segment *s = &segtab[k];
    if (!s->used || !s->pts)
      continue;
    uint32_t resident = 0, ondisk = 0, maxblock = 0;
    pte_t *p;
    for (uint32_t va = s->lo; (p = seg_next_pte(s, &va, s->hi)); va += PGSIZE) {
      pte_t e = *p;
      if (e & (PTE_P | PTE_INTRANS)) {
        resident++;
        struct frame *f = pa_to_frame(PTE_ADDR(e));
        bool inmap = PTE_ADDR(e) >> PGSHIFT < nframes;
        if (!inmap || f->pool != POOL_VM || f->owner != s || f->index != (va - s->lo) >> PGSHIFT)
          AUDIT_BAD("segment %u va 0x%x maps frame 0x%x it does not own\n", k, va, PTE_ADDR(e));
        if ((e & PTE_INTRANS) && inmap && !frame_busy(f))
          AUDIT_BAD("segment %u va 0x%x in transit but its frame is not busy\n", k, va);
        /* Every mapping the VM makes is a user one (an ordered trace hides pages from user
         * mode for an epoch, vm/trace.c); code is shared, so never writable. */
        if ((e & PTE_P) && !(e & PTE_U) && !vm_trace_hiding())
          AUDIT_BAD("segment %u va 0x%x: present entry without the user bit 0x%x\n", k, va, e);
        if ((e & PTE_P) && (e & PTE_W) && s->type == SEG_CODE)
          AUDIT_BAD("segment %u va 0x%x: code page mapped writable 0x%x\n", k, va, e);
      } else if (pte_is_cor(e)) {
        /* checked by cowcor_audit */
      } else if (e & PTE_ONDISK) {
        ondisk++;
        if (seg_block(s, va) + 1 > maxblock)
          maxblock = seg_block(s, va) + 1;
      } else if (e) {
        AUDIT_BAD("segment %u va 0x%x has a strange entry 0x%x\n", k, va, e);
      }
      if ((e & PTE_P) && (e & PTE_COR))
        AUDIT_BAD("segment %u va 0x%x: present entry with the COR bit 0x%x\n", k, va, e);
      if ((e & PTE_ONDISK) && (e & PTE_COR))
        AUDIT_BAD("segment %u va 0x%x: COR entry with the on-disk bit 0x%x\n", k, va, e);
      if (e && (va < s->start || va >= s->end))
        AUDIT_BAD("segment %u has a page at 0x%x outside [0x%x, 0x%x)\n", k, va, s->start, s->end);
    }
    if (resident != s->resident)
      AUDIT_BAD("segment %u counts %u resident pages but maps %u\n", k, s->resident, resident);
    if (s->type != SEG_CODE && s->refs > 0 && !s->lazy && s->swapblocks < seg_npages(s))
      AUDIT_BAD("segment %u has %u pages but %u backing blocks (type %d, [0x%x, 0x%x), refs %d)\n", k, seg_npages(s), s->swapblocks, s->type, s->start, s->end, s->refs);
    if (ondisk && (!s->swap || maxblock > s->swapblocks))
      AUDIT_BAD("segment %u has pages on backing store beyond its %u blocks\n", k, s->swapblocks);
  }
  if (vmframes != frame_count(POOL_VM))
    AUDIT_BAD("%u VM frames, the core map counts %u\n", vmframes, frame_count(POOL_VM));
  bad += pageout_audit(quiet);
  bad += oldest_audit(quiet);
  bad += cowcor_audit(quiet);
  bad += as_audit(quiet);
  release(&vm_lock);
  return bad;
}
