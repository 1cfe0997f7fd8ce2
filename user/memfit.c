/* memfit: how much memory a program can write and keep, found by trying, the same way on this
 * kernel and on Linux. The benchmarks that put the two side by side (tools/bench/bench_ifs.py,
 * bench_linux.py) print it for both and size their toucher by it.
 *
 * WHY BY TRYING. What a kernel says it has free after boot is not what a program gets, and the
 * two kernels say it differently: this one has free frames and cache blocks less a reserve the
 * kernel keeps; Linux's MemAvailable counts reclaimable slab and page cache it may not give up
 * in time, and busybox's text in use. The one figure both can be held to is a program's: grow a
 * heap a step at a time, write every new page, write every page already held again, and read
 * the machine's page-outs (here vm.pageouts of kstat; under Linux pswpout of /proc/vmstat). The
 * largest heap written with no page-out anywhere is what a program can hold. Every page is
 * written, so none can be dropped without a page-out (a page only read would be a zero fill
 * here and Linux's shared zero page there) and the cache gives up its blocks to it first.
 *
 *   memfit [-s KB] [-l MB]
 *
 * Steps of KB (64) up to MB (256) in all. Prints "memfit: N KB written and kept, a page-out at
 * M KB" (N the last size with none, M the first with one), or "memfit: N KB written and kept,
 * no page-out up to the limit", or that the heap could not grow ("the heap stopped at M KB").
 * Exit 0, or 1 on a bad argument or a kernel with neither counter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys.h>

#define PAGE 4096
#define CHECK 64          /* pages written between two reads of the page-outs */

/* The machine's page-outs so far: this kernel's counter, or Linux's swap-outs; -1 without either. */
static long pageouts(void)
{
  long n = kstat_get("vm.pageouts");
  if (n >= 0)
    return n;
  static char buf[8192];
  int fd = open("/proc/vmstat", O_RDONLY);
  if (fd < 0)
    return -1;
  int len = read_full(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (len <= 0)
    return -1;
  buf[len] = 0;
  for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : 0)
    if (strncmp(line, "pswpout ", 8) == 0)
      return strtol(line + 8, 0, 10);
  return -1;
}

static void usage(void)
{
  fprintf(stderr, "usage: memfit [-s KB] [-l MB]\n"
                  "grows a heap KB (64) at a time up to MB (256), writing all of it each step, and\n"
                  "prints the largest size the machine kept without a page-out\n");
  exit(1);
}

int main(int argc, char **argv)
{
  long step_kb = 64, limit_mb = 256;
  for (int i = 1; i < argc; i++) {
    char *end = 0;
    if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
      step_kb = strtol(argv[++i], &end, 10);
    else if (strcmp(argv[i], "-l") == 0 && i + 1 < argc)
      limit_mb = strtol(argv[++i], &end, 10);
    else
      usage();
    if (*end || step_kb < 4 || step_kb % 4 || limit_mb < 1 || limit_mb > 2048)
      usage();
  }
  long before = pageouts();
  if (before < 0) {
    fprintf(stderr, "memfit: this kernel counts no page-outs (no vm.pageouts, no /proc/vmstat)\n");
    return 1;
  }
  char *heap = sbrk(0);
  long kept = 0, pages = 0, step = step_kb / 4;
  while (kept + step_kb <= limit_mb * 1024) {
    if (sbrk(step * PAGE) == (void *)-1) {
      printf("memfit: %ld KB written and kept, the heap stopped at %ld KB\n", kept, kept + step_kb);
      return 0;
    }
    pages += step;
    /* Every page written again, the new ones first: a page the kernel took since the last
     * step shows as a page-out now. The counter is read every CHECK pages too, so that a step
     * past the fit stops at once instead of paging the whole heap out and in again. */
    int out = 0;
    for (long p = pages - 1; p >= 0 && !out; p--) {
      heap[p * PAGE] = (char)(p + 1);
      if (p % CHECK == 0)
        out = pageouts() != before;
    }
    if (out) {
      printf("memfit: %ld KB written and kept, a page-out at %ld KB\n", kept, kept + step_kb);
      return 0;
    }
    kept += step_kb;
  }
  printf("memfit: %ld KB written and kept, no page-out up to the limit\n", kept);
  return 0;
}
