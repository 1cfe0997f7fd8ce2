/* incore [-r BLOCKS] PATH...: which 4 KB blocks of each file the file cache holds (like
 * Linux's fincore), one line a file:
 *
 *   /f: 3 of 10 blocks cached: 0 2-3 (dirty: 2)
 *
 * "dirty": changed in the cache and not yet written back. Asking changes nothing: the kernel
 * looks the blocks up without touching the cache's LRU order (SYS_incore).
 *
 * -r BLOCKS (comma-separated block numbers, e.g. -r 0,1,2,0,3): first reads those blocks of
 * the first PATH, one 4 KB read each, in that order. The cache's replacement order then shows
 * in what stays, all within one program: starting another would itself bring blocks in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys.h>
#include "uapi/syscall.h"

#define MAXPATHS 8
#define MAXBLOCKS 4096      /* blocks shown of a file: 16 MB, the most the cache can hold */

static unsigned char vec[MAXBLOCKS];
static char buf[4096];

/* Prints the blocks i with (vec[i] & bit) as ranges "0 2-3"; returns how many. */
static int ranges(unsigned n, int bit, int print)
{
  int count = 0;
  for (unsigned i = 0; i < n; i++) {
    if (!(vec[i] & bit))
      continue;
    unsigned j = i;
    while (j + 1 < n && (vec[j + 1] & bit))
      j++;
    if (print)
      printf(j > i ? " %u-%u" : " %u", i, j);
    count += j - i + 1;
    i = j;
  }
  return count;
}

static int usage(void)
{
  fprintf(stderr, "usage: incore [-r BLOCK,BLOCK,...] PATH...\n"
                  "  prints which 4 KB blocks of each file the file cache holds (dirty: not yet\n"
                  "  written back); -r first reads those blocks of the first PATH, in that order\n");
  return 1;
}

int main(int argc, char **argv)
{
  const char *reads = 0;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "-r") == 0) {
    reads = argv[i + 1];
    i += 2;
  }
  if (i >= argc || argc - i > MAXPATHS || (argv[i][0] == '-' && argv[i][1]))
    return usage();
  /* Every file is opened before the reads: a lookup brings directory blocks in. */
  int fds[MAXPATHS];
  for (int k = i; k < argc; k++)
    if ((fds[k - i] = open(argv[k], O_RDONLY)) < 0) {
      fprintf(stderr, "incore: %s: %s\n", argv[k], strerror(errno));
      return 1;
    }
  for (const char *p = reads; p && *p;) {
    char *end;
    unsigned long b = strtoul(p, &end, 10);
    if (end == p || (*end && *end != ',')) {
      fprintf(stderr, "incore: -r %s: not a list of block numbers\n", reads);
      return 1;
    }
    if (lseek(fds[0], b * sizeof buf, SEEK_SET) < 0 || read(fds[0], buf, sizeof buf) < 0) {
      fprintf(stderr, "incore: %s: block %lu: %s\n", argv[i], b, strerror(errno));
      return 1;
    }
    p = *end ? end + 1 : end;
  }
  for (int k = i; k < argc; k++) {
    int n = incore(fds[k - i], vec, MAXBLOCKS);
    if (n < 0) {
      fprintf(stderr, "incore: %s: %s\n", argv[k], strerror(errno));
      return 1;
    }
    unsigned shown = n < MAXBLOCKS ? n : MAXBLOCKS;
    printf("%s: %d of %d blocks cached:", argv[k], ranges(shown, INCORE_CACHED, 0), n);
    if (ranges(shown, INCORE_CACHED, 1) == 0)
      printf(" none");
    if (ranges(shown, INCORE_DIRTY, 0) > 0) {
      printf(" (dirty:");
      ranges(shown, INCORE_DIRTY, 1);
      printf(")");
    }
    printf("\n");
  }
  return 0;
}
