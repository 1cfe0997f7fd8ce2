/* Breaks the rules: sleeps under the VM lock (tests/host/test_grade_dir.py). */
#include "vm/policy.h"
int usleep(unsigned);
static int32_t carol_choose(void)
{
  usleep(1000);
  for (uint32_t f = 0; f < pol_nframes(); f++)
    if (pol_candidate(f))
      return (int32_t)f;
  return -1;
}
const struct vm_policy policy_carol = { .name = "carol", .description = "sleeps", .choose = carol_choose };
