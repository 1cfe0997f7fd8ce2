/*
 * The VM's oldest page: what the VM answers when the negotiation (kernel/mem/negotiate.c)
 * asks "how old is the page you would give up next?", and the page it gives.
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
 * with no stamp: that lowers the bound to its time (oldest_unstamped). A cache ask that would
 * keep its own even against a page that old does not ask the VM at all (kernel/mem/negotiate.c,
 * UNASKED); the audit checks that no idle page is older.
 */
#include "kernel/klib.h"
#include "kernel/time.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/negotiate.h"
#include "vm/vm.h"
#include "vm/paging.h"
#include "kernel/audit.h"

#define OLDEST_BATCH 16
static int32_t oldest[OLDEST_BATCH];       /* the oldest candidates of the last scan, oldest first */
static uint32_t oldest_lastref[OLDEST_BATCH];   /* their times then: a changed one is no longer old */
static uint32_t noldest, oldest_tick;      /* how many; the tick of the scan + 1 (0: none yet) */
static uint32_t used_since;                /* no VM page was last used before: the last scan's bound */

/* --- the VM's oldest page ------------------------------------------------------------------ */

static bool older(uint32_t a, uint32_t b, uint32_t now)
{
  return now - a > now - b;           /* by age, so that the ms clock may wrap */
}

void scan_oldest(void)
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
  oldest_tick = vm_ticks + 1;
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
    if (oldest_tick != vm_ticks + 1)
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

void oldest_unstamped(struct frame *f)
{
  if (f->lastref < used_since)
    used_since = f->lastref;
}

/* --- counter, start, audit ------------------------------------------------------------------ */

uint32_t vm_oldest_ms(void)
{
  acquire(&vm_lock);
  int32_t k, v = oldest_victim(&k);
  uint32_t age = v < 0 ? 0 : uptime_ms() - coremap[v].lastref;
  release(&vm_lock);
  return age;
}

void oldest_init(void)
{
  neg_register_pool(NEG_VM, &vm_pool);
}

/* The VM's offer to the negotiation: the page the batch names still has the stamp it was
 * found with, and a new scan puts first a page no younger than any other that could go.
 * vm_lock held (vm_audit). */
int oldest_audit(bool quiet)
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
