/* Processes and kernel threads. */
#ifndef KERNEL_PROC_H
#define KERNEL_PROC_H
#include "types.h"
#include "spinlock.h"
#include "trap.h"
#include "uapi/stat.h"
#include "fpu.h"

#define NPROC   64
#define NOFILE  16        /* open files per process */
#define KSTACKSIZE 8192

struct file;
struct inode;
struct addrspace;

/* Saved registers for kernel context switches (swtch.S). */
struct context {
  uint32_t edi, esi, ebx, ebp, eip;
};

enum procstate { UNUSED, EMBRYO, SLEEPING, RUNNABLE, RUNNING, ZOMBIE };

struct proc {
  enum procstate state;
  int pid;
  int pgid;                     /* process group: ^C kills the console's foreground group */
  struct proc *parent;
  char name[16];
  char *kstack;                 /* bottom of the kernel stack */
  struct trapframe *tf;         /* the user trap frame, at the top of kstack */
  struct context *context;      /* where swtch() resumes it */
  void *chan;                   /* sleeping on this, if non-zero */
  uint32_t wpc;                 /* who called sleep(): the ^P dump names the wait by it */
  const char *wname;            /* the channel as that caller wrote it ("&ticks", "&p->count") */
  uint32_t ranks_held;          /* the ranked sleep locks it holds, a bit each (sleeplock.c) */
  struct sleeplock *waitlock;   /* the sleep lock it waits for, if any (its holder is shown) */
  int killed;
  int xstate;                   /* exit status for wait() */
  bool kthread;                 /* a kernel thread: no user memory */
  struct addrspace *as;         /* user memory: segments and page directory */
  struct file *ofile[NOFILE];
  struct inode *cwd;
  struct inode *text;           /* executable being run (ETXTBSY while held) */
  /* Pages read in for it (from backing store or its executable) and pages of its heap and
   * stack written out (whoever's fault made the frame go): IFS's toucher reads its own. */
  uint32_t pageins, pageouts;
  uint8_t fpu[FPU_STATE_SIZE];   /* its x87 registers while another process runs */
};

struct sleeplock;
struct proc *myproc(void);
/* Atomically releases lk and sleeps on chan; reacquires lk when woken. lk may be 0
 * when the caller has interrupts off by other means. The macro hands sleep() the channel's
 * expression as the caller wrote it ("&ticks", "&p->count"): the ^P dump names a wait by it
 * and by the calling function, since the kernel's symbol table names code, not data. */
void (sleep)(void *chan, struct spinlock *lk, const char *what);
#define sleep(chan, lk) sleep((chan), (lk), #chan)
void wakeup(void *chan);       /* wakes every process sleeping on chan */
void yield(void);
/* Starts a kernel thread running fn(arg); returns its pid or -1. */
int kthread_create(const char *name, void (*fn)(void *), void *arg);
void exit_proc(int status) __attribute__((noreturn));
int kill_proc(int pid);       /* exit status SIG_STATUS(SIGKILL), 137 */
/* "SIGSEGV" for 11 (kernel/uapi/signal.h). */
const char *signal_name(int sig);
/* Kills every process of group pgid (never init or a kernel thread) with exit status status
 * (SIG_STATUS(a signal): kernel/uapi/signal.h); why, if not 0, is reported on the console for
 * each, with the signal and the status. Returns how many, or -ESRCH. */
int kill_group(int pgid, int status, const char *why);
/* Puts process pid (0: the caller; itself or a child) into group pgid (0: its own pid). */
int setpgid(int pid, int pgid);
/* Has group pgid a live process (or, with zombies, one not yet reaped)? */
bool group_exists(int pgid, bool zombies);
int fork(void);
int wait(uint32_t ustatus);       /* ustatus: user address for the exit status, or 0 */
void userinit(void);
void proc_init(void);
void scheduler(void) __attribute__((noreturn));
/* Counts a page written out of a segment of process pid (nothing if it is gone). */
void proc_count_pageout(int pid);
/* Each process's info for SYS_ps. */
int proc_list(struct procinfo *out, int max);
/* Prints every process with what it waits for and its kernel call chain (the ^P dump; runs
 * in the console's interrupt handler, so it takes no lock). */
void proc_dump(void);
#endif
