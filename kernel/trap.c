/* Traps: CPU exceptions, device interrupts and system calls all arrive at trap(). */
#include "kernel/klib.h"
#include "kernel/ksyms.h"
#include "kernel/x86.h"
#include "kernel/trap.h"
#include "kernel/gdt.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "drivers/pic.h"
#include "vm/fault.h"
#include "kernel/memlayout.h"
#include "kernel/uapi/signal.h"

struct gatedesc {
  uint16_t off_lo, sel;
  uint8_t zero, type;
  uint16_t off_hi;
} __attribute__((packed));

static struct gatedesc idt[256];
extern uint32_t vectors[];
extern char user_memcpy[], user_memcpy_fault[], user_memcpy_end[];   /* kernel/usercopy.S */

#define MAXHANDLERS 4
static struct {
  void (*fn)(void *);
  void *arg;
} handlers[16][MAXHANDLERS];

static const char *trapnames[] = {
  "divide error", "debug", "NMI", "breakpoint", "overflow", "bound range exceeded",
  "invalid opcode", "device not available", "double fault", "coprocessor overrun",
  "invalid TSS", "segment not present", "stack fault", "general protection fault",
  "page fault", "reserved", "x87 floating-point error", "alignment check", "machine check",
  "SIMD floating-point error", "virtualization", "control protection",
};

static void setgate(int n, uint32_t handler, int dpl)
{
  idt[n].off_lo = handler & 0xFFFF;
  idt[n].off_hi = handler >> 16;
  idt[n].sel = SEG_KCODE;
  idt[n].zero = 0;
  idt[n].type = 0x8E | (dpl << 5);     /* present, 32-bit interrupt gate: interrupts off on entry */
}

void trap_init(void)
{
  for (int i = 0; i < 256; i++)
    setgate(i, vectors[i], 0);
  setgate(T_SYSCALL, vectors[T_SYSCALL], 3);
  struct { uint16_t limit; uint32_t base; } __attribute__((packed)) d = { sizeof idt - 1, (uint32_t)idt };
  __asm__ volatile("lidt %0" : : "m"(d));
  pic_init();
}

void irq_register(int irq, void (*fn)(void *), void *arg)
{
  for (int i = 0; i < MAXHANDLERS; i++) {
    if (!handlers[irq][i].fn) {
      handlers[irq][i].fn = fn;
      handlers[irq][i].arg = arg;
      pic_enable(irq);
      return;
    }
  }
  panic("irq_register: too many handlers on IRQ %d", irq);
}

static const char *trapname(uint32_t n)
{
  if (n < NELEM(trapnames))
    return trapnames[n];
  return "unknown trap";
}

/* The signal a user exception is reported as, Linux's (the table in kernel/uapi/signal.h):
 * every exception not named here is a SIGSEGV. */
static int trap_signal(uint32_t trapno)
{
  static const uint8_t sig[] = {
    [0] = SIGFPE, [1] = SIGTRAP, [3] = SIGTRAP, [6] = SIGILL, [9] = SIGFPE, [11] = SIGBUS,
    [12] = SIGBUS, [16] = SIGFPE, [17] = SIGBUS, [18] = SIGBUS, [19] = SIGFPE,
  };
  return trapno < NELEM(sig) && sig[trapno] ? sig[trapno] : SIGSEGV;
}

/* Describes a user exception in one line, kills the process, and the shell goes on. */
static void user_exception(struct trapframe *tf)
{
  struct proc *p = myproc();
  char what[96];
  if (tf->trapno == T_PGFLT) {
    uint32_t va = rcr2();
    snprintf(what, sizeof what, "page fault: %s %s address 0x%08x",
             (tf->err & 1) ? "protection violation" : "unmapped",
             (tf->err & 2) ? "writing" : "reading", va);
    if (va >= KERNBASE)
      snprintf(what, sizeof what, "page fault: %s kernel address 0x%08x", (tf->err & 2) ? "writing" : "reading", va);
  } else if (tf->trapno >= 10 && tf->trapno <= 13 && (tf->err & 2)) {
    /* Bit 1: the error code names a gate of the IDT (`int N` through a gate of privilege 0). */
    snprintf(what, sizeof what, "%s (int 0x%02x)", trapname(tf->trapno), tf->err >> 3);
  } else if (tf->trapno >= 10 && tf->trapno <= 13 && tf->err) {
    snprintf(what, sizeof what, "%s (selector 0x%x)", trapname(tf->trapno), tf->err & ~3u);
  } else {
    snprintf(what, sizeof what, "%s", trapname(tf->trapno));
  }
  if (tf->trapno == T_PGFLT && vm_fault_reason)
    snprintf(what, sizeof what, "%s (address 0x%08x)", vm_fault_reason, rcr2());
  int sig = trap_signal(tf->trapno);
  kprintf("pid %d (%s) killed: %s at eip 0x%08x [eax=%08x ebx=%08x ecx=%08x edx=%08x esi=%08x edi=%08x ebp=%08x esp=%08x err=%x] (%s, status %d)\n",
          p->pid, p->name, what, tf->eip, tf->eax, tf->ebx, tf->ecx, tf->edx, tf->esi, tf->edi,
          tf->ebp, tf->esp, tf->err, signal_name(sig), SIG_STATUS(sig));
  p->killed = 1;
  p->xstate = SIG_STATUS(sig);
}

static void kernel_exception(struct trapframe *tf)
{
  char where[64];
  ksym_name(tf->eip, where, sizeof where);
  kprintf("\nkernel trap %u (%s) err 0x%x eip 0x%08x (%s) cr2 0x%08x\n"
          "  eax %08x ebx %08x ecx %08x edx %08x\n  esi %08x edi %08x ebp %08x\n",
          tf->trapno, trapname(tf->trapno), tf->err, tf->eip, where, rcr2(), tf->eax, tf->ebx,
          tf->ecx, tf->edx, tf->esi, tf->edi, tf->ebp);
  panic("%s in the kernel", trapname(tf->trapno));
}

void trap(struct trapframe *tf)
{
  struct proc *p = myproc();
  bool from_user = (tf->cs & 3) == 3;

  if (tf->trapno == T_SYSCALL) {
    if (p->killed)
      exit_proc(p->xstate ? p->xstate : -1);
    p->tf = tf;
    syscall_dispatch();
    if (p->killed)
      exit_proc(p->xstate ? p->xstate : -1);
    return;
  }

  if (tf->trapno >= T_IRQ0 && tf->trapno < T_IRQ0 + 16) {
    int irq = tf->trapno - T_IRQ0;
    /* Spurious IRQ 7/15: the PIC raised and withdrew it; no EOI for the master's own. */
    for (int i = 0; i < MAXHANDLERS && handlers[irq][i].fn; i++)
      handlers[irq][i].fn(handlers[irq][i].arg);
    pic_eoi(irq);
  } else if (tf->trapno == T_PGFLT && vm_fault(rcr2(), tf->err, from_user) == 0) {
    /* handled: the page is now there */
  } else if (from_user) {
    user_exception(tf);
  } else if (tf->trapno == T_PGFLT && rcr2() < KERNBASE &&
             tf->eip >= (uint32_t)user_memcpy && tf->eip < (uint32_t)user_memcpy_end) {
    tf->eip = (uint32_t)user_memcpy_fault;   /* the system call returns EFAULT */
  } else {
    kernel_exception(tf);
  }

  if (p && p->killed && from_user)
    exit_proc(p->xstate ? p->xstate : -1);
  /* Round-robin: the timer takes the CPU from whoever has it. */
  if (p && p->state == RUNNING && tf->trapno == T_IRQ0 + IRQ_TIMER && time_slice_over())
    yield();
  if (p && p->killed && from_user)
    exit_proc(p->xstate ? p->xstate : -1);
}
