/* FIFO: the page that came in first goes first, referenced or not. The policy word holds
 * the order of arrival. */
#include "vm/policy.h"

static uint32_t arrivals;

static void fifo_page_in(uint32_t f)
{
  *pol_word(f) = arrivals++;
}

static int32_t fifo_choose(void)
{
  int32_t best = -1;
  uint32_t best_age = 0;
  for (uint32_t f = 0; f < pol_nframes(); f++) {
    if (!pol_candidate(f))
      continue;
    uint32_t age = arrivals - *pol_word(f);     /* wraps correctly */
    if (best < 0 || age > best_age) {
      best = (int32_t)f;
      best_age = age;
    }
  }
  return best;
}

const struct vm_policy policy_fifo = {
  .name = "fifo",
  .description = "first in, first out: the oldest arrival goes",
  .page_in = fifo_page_in,
  .choose = fifo_choose,
};
POLICY(policy_fifo);
