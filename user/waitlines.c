/* waitlines FILE PREFIX +N [SECONDS]: waits until FILE holds N more lines beginning with PREFIX
 * than it did when waitlines started (N without +: until it holds N such lines), at most
 * SECONDS (600); prints "waitlines: COUNT lines" and exits 0, or 1 on timeout.
 *
 * Why a program: the Linux benchmark (tools/bench/bench_linux.py) waits after sort for the
 * toucher's round in progress to end, and that round is timed. The shell's way, `grep -c` every
 * second, forked and exec'd a process each time; this is one process for the whole wait, which
 * each second reads the file through once (a few KB: a line a round) and sleeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys.h>

static char buf[4096];

/* Lines of path beginning with prefix, or -1 when it cannot be opened (not there yet). */
static long count(const char *path, const char *prefix)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return -1;
  int plen = strlen(prefix), col = 0, n;
  long lines = 0;
  char head[64];              /* the start of the line being read, up to the prefix's length */
  while ((n = read(fd, buf, sizeof buf)) > 0)
    for (int i = 0; i < n; i++) {
      if (buf[i] == '\n') {
        col = 0;
        continue;
      }
      if (col < plen) {
        head[col] = buf[i];
        if (col == plen - 1 && memcmp(head, prefix, plen) == 0)
          lines++;
      }
      col++;
    }
  close(fd);
  return lines;
}

int main(int argc, char **argv)
{
  if (argc < 4 || strlen(argv[2]) == 0 || strlen(argv[2]) > 64) {
    fprintf(stderr, "usage: waitlines FILE PREFIX [+]N [SECONDS]\n");
    return 1;
  }
  long want = strtol(argv[3] + (argv[3][0] == '+'), 0, 10);
  if (argv[3][0] == '+') {
    long now = count(argv[1], argv[2]);
    want += now < 0 ? 0 : now;
  }
  unsigned limit = argc > 4 ? (unsigned)strtol(argv[4], 0, 10) * 1000 : 600000;
  unsigned t0 = uptime_ms();
  long have;
  while ((have = count(argv[1], argv[2])) < want) {
    if (uptime_ms() - t0 >= limit) {
      printf("waitlines: %ld lines after %u s, not %ld\n", have < 0 ? 0 : have, limit / 1000, want);
      return 1;
    }
    sleep_ms(1000);
  }
  printf("waitlines: %ld lines\n", have);
  return 0;
}
