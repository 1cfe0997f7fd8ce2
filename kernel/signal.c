/* Killing processes and their groups: what a fault, ^C and kill(2) do to a process, and the
 * process groups a job runs in (setpgid). A process is only marked here; it exits when it next
 * leaves the kernel or wakes (kernel/trap.c, kernel/proc.c's sleep). */
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/proctable.h"
#include "uapi/signal.h"
#include "kernel/uapi/errno.h"

const char *signal_name(int sig)
{
  static const char *names[] = { [SIGINT] = "SIGINT", [SIGILL] = "SIGILL", [SIGTRAP] = "SIGTRAP",
                                 [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL",
                                 [SIGSEGV] = "SIGSEGV" };
  return sig > 0 && sig < (int)NELEM(names) && names[sig] ? names[sig] : "signal ?";
}

/* Marks p killed; it exits with status when it next leaves the kernel or wakes. */
static void kill_one(struct proc *p, int status)
{
  p->killed = 1;
  if (!p->xstate)
    p->xstate = status;
  if (p->state == SLEEPING)
    p->state = RUNNABLE;
}

int kill_proc(int pid)
{
  acquire(&ptable_lock);
  for (int i = 0; i < NPROC; i++) {
    struct proc *p = &ptable[i];
    if (p->pid == pid && p->state != UNUSED && p->state != ZOMBIE) {
      if (p == initproc || p->kthread) {
        release(&ptable_lock);
        return -EPERM;
      }
      kill_one(p, SIG_STATUS(SIGKILL));
      release(&ptable_lock);
      return 0;
    }
  }
  release(&ptable_lock);
  return -ESRCH;
}

/* Called from the console's interrupt handler too: ptable_lock only turns interrupts off. */
int kill_group(int pgid, int status, const char *why)
{
  int n = 0;
  bool protected = false;
  if (pgid <= 0)
    return -ESRCH;
  acquire(&ptable_lock);
  for (int i = 0; i < NPROC; i++) {
    struct proc *p = &ptable[i];
    if (p->pgid != pgid || p->state == UNUSED || p->state == ZOMBIE || p->killed)
      continue;
    if (p == initproc || p->kthread) {
      protected = true;
      continue;
    }
    kill_one(p, status);
    if (why)
      kprintf("pid %d (%s) killed: %s (%s, status %d)\n", p->pid, p->name, why, signal_name(status - 128),
              status);
    n++;
  }
  release(&ptable_lock);
  return n > 0 ? n : protected ? -EPERM : -ESRCH;
}

/* A group exists while a process of it is alive, or unreaped when zombies count. */
static bool group_exists_locked(int pgid, bool zombies)
{
  for (int i = 0; i < NPROC; i++)
    if (pgid > 0 && ptable[i].pgid == pgid && ptable[i].state != UNUSED &&
        (zombies || ptable[i].state != ZOMBIE))
      return true;
  return false;
}

bool group_exists(int pgid, bool zombies)
{
  acquire(&ptable_lock);
  bool found = group_exists_locked(pgid, zombies);
  release(&ptable_lock);
  return found;
}

/* As in POSIX, but smaller: a process may move itself or a child, into a new group named
 * after the process or into a group that already exists. */
int setpgid(int pid, int pgid)
{
  struct proc *me = myproc(), *p = 0;
  if (pid < 0 || pgid < 0)
    return -EINVAL;
  acquire(&ptable_lock);
  if (pid == 0 || pid == me->pid) {
    p = me;
  } else {
    for (int i = 0; i < NPROC; i++)
      if (ptable[i].pid == pid && ptable[i].parent == me && ptable[i].state != UNUSED &&
          ptable[i].state != ZOMBIE)
        p = &ptable[i];
  }
  if (!p) {
    release(&ptable_lock);
    return -ESRCH;
  }
  if (pgid == 0)
    pgid = p->pid;
  /* A pipeline's first process may have exited already; its group is still the job's. */
  if (pgid != p->pid && !group_exists_locked(pgid, true)) {
    release(&ptable_lock);
    return -EPERM;
  }
  p->pgid = pgid;
  release(&ptable_lock);
  return 0;
}
