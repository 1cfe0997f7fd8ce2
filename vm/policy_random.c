/* Random: any candidate frame, from a fixed-seed generator (runs repeat exactly). */
#include "vm/policy.h"

static uint32_t seed = 12345;

static uint32_t step(uint32_t s) { return s * 1103515245u + 12345u; }

static int32_t pick(uint32_t s)
{
  uint32_t n = pol_nframes();
  uint32_t start = (s >> 8) % n;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t f = (start + i) % n;
    if (pol_candidate(f))
      return (int32_t)f;
  }
  return -1;
}

static int32_t random_choose(void)
{
  seed = step(seed);
  return pick(seed);
}

const struct vm_policy policy_random = {
  .name = "random",
  .description = "a random candidate frame",
  .choose = random_choose,
};
POLICY(policy_random);
