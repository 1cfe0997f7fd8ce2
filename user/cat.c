/* cat [FILE...]: copies the files (or stdin, also named "-") to stdout; stops quietly (status
 * 1) when what it writes to is a pipe nobody reads any more. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

static char buf[8192];

/* Returns 0, or -1 after printing what went wrong. */
static int copy(int fd, const char *name)
{
  for (;;) {
    int n = read(fd, buf, sizeof(buf));
    if (n == 0)
      return 0;
    if (n < 0) {
      fprintf(stderr, "cat: %s: %s\n", name, strerror(errno));
      return -1;
    }
    if (write_all(1, buf, n) < 0) {
      /* EPIPE: the reader has had enough (cat big | head): no error to tell, as a UNIX
       * cat ends silently by SIGPIPE there. */
      if (errno != EPIPE)
        fprintf(stderr, "cat: write error: %s\n", strerror(errno));
      return -1;
    }
  }
}

int main(int argc, char **argv)
{
  int status = 0;
  if (argc < 2)
    return copy(0, "stdin") < 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-") == 0) {
      if (copy(0, "stdin") < 0)
        status = 1;
      continue;
    }
    int fd = open(argv[i], O_RDONLY);
    if (fd < 0) {
      fprintf(stderr, "cat: %s: %s\n", argv[i], strerror(errno));
      status = 1;
      continue;
    }
    if (copy(fd, argv[i]) < 0)
      status = 1;
    close(fd);
  }
  return status;
}
