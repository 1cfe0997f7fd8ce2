/* Breaks the rules: chooses a wired frame (tests/host/test_grade_dir.py). */
#include "vm/policy.h"
/* Evicts a wired frame once memory is full. */
static int32_t bob_choose(void)
{
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (!pol_candidate(f))
      return (int32_t)f;
  return -1;
}
const struct vm_policy policy_bob = { .name = "bob", .description = "wrong", .choose = bob_choose };
