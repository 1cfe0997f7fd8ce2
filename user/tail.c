/* tail [-n N] [FILE...]: prints the last N lines (10) of each file, or of stdin (also named
 * "-"). With several files each is introduced by "==> FILE <==", as coreutils does.
 *
 * It reads its input to the end, never seeking, so it works on pipes as on files: it keeps
 * only the text from the start of the Nth line from the end of what it has read so far, in a
 * buffer that grows as those lines need (a last line without a newline counts as a line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include "eachfile.h"

static char chunk[8192];
static char *keep;          /* the text kept: keep[off..len) */
static int cap, off, len;
static long nls;            /* newlines in keep[off..len) */

/* Lines in keep[off..len): its newlines, and a last line without one. */
static long lines_kept(void)
{
  return nls + (len > off && keep[len - 1] != '\n');
}

static int append(const char *p, int n)
{
  if (off > 0 && off >= len / 2) {        /* the dropped front is at least half: move down */
    memmove(keep, keep + off, len - off);
    len -= off;
    off = 0;
  }
  if (len + n > cap) {
    int ncap = cap ? cap : 16384;
    while (len + n > ncap)
      ncap *= 2;
    char *k = realloc(keep, ncap);
    if (!k)
      return -1;
    keep = k;
    cap = ncap;
  }
  memcpy(keep + len, p, n);
  for (int i = 0; i < n; i++)
    nls += p[i] == '\n';
  len += n;
  return 0;
}

static int tail(int fd, const char *name, long n)
{
  off = len = 0;
  nls = 0;
  for (;;) {
    int got = read(fd, chunk, sizeof(chunk));
    if (got == 0)
      break;
    if (got < 0) {
      fprintf(stderr, "tail: %s: %s\n", name, strerror(errno));
      return -1;
    }
    if (append(chunk, got) < 0) {
      fprintf(stderr, "tail: %s: out of memory\n", name);
      return -1;
    }
    /* Drop whole lines from the front while more than n are kept. */
    while (lines_kept() > n) {
      char *nl = memchr(keep + off, '\n', len - off);
      if (!nl) {                  /* n == 0: the unfinished last line goes too */
        off = len;
        break;
      }
      off = nl + 1 - keep;
      nls--;
    }
  }
  if (write_all(1, keep + off, len - off) < 0) {
    fprintf(stderr, "tail: write error: %s\n", strerror(errno));
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  return each_file_n(argc, argv, "tail", tail);
}
