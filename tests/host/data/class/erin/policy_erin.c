/* Crashes the simulator: reads through a null pointer (tests/host/test_grade_dir.py). */
#include "vm/policy.h"
static uint32_t *table;
static int32_t erin_choose(void)
{
  return (int32_t)table[pol_nframes()];
}
const struct vm_policy policy_erin = { .name = "erin", .description = "crashes", .choose = erin_choose };
