/* Processes, kernel threads and the round-robin scheduler. Uniprocessor: the process table
 * is protected by turning interrupts off (ptable_lock). */
#include "kernel/klib.h"
#include "kernel/x86.h"
#include "kernel/proc.h"
#include "kernel/gdt.h"
#include "kernel/syscall.h"
#include "kernel/power.h"
#include "kernel/cmdline.h"
#include "uapi/stat.h"
#include "uapi/signal.h"
#include "fs/fs.h"
#include "drivers/disk.h"
#include "vm/vm.h"
#include "kernel/coremap.h"
#include "kernel/sleeplock.h"
#include "kernel/ksyms.h"
#include "kernel/fpu.h"
#include "kernel/stats.h"

static struct proc ptable[NPROC];
static struct spinlock ptable_lock;
static char kstacks[NPROC][KSTACKSIZE] __attribute__((aligned(16)));
static struct proc *current;
static struct proc *initproc;
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

void proc_init(void)
{
  initlock(&ptable_lock, "ptable");
  fpu_init();
  stat_register_fn("proc.slots.used", slots_used);
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

/* A code address as the kernel's symbol table names it: "sleep_ms+0x3c" (kernel/ksyms.c). */
static void print_pc(uint32_t pc)
{
  char name[64];
  if (ksym_name(pc, name, sizeof name))
    kprintf(" %s", name);
  else
    kprintf(" %p", (void *)pc);
}

/* Return addresses up the frame-pointer chain from ebp, staying on the stack [lo, hi),
 * innermost first, each as function+offset. */
static void print_chain(uint32_t pc, uint32_t ebp, uint32_t lo, uint32_t hi)
{
  kprintf("    pcs:");
  print_pc(pc);
  for (int i = 0; i < 12 && ebp >= lo && ebp + 8 <= hi; i++) {
    uint32_t *fp = (uint32_t *)ebp;
    if (fp[1] < KERNBASE)
      break;                /* the user's side of a trap frame */
    print_pc(fp[1]);
    if (fp[0] <= ebp)
      break;
    ebp = fp[0];
  }
  kprintf("\n");
}

/* What a sleeper waits on, by the name its caller gave the channel (the sleep() macro): a
 * kernel variable as it is ("ticks", "laundry"), an object elsewhere (a pipe, an inode) by
 * the expression and its address ("p->count 0xc0f3a008"), since two pipes' readers both
 * sleep on "p->count". */
static void print_wchan(struct proc *p)
{
  extern char _kernel_start[], _kernel_end[];
  const char *w = p->wname ? p->wname : "?";
  if (strncmp(w, "(void *)", 8) == 0)
    w += 8;
  if (*w == '&')
    w++;
  uint32_t c = (uint32_t)p->chan;
  kprintf(" wchan %s", w);
  bool named = c >= (uint32_t)_kernel_start && c < (uint32_t)_kernel_end &&
               !(c >= (uint32_t)ptable && c < (uint32_t)(ptable + NPROC));
  if (!named)
    kprintf(" %p", p->chan);
  kprintf(" from");
  print_pc(p->wpc);
}

void proc_dump(void)
{
  static const char *names[] = { [UNUSED] = "unused", [EMBRYO] = "embryo", [SLEEPING] = "sleep",
                                 [RUNNABLE] = "runnable", [RUNNING] = "run", [ZOMBIE] = "zombie" };
  pushcli();
  for (int i = 0; i < NPROC; i++) {
    struct proc *p = &ptable[i];
    if (p->state == UNUSED)
      continue;
    kprintf("  pid %d ppid %d %s %s%s%s", p->pid, p->parent ? p->parent->pid : 0,
            names[p->state], p->name, p->killed ? " killed" : "", p->kthread ? " kthread" : "");
    if (p->state == SLEEPING) {
      print_wchan(p);
      struct sleeplock *lk = p->waitlock;
      uint32_t c = (uint32_t)p->chan;
      if (lk && (void *)lk == p->chan)
        kprintf(" (sleep lock \"%s\" held by pid %d)", lk->name, lk->pid);
      else if (c >= (uint32_t)coremap && c < (uint32_t)(coremap + nframes))
        kprintf(" (frame %u, pool %u, flags 0x%x)", (uint32_t)((struct frame *)c - coremap),
                ((struct frame *)c)->pool, ((struct frame *)c)->flags);
      else if (c >= (uint32_t)ptable && c < (uint32_t)(ptable + NPROC))
        kprintf(" (a child's exit)");
    }
    kprintf("\n");
    if (p == current) {
      /* Its saved context is stale: our own chain runs from the interrupt into its code. */
      uint32_t ebp;
      __asm__ volatile("movl %%ebp, %0" : "=r"(ebp));
      print_chain((uint32_t)proc_dump, ebp, (uint32_t)p->kstack, (uint32_t)p->kstack + KSTACKSIZE);
    } else if (p->state == SLEEPING || p->state == RUNNABLE)
      print_chain(p->context->eip, p->context->ebp, (uint32_t)p->kstack, (uint32_t)p->kstack + KSTACKSIZE);
  }
  if (!current)
    kprintf("  (the CPU was idle)\n");
  popcli();
}
