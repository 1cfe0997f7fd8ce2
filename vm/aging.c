/*
 * The aging clock: how old each VM page is.
 *
 * The file cache sees every read and write, so each of its blocks carries the exact time of
 * its last use. A VM page is used by the CPU, and the hardware keeps only an accessed bit in
 * the page-table entry: that the page was touched, not when. Yet the negotiation
 * (kernel/mem/negotiate.c) gives a frame to whichever pool holds the older page, so a VM page
 * needs a time of last reference comparable with the cache's. The aging clock makes one; the
 * VM's oldest page, which it offers, is vm/oldest.c's.
 *
 * THE SWEEP. Ten times a second the VM daemon (vm_daemon in vm/vm.c, the vmaging thread) runs the aging
 * sweep (age_tick): from where its hand, age_hand, stopped last, it looks at the accessed
 * bits of a twentieth of the frames. A VM page found accessed has the bit taken (the dirty bit
 * folded into VMF_DIRTY first) and its frame's time of last reference, frame->lastref, set to
 * now. So a VM page's time is only as fresh as the sweep's last visit. The negotiation
 * compares it with the cache's exact times under a penalty of seconds to minutes, so a whole
 * pass takes 2 s (AGE_PASS_MS) whatever the memory size, at a cost that grows with memory:
 * Sprite's 100 frames a second would take 164 s over 64 MB. vm.clock_rate sets the frames a
 * second instead; vm.age_lag_ms is the last pass's length, how stale a VM time may be,
 * whatever the replacement policy.
 *
 * Two hands go round the core map, and they are not the same. age_hand, here, moves with time
 * whatever the policy, and only stamps. clock_hand (vm/policy_clock.c) is the clock
 * replacement policy's, moves only when the VM needs a victim, and chooses one.
 *
 * WHAT A POLICY ASKS. The replacement policies (vm/policy.h) are pure C, run by the kernel,
 * the host unit tests and the trace simulator alike; the questions they ask are answered here
 * (pol_*), under vm_lock. pol_referenced takes the accessed bit as the sweep does, stamping the
 * time, so a policy and the sweep keep each other's times right.
 *
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/time.h"
#include "kernel/sysctl.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/refault.h"
#include "vm/vm.h"
#include "vm/policy.h"
#include "vm/paging.h"

#define AGE_PASS_MS 2000          /* the aging sweep's pass, when vm.clock_rate is 0 */

static uint32_t age_rate = 0;              /* frames the sweep checks per second (vm.clock_rate); 0: auto */
static uint32_t age_hand;                  /* the aging sweep's position: the next frame it looks at */
static uint32_t pass_start;                /* when the sweep's pass began */
uint32_t age_lag_ms;                       /* the last pass's length (vm.age_lag_ms) */
uint32_t st_age_sweeps, st_age_checks;     /* passes done, pages looked at (vm.clock.sweeps, .checks) */

/* --- what policies ask (vm_lock held) ------------------------------------------------------ */

uint32_t pol_nframes(void) { return nframes; }
uint32_t pol_now(void) { return uptime_ms(); }
uint32_t pol_lastref(uint32_t f) { return coremap[f].lastref; }
uint32_t *pol_word(uint32_t f) { return &coremap[f].pword; }
uint32_t pol_page(uint32_t f)
{
  struct segment *s = coremap[f].owner;
  return s ? s->serial * 2654435761u + coremap[f].index : 0;
}

bool pol_candidate(uint32_t i)
{
  return candidate_pte(i) != 0;
}

/* A frame holding no VM page has no entry to look at: a policy asking about one (a mistake
 * the lab's students will make) gets "no". */
static bool holds_page(uint32_t i)
{
  return i < nframes && coremap[i].pool == POOL_VM && coremap[i].owner;
}

bool pol_accessed(uint32_t i)
{
  if (!holds_page(i))
    return false;
  pte_t *pte = frame_pte(&coremap[i]);
  return pte && (*pte & PTE_A);
}

bool pol_referenced(uint32_t i)
{
  if (!holds_page(i))
    return false;
  struct frame *f = &coremap[i];
  pte_t *pte = frame_pte(f);
  if (!pte || !(*pte & (PTE_A | PTE_D)))
    return false;
  bool ref = *pte & PTE_A;
  /* Fold the dirty bit in before clearing it, then drop the stale TLB entry: otherwise the
   * CPU would neither set the bits again nor tell us about the next write. */
  if (*pte & PTE_D)
    f->pflags |= VMF_DIRTY;
  *pte &= ~(PTE_A | PTE_D);
  invlpg(frame_vaddr(f));
  if (ref) {
    uint32_t now = uptime_ms();
    refault_used(NEG_VM, now - f->lastref);    /* kept by the learned bias? kernel/mem/refault.c */
    f->lastref = now;
  }
  return ref;
}

/* --- the aging sweep ----------------------------------------------------------------------- */

/* Frames of other pools are skipped at the price of one comparison. */
void age_tick(void)
{
  uint32_t n = age_rate ? (age_rate + 9) / 10 : (nframes * 100 + AGE_PASS_MS - 1) / AGE_PASS_MS;
  for (uint32_t i = 0; i < n && nframes; i++) {
    if (coremap[age_hand].pool == POOL_VM && pol_candidate(age_hand)) {
      pol_referenced(age_hand);
      st_age_checks++;
    }
    if (++age_hand >= nframes) {
      age_hand = 0;
      st_age_sweeps++;
      age_lag_ms = uptime_ms() - pass_start;
      pass_start = uptime_ms();
    }
  }
}

/* --- setting ------------------------------------------------------------------------------- */

static const struct setting set_rate = {
  "vm.clock_rate", "frames the aging clock checks per second (0: a whole pass every 2 s)",
  &age_rate, 0, 1000000, 0, 0 };

void aging_init(void)
{
  setting_register(&set_rate);
}
