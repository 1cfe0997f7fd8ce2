/* The negotiation's decision (see kernel/negotiate_rule.h for the contract, kernel/negotiate.c for the
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
 * VM took its own. */
#include "kernel/negotiate_rule.h"

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

enum neg_verdict neg_decide(enum neg_pool asker, struct neg_offer own, struct neg_offer other,
                            uint32_t penalty_ms)
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
