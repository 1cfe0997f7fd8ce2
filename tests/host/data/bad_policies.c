/* Wrong policies for the grader's correctness check (tests/host/test_grade.py): each is
 * compiled into a private tracesim (-DTRACESIM_EXTRA=policy_NAME) and must be failed. */
#include "vm/policy.h"

static int32_t last_in = -1;

static void note_in(uint32_t f) { last_in = (int32_t)f; }

/* Evicts a wired frame (never a candidate) once memory is full. */
static int32_t wired_choose(void)
{
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (!pol_candidate(f))
      return (int32_t)f;
  return -1;
}

/* Evicts the page that came in last, under I/O when the next fault comes at once. */
static int32_t busy_choose(void)
{
  if (last_in >= 0)
    return last_in;
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (pol_candidate(f))
      return (int32_t)f;
  return -1;
}

/* Says "none" although there are candidates. */
static int32_t none_choose(void)
{
  return -1;
}

const struct vm_policy policy_badwired = { .name = "badwired", .choose = wired_choose };
const struct vm_policy policy_badbusy = { .name = "badbusy", .page_in = note_in, .choose = busy_choose };
const struct vm_policy policy_badnone = { .name = "badnone", .choose = none_choose };
