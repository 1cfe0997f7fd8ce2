/* System-call dispatch, argument fetching, and copying between kernel and user memory.
 * Every access to user memory is checked by vm_check_user, which also faults pages in. */
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "fs/fs.h"
#include "vm/fault.h"

uint32_t argraw(int n)
{
  struct trapframe *tf = myproc()->tf;
  switch (n) {
  case 0: return tf->ebx;
  case 1: return tf->ecx;
  case 2: return tf->edx;
  case 3: return tf->esi;
  case 4: return tf->edi;
  }
  panic("argraw: argument %d", n);
}

int argint(int n)
{
  return (int)argraw(n);
}

int argptr(int n, void **pp, uint32_t size)
{
  uint32_t a = argraw(n);
  if (vm_check_user(a, size, false) < 0)
    return -EFAULT;
  *pp = (void *)a;
  return 0;
}

int argstr(int n, char *buf, uint32_t max)
{
  return copy_str_from_user(buf, argraw(n), max);
}

int user_memcpy(void *dst, const void *src, uint32_t n);   /* kernel/usercopy.S */

int copy_to_user(uint32_t udst, const void *src, uint32_t n)
{
  if (vm_check_user(udst, n, true) < 0)
    return -EFAULT;
  return user_memcpy((void *)udst, src, n);
}

int copy_from_user(void *dst, uint32_t usrc, uint32_t n)
{
  if (vm_check_user(usrc, n, false) < 0)
    return -EFAULT;
  return user_memcpy(dst, (const void *)usrc, n);
}

int copy_str_from_user(char *dst, uint32_t usrc, uint32_t max)
{
  for (uint32_t i = 0; i < max; i++) {
    if (vm_check_user(usrc + i, 1, false) < 0 || user_memcpy(&dst[i], (const void *)(usrc + i), 1) < 0)
      return -EFAULT;
    if (dst[i] == 0)
      return i;
  }
  return -ENAMETOOLONG;
}

int either_copyout(bool user, uint32_t dst, const void *src, uint32_t n)
{
  if (user)
    return copy_to_user(dst, src, n);
  memmove((void *)dst, src, n);
  return 0;
}

int either_copyin(bool user, void *dst, uint32_t src, uint32_t n)
{
  if (user)
    return copy_from_user(dst, src, n);
  memmove(dst, (const void *)src, n);
  return 0;
}

int sys_fork(void);
int sys_exit(void);
int sys_wait(void);
int sys_exec(void);
int sys_getpid(void);
int sys_kill(void);
int sys_sbrk(void);
int sys_sleep(void);
int sys_uptime(void);
int sys_kstat(void);
int sys_shutdown(void);
int sys_ps(void);
int sys_sysctl(void);
int sys_setpgid(void);
int sys_setfg(void);
int sys_vmaudit(void);
int sys_incore(void);
int sys_consmode(void);
int sys_vmcorrupt(void);
int sys_negtrace(void);
int sys_vmtrace(void);
int sys_vmpages(void);

static const syscall_fn syscalls[NSYSCALL] = {
  [SYS_fork] = sys_fork,       [SYS_exit] = sys_exit,       [SYS_wait] = sys_wait,
  [SYS_exec] = sys_exec,       [SYS_getpid] = sys_getpid,   [SYS_kill] = sys_kill,
  [SYS_sbrk] = sys_sbrk,       [SYS_sleep] = sys_sleep,     [SYS_uptime] = sys_uptime,
  [SYS_open] = sys_open,       [SYS_close] = sys_close,     [SYS_read] = sys_read,
  [SYS_write] = sys_write,     [SYS_lseek] = sys_lseek,     [SYS_fstat] = sys_fstat,
  [SYS_stat] = sys_stat,       [SYS_unlink] = sys_unlink,   [SYS_mkdir] = sys_mkdir,
  [SYS_rmdir] = sys_rmdir,     [SYS_readdir] = sys_readdir, [SYS_rename] = sys_rename,
  [SYS_dup] = sys_dup,         [SYS_pipe] = sys_pipe,       [SYS_chdir] = sys_chdir,
  [SYS_fsync] = sys_fsync,     [SYS_kstat] = sys_kstat,     [SYS_shutdown] = sys_shutdown,
  [SYS_ps] = sys_ps,           [SYS_sync] = sys_sync,       [SYS_getcwd] = sys_getcwd,
  [SYS_dup2] = sys_dup2,       [SYS_sysctl] = sys_sysctl,   [SYS_setpgid] = sys_setpgid,
  [SYS_setfg] = sys_setfg,     [SYS_incore] = sys_incore,   [SYS_consmode] = sys_consmode,
  [SYS_vmaudit] = sys_vmaudit, [SYS_vmcorrupt] = sys_vmcorrupt,
  [SYS_negtrace] = sys_negtrace, [SYS_vmtrace] = sys_vmtrace, [SYS_vmpages] = sys_vmpages,
};

void syscall_dispatch(void)
{
  struct proc *p = myproc();
  uint32_t num = p->tf->eax;
  if (num < NSYSCALL && syscalls[num])
    p->tf->eax = syscalls[num]();
  else
    p->tf->eax = -ENOSYS;
}
