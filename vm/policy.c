/* The table of replacement policies. A new policy: one file, its extern in vm/policy.h and one
 * line here. */
#include "vm/policy.h"

const struct vm_policy *const vm_policies[] = {
  &policy_clock,          /* the default */
  &policy_fifo,
  &policy_lru,
  &policy_clusterlru,
  &policy_random,
  &policy_spt,
  &policy_aging,          /* the lab's model solution (docs/lab-replacement.md) */
  0,
};

static bool same(const char *a, const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

const struct vm_policy *vm_policy_find(const char *name)
{
  for (int i = 0; vm_policies[i]; i++)
    if (same(vm_policies[i]->name, name))
      return vm_policies[i];
  return 0;
}
