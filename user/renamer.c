/* renamer TARGET ROUNDS [BYTES]: the safe way to replace a file, ROUNDS times: write the new
 * version to TARGET.tmp, then rename it over TARGET; prints "renamed N" after each. Version N
 * is BYTES (default 20000) of the line "version N\n" repeated, so a file made of two versions
 * shows. Used by the crash tests: QEMU is killed at a random round. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

static char buf[65536];

int main(int argc, char **argv)
{
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: renamer TARGET ROUNDS [BYTES]\n");
    return 1;
  }
  int rounds = atoi(argv[2]);
  unsigned bytes = argc > 3 ? (unsigned)atoi(argv[3]) : 20000;
  if (bytes > sizeof(buf))
    bytes = sizeof(buf);
  char tmp[128];
  snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
  for (int n = 0; n < rounds; n++) {
    char line[32];
    int len = snprintf(line, sizeof(line), "version %d\n", n);
    for (unsigned i = 0; i < bytes; i++)
      buf[i] = line[i % len];
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC);
    if (fd < 0 || write_all(fd, buf, bytes) < 0 || close(fd) < 0) {
      fprintf(stderr, "renamer: %s: %s\n", tmp, strerror(errno));
      return 1;
    }
    if (rename(tmp, argv[1]) < 0) {
      fprintf(stderr, "renamer: rename %s: %s\n", argv[1], strerror(errno));
      return 1;
    }
    printf("renamed %d\n", n);
  }
  return 0;
}
