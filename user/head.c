/* head [-n N] [FILE...]: prints the first N lines (10) of each file, or of stdin (also named
 * "-"). With several files each is introduced by "==> FILE <==", as coreutils does. Reading
 * stops after the Nth line, so head ends a pipeline's writer early (it then gets EPIPE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include "eachfile.h"

static char buf[8192];

/* Copies the first n lines of fd to stdout; returns 0, or -1 after printing why. */
static int head(int fd, const char *name, long n)
{
  while (n > 0) {
    int len = read(fd, buf, sizeof(buf));
    if (len == 0)
      return 0;
    if (len < 0) {
      fprintf(stderr, "head: %s: %s\n", name, strerror(errno));
      return -1;
    }
    int upto = 0;
    while (upto < len && n > 0)
      if (buf[upto++] == '\n')
        n--;
    if (write_all(1, buf, upto) < 0) {
      fprintf(stderr, "head: write error: %s\n", strerror(errno));
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv)
{
  return each_file_n(argc, argv, "head", head);
}
