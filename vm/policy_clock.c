/* Clock (second chance) over physical frames: the hand, clock_hand, goes round the core map;
 * a page referenced since the hand last passed it is spared once, the first one that was not
 * is the victim. "Referenced" is the accessed bit, or a time of last reference newer than the
 * hand's last visit (the VM's aging sweep, whose hand is age_hand in vm/aging.c, may have
 * taken the bit first); the frame's policy word keeps the time of that visit. clock_hand
 * moves only when the VM needs a victim; age_hand moves with time, whatever the policy. */
#include "vm/policy.h"

static uint32_t clock_hand;      /* <-- the clock policy's hand: the next frame to look at */

static bool referenced_since_visit(uint32_t f, bool clear)
{
  bool bit = clear ? pol_referenced(f) : pol_accessed(f);
  return bit || pol_lastref(f) > *pol_word(f);
}

static void clock_page_in(uint32_t f)
{
  *pol_word(f) = pol_now();
}

static int32_t clock_choose(void)
{
  uint32_t n = pol_nframes();
  /* Two turns at most: the first may find every page referenced and clear them all. */
  for (uint32_t i = 0; i < 2 * n + 1; i++) {
    uint32_t f = clock_hand;
    clock_hand = (clock_hand + 1) % n;
    if (!pol_candidate(f))
      continue;
    bool ref = referenced_since_visit(f, true);
    *pol_word(f) = pol_now();
    if (!ref)
      return (int32_t)f;
  }
  return -1;
}

const struct vm_policy policy_clock = {
  .name = "clock",
  .description = "second chance: a hand over the frames spares pages referenced since its last visit",
  .page_in = clock_page_in,
  .choose = clock_choose,
};
POLICY(policy_clock);
