/* LRU, exact to the sampling interval: every tick (and before each choice) the accessed bit
 * of every frame is sampled into its time of last reference; the victim is the page with the
 * oldest time. Ties go to the lowest frame number. */
#include "vm/policy.h"

static void lru_sample(void)
{
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (pol_candidate(f))
      pol_referenced(f);
}

static int32_t lru_oldest(void)
{
  int32_t best = -1;
  uint32_t now = pol_now(), best_age = 0;
  for (uint32_t f = 0; f < pol_nframes(); f++) {
    if (!pol_candidate(f))
      continue;
    uint32_t age = now - pol_lastref(f);
    if (best < 0 || age > best_age) {
      best = (int32_t)f;
      best_age = age;
    }
  }
  return best;
}

static int32_t lru_choose(void)
{
  lru_sample();
  return lru_oldest();
}

const struct vm_policy policy_lru = {
  .name = "lru",
  .description = "least recently used, sampling every accessed bit each tick",
  .tick = lru_sample,
  .choose = lru_choose,
};
POLICY(policy_lru);
