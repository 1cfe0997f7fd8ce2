/* Aging (the lab's model solution, docs/lab-replacement.md): every tick each frame's policy
 * word shifts right by one and takes its accessed bit in at the top, so the word reads as the
 * page's last 32 ticks of use, the most recent first; the victim is the page with the smallest
 * word: unused for longest, and among pages last used at the same time, the one used least
 * before that (Tanenbaum's aging, an NFU with a decaying memory). Unlike lru, which remembers
 * only the last reference, a page touched once in passing loses to one touched often.
 *
 * The word is only as fine as the tick (100 ms): a choice first takes in the references since
 * the last tick, into the newest bit, so a page used a moment ago is never the victim. Ties go
 * to the page whose time of last reference is older, then to the lowest frame. */
#include "vm/policy.h"

static void aging_page_in(uint32_t f)
{
  *pol_word(f) = 1u << 31;      /* came in now: used in the newest tick */
}

static void aging_tick(void)
{
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (pol_candidate(f))
      *pol_word(f) = (*pol_word(f) >> 1) | (pol_referenced(f) ? 1u << 31 : 0);
}

static int32_t aging_choose(void)
{
  int32_t best = -1;
  uint32_t best_w = 0, best_age = 0, now = pol_now();
  for (uint32_t f = 0; f < pol_nframes(); f++) {
    if (!pol_candidate(f))
      continue;
    if (pol_referenced(f))
      *pol_word(f) |= 1u << 31;
    uint32_t w = *pol_word(f), age = now - pol_lastref(f);
    if (best < 0 || w < best_w || (w == best_w && age > best_age)) {
      best = (int32_t)f;
      best_w = w;
      best_age = age;
    }
  }
  return best;
}

const struct vm_policy policy_aging = {
  .name = "aging",
  .description = "aging: a 32-tick history of accessed bits per page; the least used goes",
  .page_in = aging_page_in,
  .tick = aging_tick,
  .choose = aging_choose,
};
POLICY(policy_aging);
