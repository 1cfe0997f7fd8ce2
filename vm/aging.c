/*
 * The aging clock: how old each VM page is, and what the VM tells the negotiation.
 *
 * The file cache sees every read and write, so each of its blocks carries the exact time of
 * its last use. A VM page is used by the CPU, and the hardware keeps only an accessed bit in
 * the page-table entry: that the page was touched, not when. Yet the negotiation
 * (kernel/mem/negotiate.c) gives a frame to whichever pool holds the older page, so a VM page
 * needs a time of last reference comparable with the cache's. The aging clock makes one.
 *
 * THE SWEEP. Ten times a second the VM daemon (vm_daemon, the vmaging thread) runs the aging
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
 * THE VM'S OLDEST PAGE. The negotiation compares the cache's least recently used block with
 * the VM's least recently used page, so the VM answers (vm_offer) with its oldest page by time
 * of last reference, whatever its replacement policy: a policy's own next victim may be young
 * (clock's hand stands still while the VM replaces nothing, and the page under it was touched
 * a second ago), and a cache told "young" would never be given a page. A page the page-out
 * daemon has cleaned comes first (it was old when laundered, and is free to go); then the
 * oldest by the aging clock's stamps, skipping pages accessed since (their stamp is stale).
 * Finding the oldest means looking at every frame, and the cache asks on every miss once
 * memory is full: the VM daemon scans once a tick, keeping the OLDEST_BATCH oldest, oldest
 * first, and they serve for the rest of the tick while each is still a candidate with the
 * same stamp; only an asker that uses them all up scans again. Asked to give (vm_surrender),
 * the VM gives that page if it is clean. The VM keeps 1/16 of memory whoever asks (Sprite's
 * minVMPages): there it refuses.
 *
 * HOW OLD AT MOST. The scan also finds the least time of last reference over the frames the
 * VM holds (used_since), busy or not, candidates or not, but for the pages found accessed: no
 * page the VM could offer until the next scan is older. A page's stamp only grows while the VM
 * holds it; a frame the VM takes comes busy and is stamped when it is mapped (vm_map_frame); a
 * page found accessed cannot be offered until its bit is taken, and whoever takes it stamps
 * the page (pol_referenced) -- but for a page restored after a page-out, whose bit is dropped
 * with no stamp: that lowers the bound to its time (aging_unstamped). A cache ask that would
 * keep its own even against a page that old does not ask the VM at all (kernel/mem/negotiate.c,
 * UNASKED); the audit checks that no idle page is older.
 *
 * The VM daemon's tick also samples the reference trace (vm/trace.c), lets the policy tick,
 * reserves backing store for forked segments (vm/segment.c) and tops up the kernel's reserve
 * of free frames (neg_refill).
 */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/time.h"
#include "kernel/sysctl.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "kernel/mem/refault.h"
#include "vm/vm.h"
#include "vm/policy.h"
#include "vm/paging.h"
#include "kernel/audit.h"

#define AGE_PASS_MS 2000          /* the aging sweep's pass, when vm.clock_rate is 0 */

static uint32_t age_rate = 0;              /* frames the sweep checks per second (vm.clock_rate); 0: auto */
static uint32_t age_hand;                  /* the aging sweep's position: the next frame it looks at */
static uint32_t pass_start;                /* when the sweep's pass began */
uint32_t age_lag_ms;                       /* the last pass's length (vm.age_lag_ms) */
uint32_t st_age_sweeps, st_age_checks;     /* passes done, pages looked at (vm.clock.sweeps, .checks) */
static uint32_t ticks;                     /* the VM daemon's */
#define OLDEST_BATCH 16
static int32_t oldest[OLDEST_BATCH];       /* the oldest candidates of the last scan, oldest first */
static uint32_t oldest_lastref[OLDEST_BATCH];   /* their times then: a changed one is no longer old */
static uint32_t noldest, oldest_tick;      /* how many; the tick of the scan + 1 (0: none yet) */
static uint32_t used_since;                /* no VM page was last used before: the last scan's bound */
static void scan_oldest(void);

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

/* Inline in the scan of every frame (scan_oldest), a call elsewhere. */
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

pte_t *candidate_pte(uint32_t i)
{
  return i < nframes ? candidate_entry(&coremap[i]) : 0;
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
static void age_tick(void)
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

void vm_daemon(void *arg)
{
  for (;;) {
    sleep_ms(100);
    if (vm_damaged)
      continue;             /* a test damaged the bookkeeping on purpose (scaffold/vm_corrupt.c) */
    acquire(&vm_lock);
    ticks++;
    age_tick();
    vm_trace_tick();
    const struct vm_policy *policy = current_policy();
    if (policy->tick)
      policy->tick();
    scan_oldest();          /* here, not in the first cache miss of the tick */
    bool all = vm_reserve_wanted;
    vm_reserve_wanted = false;
    release(&vm_lock);
    seg_reserve_lazy(all);
    neg_refill();
  }
}

/* --- the VM's oldest page ------------------------------------------------------------------ */

static bool older(uint32_t a, uint32_t b, uint32_t now)
{
  return now - a > now - b;           /* by age, so that the ms clock may wrap */
}

static void scan_oldest(void)
{
  uint32_t now = uptime_ms(), since = now;
  noldest = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    if (coremap[i].pool != POOL_VM)
      continue;
    uint32_t t = coremap[i].lastref;
    bool batch = noldest < OLDEST_BATCH || older(t, oldest_lastref[OLDEST_BATCH - 1], now);
    if (t >= since && !batch)
      continue;                       /* neither the bound nor the full batch would take it */
    pte_t *pte = candidate_entry(&coremap[i]);
    if (pte && (*pte & PTE_A))
      continue;                       /* accessed: stamped before it can be offered (above) */
    if (t < since)
      since = t;                      /* busy or not a candidate now: it may be offered later */
    if (!pte || !batch)
      continue;
    uint32_t k = noldest;
    while (k > 0 && older(t, oldest_lastref[k - 1], now))
      k--;                            /* equal ages keep frame order: the lower index first */
    if (k >= OLDEST_BATCH)
      continue;
    uint32_t last = MIN(noldest, OLDEST_BATCH - 1);
    for (uint32_t m = last; m > k; m--) {
      oldest[m] = oldest[m - 1];
      oldest_lastref[m] = oldest_lastref[m - 1];
    }
    oldest[k] = (int32_t)i;
    oldest_lastref[k] = t;
    if (noldest < OLDEST_BATCH)
      noldest++;
  }
  oldest_tick = ticks + 1;
  used_since = since;
}

static bool still_oldest(uint32_t k)
{
  int32_t v = oldest[k];
  return coremap[v].lastref == oldest_lastref[k] && idle(v);
}

int32_t oldest_victim(int32_t *k)
{
  *k = -1;
  int32_t r = ready_first_idle();
  if (r >= 0)
    return r;
  for (int pass = 0; pass < 2; pass++) {
    if (oldest_tick != ticks + 1)
      scan_oldest();
    for (uint32_t i = 0; i < noldest; i++)
      if (still_oldest(i)) {
        *k = (int32_t)i;
        return oldest[i];
      }
    if (noldest == 0)
      break;
    oldest_tick = 0;                  /* the batch is used up: scan again */
  }
  return -1;
}

/* --- what the negotiation asks (kernel/mem/negotiate.c) ----------------------------------------- */

/* The VM keeps 1/16 of memory whoever asks (Sprite's minVMPages). */
static bool at_floor(void)
{
  return frame_count(POOL_VM) <= frame_total() / 16;
}

static struct neg_offer vm_offer(bool giving)
{
  struct neg_offer o = { .refuse = true };
  int32_t k = -1;
  acquire(&vm_lock);
  int32_t v = giving && at_floor() ? -1 : oldest_victim(&k);
  if (v >= 0) {
    o.refuse = false;
    o.lastref_ms = coremap[v].lastref;
    o.busy = giving && vm_page_dirty(&coremap[v]);     /* the laundry must write it first */
  }
  release(&vm_lock);
  return o;
}

/* The oldest page goes, if it is clean. A dirty one goes to the laundry, and so do the dirty
 * ones after it in the batch, up to the first clean one, which goes instead: the next
 * oldest, the page-out daemon cleaning ahead for the next asks. */
static struct frame *vm_surrender(void)
{
  struct frame *f = 0;
  int32_t k = -1;
  acquire(&vm_lock);
  int32_t v = at_floor() ? -1 : oldest_victim(&k);
  if (v >= 0 && take_if_clean(&coremap[v]))
    f = &coremap[v];
  for (int32_t i = k + 1; !f && k >= 0 && i < (int32_t)noldest; i++)
    if (still_oldest(i) && take_if_clean(&coremap[oldest[i]]))
      f = &coremap[oldest[i]];
  release(&vm_lock);
  return f;
}

/* The VM's answers to the negotiation (kernel/mem/negotiate.h). */
static const struct pool_ops vm_pool = {
  .offer = vm_offer, .surrender = vm_surrender, .audit = vm_audit, .used_since_ms = &used_since,
};

void aging_unstamped(struct frame *f)
{
  if (f->lastref < used_since)
    used_since = f->lastref;
}

/* --- setting, counter, start, audit -------------------------------------------------------- */

uint32_t vm_oldest_ms(void)
{
  acquire(&vm_lock);
  int32_t k, v = oldest_victim(&k);
  uint32_t age = v < 0 ? 0 : uptime_ms() - coremap[v].lastref;
  release(&vm_lock);
  return age;
}

static const struct setting set_rate = {
  "vm.clock_rate", "frames the aging clock checks per second (0: a whole pass every 2 s)",
  &age_rate, 0, 1000000, 0, 0 };

void aging_init(void)
{
  setting_register(&set_rate);
  neg_register_pool(NEG_VM, &vm_pool);
}

/* The VM's offer to the negotiation: the page the batch names still has the stamp it was
 * found with, and a new scan puts first a page no younger than any other that could go.
 * vm_lock held (vm_audit). */
int aging_audit(bool quiet)
{
  int bad = 0;
  int32_t k, v = oldest_victim(&k);
  if (v >= 0 && k >= 0 && coremap[v].lastref != oldest_lastref[k])
    AUDIT_BAD("the VM offers frame %d as last used at %u ms; it was used at %u\n", v, oldest_lastref[k],
        coremap[v].lastref);
  for (uint32_t i = 0; i < nframes; i++)
    if (idle(i) && coremap[i].lastref < used_since) {
      AUDIT_BAD("frame %u (last used at %u ms) could be offered, yet the VM says none was used before %u\n", i,
          coremap[i].lastref, used_since);
      break;
    }
  scan_oldest();
  uint32_t now = uptime_ms();
  for (uint32_t i = 0; i < nframes; i++) {
    if (!pol_candidate(i) || pol_accessed(i))
      continue;
    /* Ages compared here, not by older(): the audit must not share the scan's mistakes. */
    if (noldest == 0 || now - coremap[i].lastref > now - oldest_lastref[0]) {
      AUDIT_BAD("frame %u (last used at %u ms) is older than the VM's oldest page %d\n", i, coremap[i].lastref,
          noldest ? oldest[0] : -1);
      break;
    }
  }
  return bad;
}
