/* The process table, shared by the files that make up processes: kernel/proc.c (the table,
 * a process's lifetime, the scheduler), kernel/signal.c (kill, process groups) and
 * kernel/procdump.c (the ^P dump). The rest of the kernel goes through kernel/proc.h. */
#ifndef KERNEL_PROCTABLE_H
#define KERNEL_PROCTABLE_H
#include "kernel/proc.h"
#include "kernel/spinlock.h"

extern struct proc ptable[NPROC];
extern struct spinlock ptable_lock;   /* interrupts off: the table's only lock */
extern struct proc *initproc;         /* never killed, never exits */
#endif
