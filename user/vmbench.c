/* vmbench [PAGES]: the cost of the VM's faults, in TSC ticks (under QEMU -icount shift=0 one
 * tick is one guest instruction, 1 ns of guest time, exactly repeatable), beside the guest's
 * own copy and zeroing of a 4 KB page as the reference. Prints "name value" lines:
 *   copy        one 4 KB page copied by a 32-bit word loop (user/lib/bench.c, the reference
 *               of every benchmark)
 *   zero        one 4 KB page zeroed by a word loop
 *   zerofault   a first touch of a fresh heap page (trap, frame, zeroing, mapping, return)
 *   pagein      a touch of a page pushed to backing store (includes the disk read: under
 *               -icount the disk's own time is not exact)
 *   refault     a touch of a resident page (no fault: the loop's own cost) */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys.h>
#include <bench.h>

/* Touches one word in each page, timing each touch; returns the median. */
static unsigned long long touch_pages(volatile unsigned *mem, int pages, int write)
{
  static unsigned long long t[4096];
  for (int p = 0; p < pages; p++) {
    unsigned long long t0 = bench_ticks();
    if (write)
      mem[p * 1024] = p + 1;
    else
      (void)mem[p * 1024];
    t[p] = bench_ticks() - t0;
  }
  /* median by selection: good enough for a few hundred values */
  for (int i = 0; i <= pages / 2; i++)
    for (int j = i + 1; j < pages; j++)
      if (t[j] < t[i]) {
        unsigned long long x = t[i];
        t[i] = t[j];
        t[j] = x;
      }
  return t[pages / 2];
}

int main(int argc, char **argv)
{
  int pages = argc > 1 ? atoi(argv[1]) : 256;
  if (pages > 4096)
    pages = 4096;
  printf("copy %llu\n", bench_copy4k());
  printf("zero %llu\n", bench_zero4k());

  char *base = sbrk(0);
  int pad = (4096 - ((unsigned)base & 4095)) & 4095;
  volatile unsigned *mem = (unsigned *)(sbrk(pad + pages * 4096) + pad);
  printf("zerofault %llu\n", touch_pages(mem, pages, 1));
  printf("refault %llu\n", touch_pages(mem, pages, 1));
  char out[32], pid[16];
  snprintf(pid, sizeof pid, "%d", getpid());
  if (sysctl("vm.pageout", pid, out, sizeof out) < 0) {
    printf("vmbench: vm.pageout failed\n");
    return 1;
  }
  printf("pagein %llu\n", touch_pages(mem, pages, 0));
  for (int p = 0; p < pages; p++)
    if (mem[p * 1024] != (unsigned)p + 1) {
      printf("vmbench: page %d came back wrong\n", p);
      return 1;
    }
  return 0;
}
