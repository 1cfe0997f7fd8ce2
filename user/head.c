/* head [-n N] [FILE...]: prints the first N lines (10) of each file, or of stdin (also named
 * "-"). With several files each is introduced by "==> FILE <==", as coreutils does. Reading
 * stops after the Nth line, so head ends a pipeline's writer early (it then gets EPIPE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

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
  long n = 10;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *v = 0;
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      v = argv[++i];
    else if (strncmp(argv[i], "-n", 2) == 0 && argv[i][2])
      v = argv[i] + 2;
    char *end;
    if (v)
      n = strtol(v, &end, 10);
    if (!v || *end || end == v || n < 0) {
      fprintf(stderr, "usage: head [-n N] [FILE...]\n");
      return 1;
    }
  }
  if (i == argc)
    return head(0, "stdin", n) < 0;
  int status = 0, many = argc - i > 1;
  for (int first = i; i < argc; i++) {
    int fd = strcmp(argv[i], "-") == 0 ? 0 : open(argv[i], O_RDONLY);
    if (fd < 0) {
      fprintf(stderr, "head: %s: %s\n", argv[i], strerror(errno));
      status = 1;
      continue;
    }
    if (many)
      printf(i > first ? "\n==> %s <==\n" : "==> %s <==\n", argv[i]);
    fflush(stdout);
    if (head(fd, argv[i], n) < 0)
      status = 1;
    if (fd != 0)
      close(fd);
  }
  return status;
}
