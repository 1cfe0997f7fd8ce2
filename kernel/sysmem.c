/* System calls about the memory system's floor: the last negotiations (negtrace) and the
 * memory audit (vmaudit). The floor itself (kernel/mem/negotiate.c) knows no system call: these
 * read their arguments and copy its answers out. */
#include "kernel/klib.h"
#include "kernel/syscall.h"
#include "kernel/uapi/negtrace.h"
#include "kernel/mem/negotiate.h"
#include "kernel/sleeplock.h"

int sys_negtrace(void)
{
  uint32_t ubuf = argraw(0);
  int max = argint(1);
  if (max < 0)
    return -EINVAL;
  static struct negrecord out[NEGTRACE_MAX];
  uint32_t n = neg_trace_copy(out, (uint32_t)max);
  int err = copy_to_user(ubuf, out, n * sizeof out[0]);
  return err < 0 ? err : (int)n;
}

int sys_vmaudit(void)
{
  bool quiet = argint(0) != 0;
  return mem_audit(quiet) + sleeplock_audit(quiet);
}
