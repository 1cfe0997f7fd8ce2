/* What the VM's paging files share, and nobody else: the aging clock and the VM's answers to
 * the negotiation (vm/aging.c), page-out (vm/pageout.c), the audit (vm/audit.c), the
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

/* pol_candidate (vm/aging.c) as the page's entry, or 0: idle reads the accessed bit from it
 * without walking the page table twice (the scans and the VM's offer call it on every page). */
pte_t *candidate_pte(uint32_t i);

/* A candidate not used since the aging clock last stamped it: its time of last reference is
 * its age (an accessed one's stamp is stale). What the VM offers and gives comes from these. */
static inline bool idle(uint32_t i)
{
  pte_t *pte = candidate_pte(i);
  return pte && !(*pte & PTE_A);
}

/* --- vm/aging.c ------------------------------------------------------------------------------ */

/* The frame vm_offer reports and vm_surrender gives first, or -1; *k is its place in the
 * batch of oldest pages (-1 for a page of the ready list). */
int32_t oldest_victim(int32_t *k);
void vm_daemon(void *arg);                 /* the VM daemon's thread (vmaging) */
void aging_init(void);                     /* vm.clock_rate; the VM's pool registered */
int aging_audit(bool quiet);               /* the VM's offer is its oldest page */
/* f's accessed bit was dropped without a stamp (its page restored after a page-out): the VM's
 * bound on its pages' times (used_since, vm/aging.c) must cover f's. */
void aging_unstamped(struct frame *f);
uint32_t vm_oldest_ms(void);               /* the vm.oldest_ms counter */
extern uint32_t st_age_sweeps, st_age_checks, age_lag_ms;

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
