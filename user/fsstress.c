/* fsstress DIR NFILES SEED: creates DIR and NFILES files in it, DIR/fI, each of
 * (SEED * 7919 + I * 1237) % 30000 bytes, byte k being (SEED + I + k * 7) % 251; rewrites and
 * deletes a few on the way, as a build would. Several at once (in a pipeline) make a
 * many-process workload whose result the host checks byte for byte (tests/qemu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys/stat.h>

static unsigned char buf[30000];

static int put(const char *path, unsigned size, unsigned salt)
{
  for (unsigned k = 0; k < size; k++)
    buf[k] = (unsigned char)((salt + k * 7) % 251);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0 || write_all(fd, buf, size) < 0 || close(fd) < 0) {
    fprintf(stderr, "fsstress: %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: fsstress DIR NFILES SEED\n");
    return 1;
  }
  const char *dir = argv[1];
  unsigned n = (unsigned)atoi(argv[2]), seed = (unsigned)atoi(argv[3]);
  if (mkdir(dir) < 0 && errno != EEXIST) {
    fprintf(stderr, "fsstress: mkdir %s: %s\n", dir, strerror(errno));
    return 1;
  }
  char path[128], tmp[128];
  for (unsigned i = 0; i < n; i++) {
    snprintf(path, sizeof(path), "%s/f%u", dir, i);
    snprintf(tmp, sizeof(tmp), "%s/t%u", dir, i);
    if (put(tmp, (i * 331) % 9000, 0) < 0)           /* a temporary: deleted */
      return 1;
    if (put(path, 100, 1) < 0)                       /* a first version: rewritten */
      return 1;
    if (put(path, (seed * 7919 + i * 1237) % 30000, seed + i) < 0)
      return 1;
    if (unlink(tmp) < 0) {
      fprintf(stderr, "fsstress: unlink %s: %s\n", tmp, strerror(errno));
      return 1;
    }
  }
  printf("fsstress %s done\n", dir);
  return 0;
}
