/* The replacement policies, as each file registered its own (POLICY in vm/policy.h): the
 * linker puts every entry between __start_vm_policies and __stop_vm_policies, in the kernel
 * (linker.ld) and in the host programs alike (GNU ld makes the two symbols itself). */
#include "vm/policy.h"

extern const struct vm_policy *const __start_vm_policies[], *const __stop_vm_policies[];

const struct vm_policy *vm_policy_at(uint32_t i)
{
  return i < (uint32_t)(__stop_vm_policies - __start_vm_policies) ? __start_vm_policies[i] : 0;
}

static bool same(const char *a, const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

const struct vm_policy *vm_policy_find(const char *name)
{
  for (uint32_t i = 0; vm_policy_at(i); i++)
    if (same(vm_policy_at(i)->name, name))
      return vm_policy_at(i);
  return 0;
}
