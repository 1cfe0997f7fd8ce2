/* System calls of the virtual memory (numbers from 50). */
#include <sys.h>
#include "uapi/syscall.h"
#include "uapi/vmcorrupt.h"

int negtrace(struct negrecord *buf, int max)
{
  int ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(SYS_negtrace), "b"(buf), "c"(max) : "memory", "cc");
  return ret;
}

int vmaudit(int quiet)
{
  int ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(SYS_vmaudit), "b"(quiet) : "memory", "cc");
  return ret;
}

int vmcorrupt(struct vmcorrupt *r)
{
  int ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(SYS_vmcorrupt), "b"(r) : "memory", "cc");
  return ret;
}

int vmtrace(struct vmtrace_info *info, struct vmtrace_rec *buf, unsigned first, unsigned max)
{
  int ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(SYS_vmtrace), "b"(info), "c"(buf), "d"(first), "S"(max)
                   : "memory", "cc");
  return ret;
}
