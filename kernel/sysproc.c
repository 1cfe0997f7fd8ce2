/* System calls about processes, time, counters and the machine. */
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/console.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "kernel/stats.h"
#include "kernel/power.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/signal.h"
#include "fs/fs.h"
#include "fs/file.h"
#include "vm/vm.h"
#include "kernel/mem/coremap.h"

int sys_fork(void) { return fork(); }
int sys_getpid(void) { return myproc()->pid; }
int sys_wait(void) { return wait(argraw(0)); }
int sys_setpgid(void) { return setpgid(argint(0), argint(1)); }

int sys_kill(void)
{
  int pid = argint(0);
  if (pid >= 0)
    return kill_proc(pid);
  if (pid == (int)0x80000000)      /* -pid would overflow */
    return -ESRCH;
  int n = kill_group(-pid, SIG_STATUS(SIGKILL), 0);
  return n < 0 ? n : 0;
}

int sys_setfg(void)
{
  int pgid = argint(0);
  if (pgid < 0)
    return -EINVAL;
  if (pgid > 0 && !group_exists(pgid, true))
    return -ESRCH;
  console_setfg(pgid);
  return 0;
}

/* The console's input mode (uapi/syscall.h): by descriptor, so that a shell whose input is
 * a file or a pipe is told so (ENOTTY) and reads it as it is. */
int sys_consmode(void)
{
  int fd = argint(0), mode = argint(1);
  struct proc *p = myproc();
  if (fd < 0 || fd >= NOFILE || !p->ofile[fd])
    return -EBADF;
  if (p->ofile[fd]->type != FD_CONSOLE)
    return -ENOTTY;
  if (mode != CONS_COOKED && mode != CONS_RAW)
    return -EINVAL;
  return console_setmode(mode == CONS_RAW) ? CONS_RAW : CONS_COOKED;
}

int sys_uptime(void) { return uptime_ms(); }

int sys_exit(void)
{
  exit_proc(argint(0) & 0xFF);
}

int sys_sleep(void)
{
  sleep_ms(argraw(0));
  return myproc()->killed ? -EINTR : 0;
}

int sys_sbrk(void)
{
  uint32_t old;
  int err = as_sbrk(myproc()->as, argint(0), &old);
  return err < 0 ? err : (int)old;
}

#define MAXARG 64
int sys_exec(void)
{
  char path[256];
  int n = argstr(0, path, sizeof path);
  if (n < 0)
    return n;
  /* Arguments are gathered in one kernel page: pointers first, strings after them. */
  char *page = kalloc_page();
  if (!page)
    return -ENOMEM;
  char **argv = (char **)page;
  char *strs = page + (MAXARG + 1) * sizeof(char *);
  char *end = page + PGSIZE;
  uint32_t uargv = argraw(1);
  int err = 0, argc = 0;
  for (;; argc++) {
    uint32_t uarg;
    if (argc > MAXARG) { err = -E2BIG; break; }
    if ((err = copy_from_user(&uarg, uargv + 4 * argc, 4)) < 0)
      break;
    if (uarg == 0) {
      argv[argc] = 0;
      break;
    }
    if (strs >= end) { err = -E2BIG; break; }
    int len = copy_str_from_user(strs, uarg, end - strs);
    if (len < 0) {
      err = len == -ENAMETOOLONG ? -E2BIG : len;
      break;
    }
    argv[argc] = strs;
    strs += len + 1;
  }
  if (err == 0)
    err = exec(path, argv);
  if (err >= 0)
    fpu_reset();              /* a new program starts with the registers fninit leaves */
  kfree_page(page);
  return err;
}

int sys_kstat(void)
{
  uint32_t len = argraw(1);
  void *ubuf;
  if (argptr(0, &ubuf, len) < 0)
    return -EFAULT;
  char *page = kalloc_page();
  if (!page)
    return -ENOMEM;
  int n = stat_format(page, MIN(len, PGSIZE));
  int err = copy_to_user((uint32_t)ubuf, page, n);
  kfree_page(page);
  return err < 0 ? err : n;
}

int sys_shutdown(void)
{
  kprintf("poweroff: syncing disks\n");
  fs_sync();
  kprintf("poweroff: halted\n");
  machine_poweroff(0);
}

int sys_ps(void)
{
  static struct procinfo rows[NPROC];
  int max = MIN(argint(1), NPROC);
  if (max < 0)
    return -EINVAL;
  int n = proc_list(rows, max);
  int err = copy_to_user(argraw(0), rows, n * sizeof rows[0]);
  return err < 0 ? err : n;
}

int sys_sysctl(void)
{
  char name[64], value[64];
  int n = argstr(0, name, sizeof name);
  if (n < 0)
    return n;
  bool set = argraw(1) != 0;
  if (set && (n = argstr(1, value, sizeof value)) < 0)
    return n;
  char out[256];
  out[0] = 0;
  int err = sysctl(name, set ? value : 0, out, sizeof out);
  if (err < 0 && !out[0])
    return err;
  uint32_t outlen = argraw(3);
  int len = strlen(out) + 1;
  if (argraw(2) && outlen > 0) {
    if ((uint32_t)len > outlen)
      len = outlen;
    out[len - 1] = 0;
    int cerr = copy_to_user(argraw(2), out, len);
    if (cerr < 0)
      return cerr;
  }
  return err;
}
