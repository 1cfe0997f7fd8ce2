/* Breaks the rules: includes stdio.h and prints (tests/host/test_grade_dir.py). */
#include <stdio.h>
#include "vm/policy.h"
static int32_t frank_choose(void)
{
  printf("choosing\n");
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (pol_candidate(f))
      return (int32_t)f;
  return -1;
}
const struct vm_policy policy_frank = { .name = "frank", .description = "prints", .choose = frank_choose };
