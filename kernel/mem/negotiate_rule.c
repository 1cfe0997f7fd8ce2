/* The negotiation's decision (see kernel/mem/negotiate_rule.h for the contract, kernel/mem/negotiate.c for the
 * mechanism around it).
 *
 * Sprite compares the two pools' oldest pages after adding the penalty to the VM's: a VM page
 * then looks penalty seconds younger than it is, so the file cache can take it only when it
 * has been idle penalty seconds longer than the cache's own oldest block (WRL 90/4 6.1). The
 * bias is added, never subtracted, and saturates rather than wrapping, so a huge penalty
 * means "never" and not, after an overflow, "always".
 *
 * A pool whose page to give is dirty says so (busy). If the comparison picks it, the asker
 * is told to wait (NEG_BUSY) instead of recycling its own page: under a penalty its own is a
 * page the comparison has just judged younger, the very one the penalty exists to keep.
 * Sprite had no such answer: a cache whose oldest blocks were dirty simply refused, and the
 * VM took its own.
 *
 * The verdict is monotonic in the other's time, which lets an asker skip asking
 * (neg_keeps_own below; kernel/mem/negotiate.c, UNASKED).
 *
 * THE LEARNED BIAS (vm.penalty_mode=adaptive). A constant penalty protects an interactive
 * program that sleeps less than it and no other: 120 s keeps a toucher that sleeps 30 s and
 * loses one that sleeps 150 s. The evidence that the VM gave up a page too early is the page
 * coming back (a refault, kernel/mem/refault.c), and its reuse interval is the protection it
 * needed. So the bias follows the refaults: each early one moves it half way to that
 * interval and a quarter (for the next round's jitter) and the clock's lag, so a pattern that
 * keeps refaulting at one interval is protected after three refaults (7/8 of 1.25 is more
 * than 1). A refault is early only from a distance the cache could have paid: no more pages
 * given up since than the cache holds. A scan that never comes back, or a program cycling
 * through more than memory, never raises it.
 *
 * A protected program stops refaulting, which is the point, so refaults alone cannot say the
 * bias is still wanted: the aging clock reports pages used again after an idle time that only
 * the bias had kept them through (longer than the cache's oldest block, within the bias), and
 * each renews the evidence. With none for twice the bias and a grace of NEG_GRACE_MS the bias
 * halves, and again for every such period, down to nothing: a program that stopped, or a
 * machine where nothing presses the pools, gives the cache its plain LRU back. */
#include "kernel/mem/negotiate_rule.h"

uint32_t neg_penalty_ms(const struct neg_penalty *p)
{
  uint64_t units = 1;
  if (p->mode == NEG_PENALTY_STEPPED) {
    /* Whole tenths of the shared memory the cache holds; under a tenth, no penalty. */
    uint32_t per_group = p->total_frames / NEG_GROUPS;
    units = per_group ? p->cache_frames / per_group : 0;
  }
  uint64_t ms = units * p->penalty_s * 1000ull;
  return ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

static uint32_t biased(uint32_t t, uint32_t bias)
{
  return t > UINT32_MAX - bias ? UINT32_MAX : t + bias;
}

/* Not inlined into neg_keeps_own: gdb's negbreak stops here for every negotiation. */
__attribute__((noinline)) enum neg_verdict neg_decide(enum neg_pool asker, struct neg_offer own,
                                                      struct neg_offer other, uint32_t penalty_ms)
{
  enum neg_verdict give = other.busy ? NEG_BUSY : NEG_OTHER;
  if (other.refuse)
    return own.refuse ? NEG_NONE : NEG_OWN;
  if (own.refuse)
    return give;
  uint32_t own_t = own.lastref_ms, other_t = other.lastref_ms;
  if (asker == NEG_VM)
    own_t = biased(own_t, penalty_ms);
  else
    other_t = biased(other_t, penalty_ms);
  return other_t < own_t ? give : NEG_OWN;
}

/* The other pool's answer can only make its page younger than other_since_ms (its
 * lastref_ms no smaller) or be a refusal; neither turns NEG_OWN into anything else: a later
 * time biased is no earlier (biased is monotonic), so "other_t < own_t" stays false, and a
 * refusal gives NEG_OWN to an asker that has a page. So the answer for the oldest page the
 * other could have is the answer for every page it could have. */
bool neg_keeps_own(enum neg_pool asker, struct neg_offer own, uint32_t other_since_ms, uint32_t penalty_ms)
{
  struct neg_offer oldest = { .refuse = false, .lastref_ms = other_since_ms };
  return neg_decide(asker, own, oldest, penalty_ms) == NEG_OWN;
}

bool neg_refault_early(uint32_t distance, uint32_t other_frames)
{
  return distance <= other_frames;
}

uint32_t neg_learned_bias(const struct neg_learned *l, uint32_t now_ms)
{
  if (l->bias_ms == 0)
    return 0;
  uint32_t quiet = now_ms - l->evidence_ms;
  uint32_t period = 2 * l->bias_ms + NEG_GRACE_MS;   /* bias <= an hour: no overflow */
  uint32_t halvings = quiet / period;
  return halvings >= 32 ? 0 : l->bias_ms >> halvings;
}

void neg_learn_refault(struct neg_learned *l, uint32_t now_ms, uint32_t reuse_ms)
{
  uint64_t want = (uint64_t)reuse_ms + reuse_ms / 4 + NEG_LAG_MS;
  uint32_t target = want > NEG_BIAS_MAX_MS ? NEG_BIAS_MAX_MS : (uint32_t)want;
  uint32_t now = neg_learned_bias(l, now_ms);
  if (target > now)
    now += (target - now + 1) / 2;
  l->bias_ms = now;
  l->evidence_ms = now_ms;
}

bool neg_saved(uint32_t idle_ms, uint32_t other_age_ms, uint32_t bias_ms)
{
  return bias_ms > 0 && idle_ms > other_age_ms && idle_ms - other_age_ms <= bias_ms;
}

void neg_learn_saved(struct neg_learned *l, uint32_t now_ms)
{
  l->bias_ms = neg_learned_bias(l, now_ms);
  l->evidence_ms = now_ms;
}
