/* forkbench: the cost of fork+exit+wait as a function of the parent's resident memory, after
 * the thesis's Table 7-1. For each size the parent grows its heap, writes every page, then
 * times ITER rounds of fork (the child exits at once) and wait, with the guest's time-stamp
 * counter. Under `qemu -icount shift=0` the TSC counts exactly one per guest instruction, so
 * the figures are guest nanoseconds and repeat exactly.
 *
 *   forkbench [-n ITER] [-b] KB...     -b: push the pages to backing store before each fork
 *
 * Prints one line per size: "fork KB mode ns_per_fork" and, first, the cost of copying one
 * 4 KB page with a word loop in this same run (user/lib/bench.c): "copy4k ns". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>
#include <bench.h>

static int pageout_self(void)
{
  char name[32], pid[16], out[64];
  snprintf(name, sizeof name, "vm.pageout");
  snprintf(pid, sizeof pid, "%d", getpid());
  return sysctl(name, pid, out, sizeof out);
}

int main(int argc, char **argv)
{
  int iter = 20;
  int backing = 0;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      iter = atoi(argv[++i]);
    else if (strcmp(argv[i], "-b") == 0)
      backing = 1;
    else {
      fprintf(stderr, "usage: forkbench [-n ITER] [-b] KB...\n");
      return 1;
    }
  }
  if (i == argc || iter <= 0) {
    fprintf(stderr, "usage: forkbench [-n ITER] [-b] KB...\n");
    return 1;
  }
  char mode[64];
  if (sysctl("vm.fork", 0, mode, sizeof mode) < 0)
    strcpy(mode, "copy");
  printf("copy4k %llu\n", bench_copy4k());

  char *heap = sbrk(0);
  unsigned have = 0;
  for (; i < argc; i++) {
    unsigned kb = atoi(argv[i]);
    unsigned want = kb * 1024;
    if (want > have) {
      if (sbrk(want - have) == (void *)-1) {
        fprintf(stderr, "forkbench: cannot grow to %u KB: %s\n", kb, strerror(errno));
        return 1;
      }
      have = want;
    }
    for (unsigned off = 0; off < want; off += 4096)
      heap[off] = (char)off;
    if (backing && pageout_self() < 0) {
      fprintf(stderr, "forkbench: vm.pageout: %s\n", strerror(errno));
      return 1;
    }
    unsigned long long total = 0;
    for (int r = 0; r < iter; r++) {
      if (backing)
        pageout_self();
      unsigned long long t0 = bench_ticks();
      int pid = fork();
      if (pid < 0) {
        fprintf(stderr, "forkbench: fork: %s\n", strerror(errno));
        return 1;
      }
      if (pid == 0)
        _exit(0);
      wait(0);
      total += bench_ticks() - t0;
    }
    printf("fork %u %s%s %llu\n", kb, mode, backing ? "/backing" : "/resident", total / iter);
  }
  return 0;
}
