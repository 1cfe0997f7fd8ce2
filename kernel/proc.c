/* Processes, kernel threads and the round-robin scheduler: the process table, a process's
 * lifetime (fork, exit, wait), sleep and wakeup. Uniprocessor: the table is protected by
 * turning interrupts off (ptable_lock). Kill and process groups are kernel/signal.c's, the
 * ^P dump of the table kernel/procdump.c's; the three share the table (kernel/proctable.h). */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/proctable.h"
#include "kernel/gdt.h"
#include "kernel/syscall.h"
#include "kernel/power.h"
#include "kernel/cmdline.h"
#include "uapi/stat.h"
#include "fs/fs.h"
#include "drivers/disk.h"
#include "vm/vm.h"
#include "kernel/fpu.h"
#include "kernel/stats.h"

struct proc ptable[NPROC];
struct spinlock ptable_lock;
static char kstacks[NPROC][KSTACKSIZE] __attribute__((aligned(16)));
static struct proc *current;
struct proc *initproc;
static struct context *scheduler_context;
static int nextpid = 1;

void swtch(struct context **old, struct context *new);
void trapret(void);
int cli_intena(void);
void cli_set(int depth, int ena);

struct proc *myproc(void)
{
  return current;
}

/* Process-table slots taken (of NPROC), zombies and kernel threads included. */
static uint32_t slots_used(void)
{
  uint32_t n = 0;
  pushcli();
  for (int i = 0; i < NPROC; i++)
    n += ptable[i].state != UNUSED;
  popcli();
  return n;
}

static const struct counter counters[] = {
  COUNTER_FN("proc.slots.used", slots_used),
};

void proc_init(void)
{
  initlock(&ptable_lock, "ptable");
  fpu_init();
  stat_register_table(counters, NELEM(counters));
}

/* Finds an unused slot and gives it a kernel stack laid out to start in forkret. */
static struct proc *allocproc(void)
{
  struct proc *p = 0;
  acquire(&ptable_lock);
  for (int i = 0; i < NPROC; i++) {
    if (ptable[i].state == UNUSED) {
      p = &ptable[i];
      break;
    }
  }
  if (!p) {
    release(&ptable_lock);
    return 0;
  }
  p->state = EMBRYO;
  p->pid = nextpid++;
  p->pgid = p->pid;
  release(&ptable_lock);

  p->kstack = kstacks[p - ptable];
  char *sp = p->kstack + KSTACKSIZE;
  sp -= sizeof *p->tf;
  p->tf = (struct trapframe *)sp;
  memset(p->tf, 0, sizeof *p->tf);
  sp -= 4;
  *(uint32_t *)sp = (uint32_t)trapret;
  sp -= sizeof *p->context;
  p->context = (struct context *)sp;
  memset(p->context, 0, sizeof *p->context);
  extern void forkret(void);
  p->context->eip = (uint32_t)forkret;
  p->killed = 0;
  p->xstate = 0;
  p->kthread = false;
  p->as = 0;
  p->text = 0;
  p->cwd = 0;
  p->chan = 0;
  p->parent = 0;
  p->pageins = p->pageouts = 0;
  p->ranks_held = 0;
  memset(p->ofile, 0, sizeof p->ofile);
  fpu_initial(p->fpu);
  return p;
}

static void freeproc(struct proc *p)
{
  p->state = UNUSED;
  p->pid = 0;
  p->pgid = 0;
  p->parent = 0;
  p->name[0] = 0;
  p->killed = 0;
}

/* The first process starts here as the kernel: it mounts the file system (which sleeps on the
 * disk, so needs a process) and then becomes /bin/init in user mode. */
static void start_init(void)
{
  struct proc *p = myproc();
  disk_selftest_in_process();
  fs_init();
  int err;
  p->cwd = namei("/", &err);
  if (!p->cwd) {
    kprintf("init: the root directory cannot be read\n");
    machine_poweroff(1);
  }
  for (int fd = 0; fd < 3; fd++)
    p->ofile[fd] = fd == 0 ? file_console_open() : filedup(p->ofile[0]);
  const char *path = cmdline_get("init", "/bin/init");
  char *argv[] = { (char *)path, 0 };
  cmdline_report_unknown();
  kprintf("console: ready\n");
  err = exec(path, argv);
  if (err < 0) {
    kprintf("init: cannot run %s (error %d)\n", path, -err);
    machine_poweroff(1);
  }
}

/* A new process's first instructions in the kernel: leave the scheduler's interrupt state,
 * then return to user mode through trapret. */
void forkret(void)
{
  cli_set(0, 0);
  if (myproc() == initproc && !myproc()->as)
    start_init();
}

void userinit(void)
{
  struct proc *p = allocproc();
  if (!p)
    panic("userinit: no process slot");
  initproc = p;
  safestrcpy(p->name, "init", sizeof p->name);
  p->tf->cs = SEG_UCODE;
  p->tf->ds = p->tf->es = p->tf->fs = p->tf->gs = p->tf->ss = SEG_UDATA;
  p->tf->eflags = FL_IF;
  p->state = RUNNABLE;
}

static void kthread_start(void)
{
  struct proc *p = myproc();
  void (*fn)(void *) = (void (*)(void *))p->tf->eax;
  void *arg = (void *)p->tf->ebx;
  cli_set(0, 0);
  sti();
  fn(arg);
  exit_proc(0);
}

int kthread_create(const char *name, void (*fn)(void *), void *arg)
{
  struct proc *p = allocproc();
  if (!p)
    return -1;
  safestrcpy(p->name, name, sizeof p->name);
  p->kthread = true;
  p->parent = initproc;
  p->tf->eax = (uint32_t)fn;       /* the trap frame is unused by a kernel thread: borrow it */
  p->tf->ebx = (uint32_t)arg;
  p->context->eip = (uint32_t)kthread_start;
  acquire(&ptable_lock);
  p->state = RUNNABLE;
  release(&ptable_lock);
  return p->pid;
}

int fork(void)
{
  struct proc *p = myproc();
  struct proc *np = allocproc();
  if (!np)
    return -EAGAIN;
  int err = as_fork(p->as, &np->as);
  if (err < 0) {
    acquire(&ptable_lock);
    freeproc(np);
    release(&ptable_lock);
    return err;
  }
  np->as->pid = np->pid;
  *np->tf = *p->tf;
  np->tf->eax = 0;             /* the child's fork() returns 0 */
  fpu_copy(np->fpu);           /* the parent's registers are the CPU's now */
  for (int i = 0; i < NOFILE; i++)
    if (p->ofile[i])
      np->ofile[i] = filedup(p->ofile[i]);
  np->cwd = idup(p->cwd);
  if (p->text) {
    np->text = idup(p->text);
    inode_text_get(np->text);
  }
  safestrcpy(np->name, p->name, sizeof p->name);
  np->parent = p;
  np->pgid = p->pgid;
  int pid = np->pid;
  acquire(&ptable_lock);
  np->state = RUNNABLE;
  release(&ptable_lock);
  return pid;
}

/* Switches to the scheduler; the caller holds ptable_lock (interrupts off). */
static void sched(void)
{
  struct proc *p = myproc();
  if (p->state == RUNNING)
    panic("sched: process still running");
  if (readeflags() & FL_IF)
    panic("sched: interrupts on");
  int depth = cli_depth(), ena = cli_intena();
  swtch(&p->context, scheduler_context);
  cli_set(depth, ena);
}

void exit_proc(int status)
{
  struct proc *p = myproc();
  if (p == initproc) {
    /* Nobody is left to run the shell or reap orphans: the machine stops, saying so and
     * reporting failure, with what was written saved first. */
    kprintf("init exited (status %d): the system cannot go on; powering off\n", status);
    fs_sync();
    machine_poweroff(1);
  }
  for (int fd = 0; fd < NOFILE; fd++) {
    if (p->ofile[fd]) {
      fileclose(p->ofile[fd]);
      p->ofile[fd] = 0;
    }
  }
  if (p->cwd) {
    iput(p->cwd);
    p->cwd = 0;
  }
  if (p->text) {
    inode_text_put(p->text);
    iput(p->text);
    p->text = 0;
  }
  if (p->as) {
    struct addrspace *as = p->as;
    as_activate(0);
    p->as = 0;
    as_destroy(as);
  }

  /* Interrupts off (not ptable_lock, which a zombie could never release) until the switch. */
  pushcli();
  wakeup(p->parent);
  for (int i = 0; i < NPROC; i++) {
    if (ptable[i].parent == p) {
      ptable[i].parent = initproc;
      if (ptable[i].state == ZOMBIE)
        wakeup(initproc);
    }
  }
  p->xstate = status;
  p->state = ZOMBIE;
  sched();
  panic("zombie exit");
}

int wait(uint32_t ustatus)
{
  struct proc *p = myproc();
  acquire(&ptable_lock);
  for (;;) {
    bool havekids = false;
    for (int i = 0; i < NPROC; i++) {
      struct proc *c = &ptable[i];
      if (c->parent != p)
        continue;
      havekids = true;
      if (c->state == ZOMBIE) {
        int pid = c->pid, status = c->xstate;
        freeproc(c);
        release(&ptable_lock);
        if (ustatus && copy_to_user(ustatus, &status, sizeof status) < 0)
          return -EFAULT;
        return pid;
      }
    }
    if (!havekids)
      break;
    if (p->killed) {
      release(&ptable_lock);
      return -EINTR;
    }
    sleep(p, &ptable_lock);
  }
  release(&ptable_lock);
  return -ECHILD;
}

/* (sleep): the name in parentheses is not the macro of kernel/proc.h, which passes what.
 * Never inlined: wpc must be its caller's call, not the caller's caller's (inlined into
 * wait(), its wait would show as coming from sys_wait). */
__attribute__((noinline)) void (sleep)(void *chan, struct spinlock *lk, const char *what)
{
  struct proc *p = myproc();
  if (!p)
    panic("sleep without a process");
  pushcli();
  if (lk)
    release(lk);
  p->chan = chan;
  p->wpc = (uint32_t)__builtin_return_address(0);
  p->wname = what;
  p->state = SLEEPING;
  sched();
  p->chan = 0;
  if (lk)
    acquire(lk);
  popcli();
}

void wakeup(void *chan)
{
  pushcli();
  for (int i = 0; i < NPROC; i++)
    if (ptable[i].state == SLEEPING && ptable[i].chan == chan)
      ptable[i].state = RUNNABLE;
  popcli();
}

void yield(void)
{
  pushcli();
  myproc()->state = RUNNABLE;
  sched();
  popcli();
}

/* Round robin over the process table. With nothing to run, halt until an interrupt. */
void scheduler(void)
{
  int last = 0;
  for (;;) {
    cli();
    cli_set(1, 0);
    struct proc *p = 0;
    for (int n = 1; n <= NPROC; n++) {
      struct proc *c = &ptable[(last + n) % NPROC];
      if (c->state == RUNNABLE) {
        p = c;
        last = c - ptable;
        break;
      }
    }
    if (!p) {
      sti();
      hlt();
      continue;
    }
    current = p;
    p->state = RUNNING;
    tss_set_kstack((uint32_t)p->kstack + KSTACKSIZE);
    as_activate(p->as);
    fpu_restore(p->fpu);
    swtch(&scheduler_context, p->context);
    fpu_save(p->fpu);
    current = 0;
  }
}

void proc_count_pageout(int pid)
{
  pushcli();              /* the pager holds vm_lock: ptable_lock would only turn interrupts off too */
  for (int i = 0; i < NPROC; i++)
    if (ptable[i].pid == pid && ptable[i].state != UNUSED) {
      ptable[i].pageouts++;
      break;
    }
  popcli();
}

int proc_list(struct procinfo *out, int max)
{
  int n = 0;
  static const int states[] = { [SLEEPING] = 1, [RUNNABLE] = 2, [RUNNING] = 3, [ZOMBIE] = 4, [EMBRYO] = 2 };
  pushcli();
  for (int i = 0; i < NPROC && n < max; i++) {
    struct proc *p = &ptable[i];
    if (p->state == UNUSED)
      continue;
    out[n].pid = p->pid;
    out[n].ppid = p->parent ? p->parent->pid : 0;
    out[n].pgid = p->pgid;
    out[n].state = states[p->state];
    out[n].size = p->as ? as_size(p->as) : 0;
    out[n].pageins = p->pageins;
    out[n].pageouts = p->pageouts;
    safestrcpy(out[n].name, p->name, sizeof out[n].name);
    n++;
  }
  popcli();
  return n;
}
