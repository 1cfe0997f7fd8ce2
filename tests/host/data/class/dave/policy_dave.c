/* Breaks the rules: never returns (tests/host/test_grade_dir.py). */
#include "vm/policy.h"
static volatile uint32_t spin;
static int32_t dave_choose(void)
{
  for (;;)
    spin++;
  return -1;
}
const struct vm_policy policy_dave = { .name = "dave", .description = "loops", .choose = dave_choose };
