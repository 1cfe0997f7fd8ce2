/* Atlas's loop detector (Kilburn, Edwards, Lanigan and Sumner, "One-level storage system",
 * 1962): the first replacement policy, built for programs that go round loops. Hagmann (1991)
 * simulated it beside his own and found it very bad, worst on large memories; it is here so
 * that his Figures 1-9 have all their curves. The simulator only: the kernel has no use for it.
 *
 * For every page the "learning program" keeps t, the time since its last use, and T, the length
 * of its last period of inactivity (the gap between its last two uses). A page in a loop is
 * expected back T after it was last used. On a fault:
 *   1. a page idle for longer than its last gap (t > T + one tick) has left its loop: the one
 *      most overdue (largest t - T) goes;
 *   2. otherwise every page is expected back, and the one expected last (largest T - t) goes,
 *      MIN's rule on predicted next uses.
 * A page that came in has no gap yet (T = 0): it is overdue one tick after its last use, so
 * pages used once go first, which is what a loop detector should do with them.
 *
 * It is written against vm/policy.h like the kernel's policies. Its one word per frame holds
 * T (high half) and the frame's last known time of reference (low half), both in 10 ms units
 * (a gap is kept up to 655 s; the low half is compared modulo 2^16, right for gaps that long).
 * Every tick and before each choice it samples the accessed bits, so a new time of last
 * reference closes a gap. */
#include "vm/policy.h"

#define UNIT_MS 10
#define TICK_UNITS 10            /* Atlas's "+1": one sampling period, the VM's 100 ms tick */

static uint32_t units(uint32_t ms) { return ms / UNIT_MS; }

static void atlas_page_in(uint32_t f)
{
  *pol_word(f) = units(pol_lastref(f)) & 0xffff;      /* T = 0: no gap seen yet */
}

static void atlas_sample(void)
{
  for (uint32_t f = 0; f < pol_nframes(); f++) {
    if (!pol_candidate(f))
      continue;
    pol_referenced(f);
    uint32_t w = *pol_word(f), last = units(pol_lastref(f)) & 0xffff, seen = w & 0xffff;
    if (last != seen)
      *pol_word(f) = ((last - seen) & 0xffff) << 16 | last;   /* a new use: its gap is T */
  }
}

static int32_t atlas_choose(void)
{
  atlas_sample();
  uint32_t now = units(pol_now());
  int32_t overdue = -1, farthest = -1;
  uint32_t most_over = 0, most_ahead = 0;
  for (uint32_t f = 0; f < pol_nframes(); f++) {
    if (!pol_candidate(f))
      continue;
    uint32_t w = *pol_word(f), T = w >> 16, t = (now - (w & 0xffff)) & 0xffff;
    if (t > T + TICK_UNITS) {
      if (overdue < 0 || t - T > most_over) {
        overdue = (int32_t)f;
        most_over = t - T;
      }
    } else if (farthest < 0 || T - t > most_ahead || (T < t && most_ahead == 0)) {
      farthest = (int32_t)f;
      most_ahead = T > t ? T - t : 0;
    }
  }
  return overdue >= 0 ? overdue : farthest;
}

const struct vm_policy policy_atlas = {
  .name = "atlas",
  .description = "Atlas's loop detector: the page most overdue for its loop, else the one expected back last",
  .page_in = atlas_page_in,
  .tick = atlas_sample,
  .choose = atlas_choose,
};
