/* The lab's starting point (docs/lab-replacement.md): copy this file to vm/policy_NAME.c,
 * rename "mine" and policy_mine to your policy's name, and fill in the four hooks.
 *
 *   python3 tools/lab/grade.py NAME --file vm/policy_NAME.c --host-only
 *                                    the shipped traces, before the kernel knows your policy
 *   then make (the POLICY line at the end registers it with the kernel), and
 *   make grade POLICY=NAME           the traces and the kernel, with a score
 *
 * Replace this comment with your essay: what your policy does and why it should beat clock.
 *
 * Rules (vm/policy.h): every hook runs with the VM lock held and must not sleep, allocate,
 * print in a loop or take another lock; include nothing but vm/policy.h (the host compiles this
 * very file); choose() returns a frame for which pol_candidate() is true, or -1 only when
 * there is none. Your state: one word per frame (pol_word) and small static variables. */
#include "vm/policy.h"

/* Frame f now holds a page (paged in, zero-filled or copied). */
static void mine_page_in(uint32_t f)
{
  *pol_word(f) = 0;         /* TODO: what does your policy remember about a page? */
}

/* Frame f's page is gone. Optional: delete the hook if you keep nothing about evicted pages. */
static void mine_page_out(uint32_t f)
{
  (void)f;
}

/* Ten times a second. pol_referenced(f) tells (and clears) whether f was used since the last
 * time anyone asked; pol_lastref(f) is when, in ms. */
static void mine_tick(void)
{
}

/* The victim. This one goes round the frames and takes the next candidate, used or not:
 * correct, and FIFO at best. TODO: choose better. */
static uint32_t next;

static int32_t mine_choose(void)
{
  uint32_t n = pol_nframes();
  for (uint32_t i = 0; i < n; i++) {
    uint32_t f = (next + i) % n;
    if (pol_candidate(f)) {
      next = (f + 1) % n;
      return (int32_t)f;
    }
  }
  return -1;
}

const struct vm_policy policy_mine = {
  .name = "mine",
  .description = "the lab's skeleton: round robin over the frames",
  .page_in = mine_page_in,
  .page_out = mine_page_out,
  .tick = mine_tick,
  .choose = mine_choose,
};
POLICY(policy_mine);
