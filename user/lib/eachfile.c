/* each_file_n: the command line of head and tail (user/include/eachfile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include "eachfile.h"

int each_file_n(int argc, char **argv, const char *prog, int (*fn)(int fd, const char *name, long n))
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
      fprintf(stderr, "usage: %s [-n N] [FILE...]\n", prog);
      return 1;
    }
  }
  if (i == argc)
    return fn(0, "stdin", n) < 0;
  int status = 0, many = argc - i > 1;
  for (int first = i; i < argc; i++) {
    int fd = strcmp(argv[i], "-") == 0 ? 0 : open(argv[i], O_RDONLY);
    if (fd < 0) {
      fprintf(stderr, "%s: %s: %s\n", prog, argv[i], strerror(errno));
      status = 1;
      continue;
    }
    if (many)
      printf(i > first ? "\n==> %s <==\n" : "==> %s <==\n", argv[i]);
    fflush(stdout);
    if (fn(fd, argv[i], n) < 0)
      status = 1;
    if (fd != 0)
      close(fd);
  }
  return status;
}
