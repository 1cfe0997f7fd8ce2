/* The process table in the ^P dump (kernel/dump.c): each process, what a sleeper waits on,
 * and its kernel call chain by function name. */
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/proctable.h"
#include "kernel/sleeplock.h"
#include "kernel/ksyms.h"
#include "kernel/memlayout.h"
#include "kernel/mem/coremap.h"

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
    if (p == myproc()) {
      /* Its saved context is stale: our own chain runs from the interrupt into its code. */
      uint32_t ebp;
      __asm__ volatile("movl %%ebp, %0" : "=r"(ebp));
      print_chain((uint32_t)proc_dump, ebp, (uint32_t)p->kstack, (uint32_t)p->kstack + KSTACKSIZE);
    } else if (p->state == SLEEPING || p->state == RUNNABLE)
      print_chain(p->context->eip, p->context->ebp, (uint32_t)p->kstack, (uint32_t)p->kstack + KSTACKSIZE);
  }
  if (!myproc())
    kprintf("  (the CPU was idle)\n");
  popcli();
}
