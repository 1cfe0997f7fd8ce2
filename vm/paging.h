/* What the VM's paging files share, and nobody else: the aging clock (vm/aging.c), the VM's
 * answers to the negotiation (vm/oldest.c), page-out (vm/pageout.c), the audit (vm/audit.c), the
 * reference trace (vm/trace.c) and the VM's start, settings and counters (vm/vm.c).
 * Everything here is used under vm_lock. */
#ifndef VM_PAGING_H
#define VM_PAGING_H
#include "kernel/types.h"
#include "kernel/mem/coremap.h"
#include "vm/vm.h"
#include "vm/policy.h"

/* --- the page behind a frame --------------------------------------------------------------- */

static inline uint32_t frame_vaddr(struct frame *f)
{
  struct segment *s = f->owner;
  return s->lo + (f->index << PGSHIFT);
}

static inline pte_t *frame_pte(struct frame *f)
{
  struct segment *s = f->owner;
  return seg_pte(s, frame_vaddr(f));
}

/* A page that has no backing block yet (a forked segment whose backing store the daemon has
 * not reserved) cannot go out; nor can a page of a segment being torn down. */
static inline bool frame_unbacked(struct frame *f)
{
  struct segment *s = f->owner;
  return s->type != SEG_CODE && seg_block(s, frame_vaddr(f)) >= s->swapblocks;
}

/* A candidate's page-table entry, or 0: inline in the scan of every frame (vm/oldest.c),
 * a call elsewhere (candidate_pte). */
static inline pte_t *candidate_entry(struct frame *f)
{
  if (f->pool != POOL_VM || frame_busy(f) || !f->owner || (f->pflags & VMF_LAUNDRY))
    return 0;
  struct segment *s = f->owner;
  if (s->refs <= 0 || frame_unbacked(f))
    return 0;
  pte_t *pte = frame_pte(f);
  return pte && (*pte & PTE_P) && PTE_ADDR(*pte) == frame_pa(f) ? pte : 0;
}

/* pol_candidate (vm/aging.c) as the page's entry, or 0: idle reads the accessed bit from it
 * without walking the page table twice (the scans and the VM's offer call it on every page). */
static inline pte_t *candidate_pte(uint32_t i)
{
  return i < nframes ? candidate_entry(&coremap[i]) : 0;
}

/* A candidate not used since the aging clock last stamped it: its time of last reference is
 * its age (an accessed one's stamp is stale). What the VM offers and gives comes from these. */
static inline bool idle(uint32_t i)
{
  pte_t *pte = candidate_pte(i);
  return pte && !(*pte & PTE_A);
}

/* --- vm/aging.c, vm/oldest.c, vm/vm.c ------------------------------------------------------ */

void age_tick(void);                       /* the aging sweep's tenth of a second (vm_lock held) */
void aging_init(void);                     /* vm.clock_rate */
extern uint32_t st_age_sweeps, st_age_checks, age_lag_ms;
/* The frame vm_offer reports and vm_surrender gives first, or -1; *k is its place in the
 * batch of oldest pages (-1 for a page of the ready list). */
int32_t oldest_victim(int32_t *k);
void scan_oldest(void);                    /* the batch of oldest pages and the bound, anew */
void oldest_init(void);                    /* the VM's pool registered with the negotiation */
int oldest_audit(bool quiet);              /* the VM's offer is its oldest page */
/* f's accessed bit was dropped without a stamp (its page restored after a page-out): the VM's
 * bound on its pages' times (used_since, vm/oldest.c) must cover f's. */
void oldest_unstamped(struct frame *f);
uint32_t vm_oldest_ms(void);               /* the vm.oldest_ms counter */
void vm_daemon(void *arg);                 /* the VM daemon's thread (vmaging, vm/vm.c) */
extern uint32_t vm_ticks;                  /* its ticks */

/* --- vm/pageout.c ---------------------------------------------------------------------------- */

/* Takes candidate f's page if it is clean (mapped nowhere, owned by nobody, still the VM's);
 * a dirty one goes to the laundry instead: true if taken. */
bool take_if_clean(struct frame *f);
/* Whether candidate f's page must be written before its frame can go (vm_lock held). */
bool vm_page_dirty(struct frame *f);
int32_t ready_first_idle(void);            /* the first idle page the daemon cleaned, or -1 */
const struct vm_policy *current_policy(void);   /* vm.policy */
void pageout_daemon(void *arg);            /* the page-out daemon's thread (vmpageout) */
void pageout_init(void);                   /* the lists, the policy; vm.policy, vm.pageout */
int pageout_audit(bool quiet);             /* the laundry and the ready list */
extern uint32_t st_vm_evictions, st_vm_oom, st_vm_policy_errors, st_vm_laundered,
    st_vm_pageout_waits, st_vm_pageout_requests;
#endif
