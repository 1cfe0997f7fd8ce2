/* Refaults: each pool remembers the pages it gave up, and the VM learns a bias from the ones
 * that come back (vm.penalty_mode=adaptive; Linux's mm/workingset.c, in Sprite's terms).
 *
 * THE SHADOWS. When the cache gives up a block (recycled for another, or surrendered to the
 * VM) or the VM a page (its own victim, or surrendered to the cache), the pool calls
 * refault_gave with the page's name and time of last reference, which go into its shadow
 * table (kernel/mem/shadow.c). A cache miss and a page-in ask refault_missed: a page found there
 * is a refault, at a distance in pages (how many the pool gave up since) and in time (its
 * reuse interval: idle from its last reference before it went until now).
 *
 * HOW MANY. Each table has room for about half as many pages as memory has frames (6 pages of
 * 340 entries, 2,040, in a 16 MB machine; 12 bytes each, 0.15 % of memory per pool), and
 * forgets beyond that (the horizon). A page refaulting from further back was given up
 * when more than half of memory had gone since: keeping it would have meant the other pool
 * giving up more than half of memory to one pattern, which no bias should be learned from.
 *
 * EARLY. A refault is early when the other pool holds at least as many frames as the
 * distance (neg_refault_early): had the other given up that many instead, this page would
 * still be here. The VM's early refaults feed the learned bias (kernel/mem/negotiate_rule.c,
 * neg_learn_refault); the cache's are counted and shown beside them, and do not move it.
 *
 * SAVED. A page the bias kept and that was then used again renews the evidence: the aging
 * clock calls refault_used when it finds a page referenced after idle_ms; if the cache's oldest
 * block at the last negotiation (refault_offered) was younger than that idle time, and the
 * bias covered the difference (neg_saved), the page stayed only because of the bias.
 *
 * THE ARBITER LAB hears each of these events through its hook (neg_arbiter, while it is in
 * use), under the same lock.
 *
 * One spinlock, taken last of all (under cache_lock or vm_lock), guards both tables and the
 * evidence. */
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/stats.h"
#include "kernel/time.h"
#include "kernel/mem/coremap.h"
#include "kernel/mem/shadow.h"
#include "kernel/mem/negotiate.h"
#include "kernel/mem/refault.h"

#define NBUCKETS 5                /* distances: < 64, 256, 1K, 4K pages, and more */

struct pool_refaults {
  struct shadow table;
  uint32_t refaults, early, aged;     /* aged: found past the horizon (not counted as refaults) */
  uint32_t hist[NBUCKETS];
};

static struct spinlock refault_lock;
static struct pool_refaults pools[2];
static struct neg_learned learned;         /* the VM's bias */
static uint32_t st_saved;
static uint32_t cache_oldest_ms, seen_ms;  /* the cache's offer at the last negotiation, and when */
static bool cache_offer_seen;

void refault_gave(enum neg_pool pool, uint32_t key, uint32_t lastref_ms)
{
  acquire(&refault_lock);
  shadow_remember(&pools[pool].table, key, lastref_ms);
  const struct neg_arbiter *a = neg_arbiter;
  if (a && a->gave)
    a->gave(pool, key, lastref_ms);
  release(&refault_lock);
}

static uint32_t bucket(uint32_t d)
{
  uint32_t b = 0;
  for (uint32_t lim = 64; b < NBUCKETS - 1 && d >= lim; lim *= 4)
    b++;
  return b;
}

void refault_missed(enum neg_pool pool, uint32_t key)
{
  uint32_t d, lastref;
  uint32_t other = frame_count(neg_frame_pool(neg_other(pool)));
  acquire(&refault_lock);
  struct pool_refaults *p = &pools[pool];
  enum shadow_found f = shadow_recall(&p->table, key, &d, &lastref);
  if (f == SHADOW_AGED)
    p->aged++;
  if (f == SHADOW_HIT) {
    p->refaults++;
    p->hist[bucket(d)]++;
    uint32_t now = uptime_ms();
    bool early = neg_refault_early(d, other);
    if (early) {
      p->early++;
      if (pool == NEG_VM)
        neg_learn_refault(&learned, now, now - lastref);
    }
    const struct neg_arbiter *a = neg_arbiter;
    if (a && a->refault)
      a->refault(pool, key, d, now - lastref, other, early);
  }
  release(&refault_lock);
}

void refault_used(enum neg_pool pool, uint32_t idle_ms)
{
  const struct neg_arbiter *a = neg_arbiter;
  if (a && a->used && pool == NEG_VM && cache_offer_seen) {
    uint32_t now = uptime_ms();     /* pressure met while the page lay idle, as below */
    if (now - seen_ms <= idle_ms)
      a->used(now, idle_ms, seen_ms - cache_oldest_ms);
  }
  if (pool != NEG_VM || learned.bias_ms == 0 || !cache_offer_seen)
    return;                   /* the common case, without the lock: nothing to renew */
  acquire(&refault_lock);
  uint32_t now = uptime_ms();
  uint32_t bias = neg_learned_bias(&learned, now);
  /* Only pressure met while the page lay idle says the bias was what kept it. */
  if (now - seen_ms <= idle_ms && neg_saved(idle_ms, seen_ms - cache_oldest_ms, bias)) {
    st_saved++;
    neg_learn_saved(&learned, now);
  }
  release(&refault_lock);
}

void refault_offered(struct neg_offer fs, uint32_t now_ms)
{
  if (fs.refuse || fs.free)
    return;                   /* no age to compare with */
  cache_oldest_ms = fs.lastref_ms;
  seen_ms = now_ms;
  cache_offer_seen = true;
}

uint32_t refault_bias_ms(void)
{
  return neg_learned_bias(&learned, uptime_ms());
}

void refault_evidence(uint32_t *early, uint32_t *saved, uint32_t *evidence_ms)
{
  *early = pools[NEG_VM].early;
  *saved = st_saved;
  *evidence_ms = learned.evidence_ms;
}

void refault_counts(enum neg_pool pool, uint32_t *refaults, uint32_t *early)
{
  *refaults = pools[pool].refaults;
  *early = pools[pool].early;
}

void refault_reset(void)
{
  acquire(&refault_lock);
  for (int p = 0; p < 2; p++) {
    pools[p].refaults = pools[p].early = pools[p].aged = 0;
    memset(pools[p].hist, 0, sizeof pools[p].hist);
  }
  st_saved = 0;
  learned = (struct neg_learned){ 0, 0 };
  cache_offer_seen = false;
  const struct neg_arbiter *a = neg_arbiter;
  if (a && a->reset)
    a->reset();
  release(&refault_lock);
}

/* --- counters ------------------------------------------------------------------------------ */

static uint32_t bias_ms(void) { return refault_bias_ms(); }

static const struct counter counters[] = {
  COUNTER("refault.fs.refaults", &pools[NEG_FS].refaults),
  COUNTER("refault.fs.early", &pools[NEG_FS].early),
  COUNTER("refault.fs.d64", &pools[NEG_FS].hist[0]),
  COUNTER("refault.fs.d256", &pools[NEG_FS].hist[1]),
  COUNTER("refault.fs.d1k", &pools[NEG_FS].hist[2]),
  COUNTER("refault.fs.d4k", &pools[NEG_FS].hist[3]),
  COUNTER("refault.fs.dmore", &pools[NEG_FS].hist[4]),
  COUNTER("refault.vm.refaults", &pools[NEG_VM].refaults),
  COUNTER("refault.vm.early", &pools[NEG_VM].early),
  COUNTER("refault.vm.d64", &pools[NEG_VM].hist[0]),
  COUNTER("refault.vm.d256", &pools[NEG_VM].hist[1]),
  COUNTER("refault.vm.d1k", &pools[NEG_VM].hist[2]),
  COUNTER("refault.vm.d4k", &pools[NEG_VM].hist[3]),
  COUNTER("refault.vm.dmore", &pools[NEG_VM].hist[4]),
  COUNTER("refault.vm.saved", &st_saved),
  COUNTER_FN("refault.vm.bias_ms", bias_ms),
};

void refault_init(void)
{
  initlock(&refault_lock, "refault");
  uint32_t entries = frame_total() / 2;
  uint32_t npages = (entries + SHADOW_SETS_PER_PAGE * SHADOW_WAYS - 1) / (SHADOW_SETS_PER_PAGE * SHADOW_WAYS);
  npages = MAX(1u, MIN(npages, (uint32_t)SHADOW_MAX_PAGES));
  for (int p = 0; p < 2; p++) {
    struct shadow_set *pages[SHADOW_MAX_PAGES];
    uint32_t got = 0;
    while (got < npages && (pages[got] = kalloc_page()))
      got++;
    shadow_init(&pools[p].table, pages, got, got * SHADOW_SETS_PER_PAGE * SHADOW_WAYS);
  }
  stat_register_table(counters, NELEM(counters));
}
