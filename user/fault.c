/* fault KIND: does something a user program must not, so that tests can watch the kernel
 * kill it. If the process is still alive afterwards, it says so and exits with status 2.
 *
 *   fault KIND   one kind, in this process (fault -l lists them: null, kernel, jump, div0,
 *                stack, ud, priv, port, cr3, lgdt, ds, farjmp, iret0, tf, ...)
 *   fault -a     every kind, each in a child of its own
 *   fault -m     reads, then writes, a word at addresses across the kernel's quarter of the
 *                address space (every 16 MB from 0xC0000000, the last word of memory, a word
 *                straddling the top of user space), each in a child
 *   fault -v     `int N` for every vector N but the system call's (0x80), each in a child
 *
 * The loop modes print one line per child, "fault: WHAT pid P status S", where S is its exit
 * status (128 + the signal the kernel names the trap by, as a UNIX shell reports one: 139 for
 * a page fault or a general protection fault, the table in kernel/uapi/signal.h), then a summary
 * "fault: N tried, K killed, A alive". The kernel's own line for each child
 * ("pid P (fault) killed: ...") comes before it, so a test can pair the two by pid.
 *
 * The CPU's answer differs by kind: a page fault (14) for memory the user cannot reach, a
 * general protection fault (13) for a privileged instruction, a kernel selector or an `int`
 * through a gate of privilege 0, an invalid opcode (6) or a debug trap (1) for a few. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int forever = 1;   /* volatile: gcc cannot see that recursion never ends */
static volatile int sink;

static int recurse(volatile char *prev)
{
  volatile char frame[1024];
  frame[0] = prev ? prev[0] + 1 : 0;
  if (!forever)
    return 0;
  return recurse(frame) + frame[1];   /* not a tail call: every level keeps its frame */
}

/* intstubs + 4 * N: `int $N; ret`. The vector is part of the instruction, so 256 of them. */
extern char intstubs[];
__asm__(".text\n"
        ".balign 4\n"
        "intstubs:\n"
        ".set vec, 0\n"
        ".rept 256\n"
        ".balign 4\n"
        ".byte 0xcd, vec\n"          /* int $vec, spelt out: gas writes `int $3` as int3 */
        "ret\n"
        ".set vec, vec + 1\n"
        ".endr\n");

static void int_vector(int n)
{
  ((void (*)(void))(intstubs + 4 * n))();
}

static void k_null(void) { sink = *(volatile int *)0; }
static void k_write0(void) { *(volatile int *)0 = 1; }
static void k_kernel(void) { sink = *(volatile int *)0xC0100000; }
static void k_kwrite(void) { *(volatile int *)0xC0100000 = 1; }
static void k_kbase(void) { sink = *(volatile int *)0xC0000000; }
static void k_vga(void) { *(volatile short *)0xC00B8000 = 0x4f21; }
static void k_top(void) { sink = *(volatile int *)0xFFFFFFFC; }
static void k_straddle(void) { sink = *(volatile int *)0xBFFFFFFE; }
static void k_jump(void) { ((void (*)(void))0xC0100000)(); }
static void k_jumptop(void) { ((void (*)(void))0xFFFFFFF0)(); }
static void k_code(void) { *(volatile unsigned char *)(void *)k_code = 0x90; }
static void k_div0(void)
{
  /* Both operands volatile: gcc turns 1/x into a comparison, with no division at all. */
  volatile int one = 1, zero = 0;
  sink = one / zero;
}
static void k_stack(void) { sink = recurse(0); }
static void k_ud(void) { __asm__ volatile("ud2"); }
static void k_priv(void) { __asm__ volatile("cli"); }
static void k_sti(void) { __asm__ volatile("sti"); }
static void k_hlt(void) { __asm__ volatile("hlt"); }
static void k_port(void) { unsigned char v; __asm__ volatile("inb $0x60, %0" : "=a"(v)); sink = v; }
static void k_outport(void) { __asm__ volatile("outb %0, $0x80" : : "a"((unsigned char)0)); }
static void k_serial(void) { __asm__ volatile("outb %0, %1" : : "a"((unsigned char)'!'), "d"((unsigned short)0x3f8)); }
static void k_picmask(void) { __asm__ volatile("outb %0, $0x21" : : "a"((unsigned char)0xff)); }
static void k_outs(void)
{
  static char buf[4] = "xyz";
  __asm__ volatile("cld; rep outsb" : : "S"(buf), "c"(3), "d"((unsigned short)0x3f8) : "memory");
}
static void k_iopl(void)
{
  /* popf cannot raise the I/O privilege level from ring 3 (silently ignored): in still faults. */
  unsigned char v;
  __asm__ volatile("pushl $0x3202; popfl; inb $0x60, %0" : "=a"(v));
  sink = v;
}
static void k_cr0(void) { __asm__ volatile("movl %0, %%cr0" : : "r"(0x80000011u)); }
static void k_rcr3(void) { unsigned v; __asm__ volatile("movl %%cr3, %0" : "=r"(v)); sink = v; }
static void k_cr3(void) { __asm__ volatile("movl %0, %%cr3" : : "r"(0u)); }
static void k_cr4(void) { __asm__ volatile("movl %0, %%cr4" : : "r"(0u)); }
static void k_dr7(void) { __asm__ volatile("movl %0, %%dr7" : : "r"(0xffu)); }
static void k_lgdt(void)
{
  static struct { unsigned short limit; unsigned base; } __attribute__((packed)) d = { 0xffff, 0 };
  __asm__ volatile("lgdt %0" : : "m"(d));
}
static void k_lidt(void)
{
  static struct { unsigned short limit; unsigned base; } __attribute__((packed)) d = { 0, 0 };
  __asm__ volatile("lidt %0" : : "m"(d));
}
static void k_lldt(void) { __asm__ volatile("lldt %w0" : : "r"(0)); }
static void k_ltr(void) { __asm__ volatile("ltr %w0" : : "r"(0x28)); }
static void k_wrmsr(void) { __asm__ volatile("wrmsr" : : "c"(0x174u), "a"(8u), "d"(0u)); }
static void k_rdmsr(void) { unsigned lo, hi; __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(0x10u)); sink = lo; }
static void k_invlpg(void) { __asm__ volatile("invlpg (%0)" : : "r"(0xC0100000u) : "memory"); }
static void k_wbinvd(void) { __asm__ volatile("wbinvd"); }
static void k_clts(void) { __asm__ volatile("clts"); }
static void k_lmsw(void) { __asm__ volatile("lmsw %w0" : : "r"(0)); }
static void k_rdpmc(void) { unsigned lo, hi; __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(0u)); sink = lo; }
static void k_sysenter(void) { __asm__ volatile("sysenter"); }
static void k_ds(void) { __asm__ volatile("movw %w0, %%ds" : : "r"(0x10)); }
static void k_ss(void) { __asm__ volatile("movw %w0, %%ss" : : "r"(0x10)); }
static void k_es(void) { __asm__ volatile("movw %w0, %%es" : : "r"(0x13)); }
static void k_gs(void) { __asm__ volatile("movw %w0, %%gs" : : "r"(0x28)); }
static void k_ssnull(void) { __asm__ volatile("movw %w0, %%ss" : : "r"(0)); }
static void k_farjmp(void) { __asm__ volatile("ljmp $0x08, $0f; 0:"); }
static void k_farcall(void) { __asm__ volatile("lcall $0x08, $0f; 0:"); }
static void k_tss(void) { __asm__ volatile("lcall $0x28, $0"); }
static void k_gdtend(void) { __asm__ volatile("movw %w0, %%ds" : : "r"(0x33)); }
static void k_iret0(void)
{
  /* A frame for a return to ring 0 (the kernel's code selector): refused, CPL may not rise. */
  __asm__ volatile("pushfl; pushl $0x08; pushl $0f; iret; 0:");
}
static void k_lret0(void) { __asm__ volatile("pushl $0x08; pushl $0f; lret; 0:"); }
static void k_int3(void) { __asm__ volatile("int3"); }
static void k_into(void) { __asm__ volatile("movl $0x7fffffff, %%eax; addl $1, %%eax; into" : : : "eax", "cc"); }
static void k_icebp(void) { __asm__ volatile(".byte 0xf1"); }
static void k_bound(void)
{
  static int bounds[2] = { 10, 20 };
  __asm__ volatile("boundl %0, %1" : : "r"(5), "m"(bounds));
}
static void k_tf(void) { __asm__ volatile("pushfl; orl $0x100, (%%esp); popfl; nop; nop" : : : "cc"); }
/* With the trap flag set, the system call's gate clears it: the kernel is never single-stepped
 * (a debug trap in the kernel would be a panic); the next user instruction traps. */
static void k_tfsys(void)
{
  int r;
  __asm__ volatile("pushfl; orl $0x100, (%%esp); popfl; int $0x80; nop" : "=a"(r) : "a"(5) : "cc", "memory");
  sink = r;
}
/* A nested-task return: the kernel's TSS links nowhere, so the CPU refuses. */
static void k_ntiret(void)
{
  __asm__ volatile("pushfl; orl $0x4000, (%%esp); popfl; pushfl; pushl %%cs; pushl $0f; iret; 0:" : : : "cc", "memory");
}
/* Interrupts cannot be turned off from ring 3 by popf either (IF is silently kept): the
 * process survives, and interrupts stay on (exit 0 when IF reads back set, 3 when clear). */
static void k_popfif(void)
{
  unsigned fl;
  __asm__ volatile("pushfl; andl $~0x200, (%%esp); popfl; pushfl; popl %0" : "=r"(fl) : : "cc");
  exit((fl & 0x200) ? 0 : 3);
}
/* A floating-point error the program unmasked: the #MF exception (CR0.NE) in that process. */
static void k_fpe(void)
{
  unsigned short cw = 0x037b;       /* the default 0x037f with divide-by-zero unmasked */
  __asm__ volatile("fninit; fldcw %0; fld1; fldz; fdivrp; fwait" : : "m"(cw));
}
static void k_int20(void) { int_vector(0x20); }
static void k_int0e(void) { int_vector(0x0e); }

#define PF 14
#define GP 13
#define ANY -1      /* killed, whichever trap (the CPU model decides: #UD or #GP) */
#define LIVES -2    /* must survive and exit 0 */

static const struct kind {
  const char *name;
  void (*fn)(void);
  int vec;          /* the trap that must kill it */
} kinds[] = {
  { "null", k_null, PF }, { "write0", k_write0, PF }, { "kernel", k_kernel, PF },
  { "kwrite", k_kwrite, PF }, { "kbase", k_kbase, PF }, { "vga", k_vga, PF }, { "top", k_top, PF },
  { "straddle", k_straddle, PF }, { "jump", k_jump, PF }, { "jumptop", k_jumptop, PF },
  { "code", k_code, PF }, { "div0", k_div0, 0 }, { "stack", k_stack, PF }, { "ud", k_ud, 6 },
  { "priv", k_priv, GP }, { "sti", k_sti, GP }, { "hlt", k_hlt, GP }, { "port", k_port, GP },
  { "outport", k_outport, GP }, { "serial", k_serial, GP }, { "picmask", k_picmask, GP },
  { "outs", k_outs, GP }, { "iopl", k_iopl, GP }, { "cr0", k_cr0, GP }, { "rcr3", k_rcr3, GP },
  { "cr3", k_cr3, GP }, { "cr4", k_cr4, GP }, { "dr7", k_dr7, GP }, { "lgdt", k_lgdt, GP },
  { "lidt", k_lidt, GP }, { "lldt", k_lldt, GP }, { "ltr", k_ltr, GP }, { "wrmsr", k_wrmsr, GP },
  { "rdmsr", k_rdmsr, GP }, { "invlpg", k_invlpg, GP }, { "wbinvd", k_wbinvd, GP },
  { "clts", k_clts, GP }, { "lmsw", k_lmsw, GP }, { "rdpmc", k_rdpmc, ANY },
  { "sysenter", k_sysenter, ANY }, { "ds", k_ds, GP }, { "ss", k_ss, GP }, { "es", k_es, GP },
  { "gs", k_gs, GP }, { "ssnull", k_ssnull, GP }, { "farjmp", k_farjmp, GP },
  { "farcall", k_farcall, GP }, { "tss", k_tss, GP }, { "gdtend", k_gdtend, GP },
  { "iret0", k_iret0, GP }, { "lret0", k_lret0, GP }, { "int3", k_int3, GP },
  { "into", k_into, GP }, { "icebp", k_icebp, ANY }, { "bound", k_bound, 5 }, { "tf", k_tf, 1 },
  { "tfsys", k_tfsys, 1 }, { "ntiret", k_ntiret, 10 }, { "popfif", k_popfif, LIVES },
  { "fpe", k_fpe, 16 }, { "int20", k_int20, GP }, { "int0e", k_int0e, GP },
};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

static int tried, killed, alive;

/* Runs fn(arg) in a child and reports how the child ended. */
static void in_child(const char *what, void (*fn)(unsigned), unsigned arg)
{
  fflush(stdout);
  int pid = fork();
  if (pid < 0) {
    printf("fault: %s: fork failed\n", what);
    exit(1);
  }
  if (pid == 0) {
    fn(arg);
    exit(2);
  }
  int status = -1;
  if (wait(&status) != pid) {
    printf("fault: %s: wait failed\n", what);
    exit(1);
  }
  tried++;
  if (status >= 128)
    killed++;
  else
    alive++;
  printf("fault: %s pid %d status %d\n", what, pid, status);
}

static void run_kind(unsigned i) { kinds[i].fn(); }
static void run_vector(unsigned n) { int_vector((int)n); }
static void run_read(unsigned a) { sink = *(volatile int *)a; }
static void run_write(unsigned a) { *(volatile int *)a = 0x5a5a5a5a; }

/* The x87 registers are the process's own: a child inherits them at fork, and what it does
 * to its copy (or what any other process does) never shows in the parent's. Prints
 * "fault: fpu: parent ok, child ok" when so. */
static int fpu_private(void)
{
  unsigned v[2], w[2];
  const unsigned pi_lo = 0x54442D18, pi_hi = 0x400921FB;    /* pi as a double */
  __asm__ volatile("fninit; fldpi; fld1; fstp %%st(0)" : : : "memory");
  fflush(stdout);
  int pid = fork();
  if (pid < 0) {
    printf("fault: fpu: fork failed\n");
    return 1;
  }
  if (pid == 0) {
    __asm__ volatile("fstl %0" : "=m"(w));
    int inherited = w[0] == pi_lo && w[1] == pi_hi;
    __asm__ volatile("fninit; fld1; fld1; fld1; fld1; fldz" : : : "memory");
    for (volatile int i = 0; i < 2000000; i++)
      ;                     /* spans a few time slices: the parent runs meanwhile */
    exit(inherited ? 0 : 3);
  }
  for (volatile int i = 0; i < 2000000; i++)
    ;
  int status = -1;
  wait(&status);
  __asm__ volatile("fstpl %0" : "=m"(v) : : "memory");
  int ok = v[0] == pi_lo && v[1] == pi_hi;
  printf("fault: fpu: parent %s (0x%08x%08x), child %s (status %d)\n", ok ? "ok" : "BAD", v[1], v[0],
         status == 0 ? "ok" : "BAD", status);
  return ok && status == 0 ? 0 : 1;
}

static void summary(void)
{
  printf("fault: %d tried, %d killed, %d alive\n", tried, killed, alive);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: fault KIND | fault -l | fault -a | fault -m | fault -v\n");
    return 1;
  }
  const char *k = argv[1];
  char what[48];
  if (strcmp(k, "-l") == 0) {
    for (int i = 0; i < NKINDS; i++)
      printf("%s %d\n", kinds[i].name, kinds[i].vec);
    return 0;
  }
  if (strcmp(k, "-f") == 0)
    return fpu_private();
  if (strcmp(k, "-a") == 0) {
    for (int i = 0; i < NKINDS; i++)
      in_child(kinds[i].name, run_kind, (unsigned)i);
    summary();
    return 0;
  }
  if (strcmp(k, "-v") == 0) {
    for (unsigned n = 0; n < 256; n++) {
      if (n == 0x80)
        continue;
      snprintf(what, sizeof what, "int 0x%02x", n);
      in_child(what, run_vector, n);
    }
    summary();
    return 0;
  }
  if (strcmp(k, "-m") == 0) {
    static const unsigned extra[] = { 0xFFFFFFFCu, 0xBFFFFFFEu, 0xC00B8000u, 0xC0100000u };
    unsigned addrs[80];
    int n = 0;
    for (unsigned a = 0xC0000000u; a >= 0xC0000000u && n < 64; a += 0x01000000u)
      addrs[n++] = a;
    for (unsigned i = 0; i < sizeof extra / sizeof extra[0]; i++)
      addrs[n++] = extra[i];
    for (int i = 0; i < n; i++) {
      snprintf(what, sizeof what, "read 0x%08x", addrs[i]);
      in_child(what, run_read, addrs[i]);
      snprintf(what, sizeof what, "write 0x%08x", addrs[i]);
      in_child(what, run_write, addrs[i]);
    }
    summary();
    return 0;
  }
  for (int i = 0; i < NKINDS; i++) {
    if (strcmp(k, kinds[i].name) == 0) {
      printf("fault: %s\n", k);
      fflush(stdout);
      kinds[i].fn();
      printf("fault: %s: still alive (%d)\n", k, sink);
      return 2;
    }
  }
  fprintf(stderr, "fault: unknown kind %s (fault -l lists them)\n", k);
  return 1;
}
