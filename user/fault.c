/* fault KIND: does something a user program must not, so that tests can watch the kernel
 * kill it. KIND: null (read address 0), write0 (write address 0), kernel (read kernel memory
 * at 0xC0100000), kwrite (write it), jump (jump into the kernel), code (write to the
 * read-only code segment), div0 (divide by zero), stack (recurse until the stack overflows),
 * ud (an invalid instruction), priv (a privileged instruction: cli). If the process is still
 * alive afterwards, it says so and exits with status 2. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int forever = 1;   /* volatile: gcc cannot see that recursion never ends */

static int recurse(volatile char *prev)
{
  volatile char frame[1024];
  frame[0] = prev ? prev[0] + 1 : 0;
  if (!forever)
    return 0;
  return recurse(frame) + frame[1];   /* not a tail call: every level keeps its frame */
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: fault null|write0|kernel|kwrite|jump|code|div0|stack|ud|priv\n");
    return 1;
  }
  const char *k = argv[1];
  volatile int sink = 0;
  printf("fault: %s\n", k);
  fflush(stdout);
  if (strcmp(k, "null") == 0) {
    sink = *(volatile int *)0;
  } else if (strcmp(k, "write0") == 0) {
    *(volatile int *)0 = 1;
  } else if (strcmp(k, "kernel") == 0) {
    sink = *(volatile int *)0xC0100000;
  } else if (strcmp(k, "kwrite") == 0) {
    *(volatile int *)0xC0100000 = 1;
  } else if (strcmp(k, "jump") == 0) {
    ((void (*)(void))0xC0100000)();
  } else if (strcmp(k, "code") == 0) {
    *(volatile unsigned char *)(void *)main = 0x90;
  } else if (strcmp(k, "div0") == 0) {
    volatile int zero = 0, one = 1;
    sink = one / zero;            /* gcc turns 1 / x into compares: no idiv, no fault */
  } else if (strcmp(k, "stack") == 0) {
    sink = recurse(0);
  } else if (strcmp(k, "ud") == 0) {
    __asm__ volatile("ud2");
  } else if (strcmp(k, "priv") == 0) {
    __asm__ volatile("cli");
  } else {
    fprintf(stderr, "fault: unknown kind %s\n", k);
    return 1;
  }
  printf("fault: %s: still alive (%d)\n", k, sink);
  return 2;
}
