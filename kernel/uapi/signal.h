/* The exit status of a process the kernel kills, as a UNIX shell reports one killed by a
 * signal: 128 + the signal's number (Linux's), so that `echo $?` after a crash reads as it
 * would on Linux: 139 for a segmentation fault, 130 for ^C. This kernel has no signals to
 * send or catch (a kill is final); the signal only names the cause. The kernel's one-line
 * message for a kill ends with the signal and the status (kernel/trap.c, kernel/proc.c).
 *
 *   cause                                                       signal        status
 *   ^C at the console (its foreground group)                    SIGINT    2   130
 *   invalid opcode (vector 6)                                   SIGILL    4   132
 *   debug trap (1: the trap flag), breakpoint (3: int3)         SIGTRAP   5   133
 *   segment not present (11), stack fault (12),
 *     alignment check (17), machine check (18)                  SIGBUS    7   135
 *   divide error (0), coprocessor overrun (9),
 *     x87 floating-point error (16), SIMD floating-point (19)   SIGFPE    8   136
 *   the kill program (SYS_kill), no backing store for a
 *     forked process (the VM daemon)                            SIGKILL   9   137
 *   page fault (14: a bad address, a stack that cannot grow,
 *     out of memory), general protection fault (13: a
 *     privileged instruction, `int N` but 0x80), overflow (4),
 *     bound range (5), invalid TSS (10), any other exception    SIGSEGV  11   139
 *
 * The mapping of exceptions is Linux's (arch/x86/kernel/traps.c); a program's own exit
 * status is 0-255 as it gave it (exit(139) is not a crash). */
#ifndef UAPI_SIGNAL_H
#define UAPI_SIGNAL_H

#define SIGINT    2
#define SIGILL    4
#define SIGTRAP   5
#define SIGBUS    7
#define SIGFPE    8
#define SIGKILL   9
#define SIGSEGV  11

#define SIG_STATUS(sig) (128 + (sig))      /* the exit status of a process killed for sig */
#endif
