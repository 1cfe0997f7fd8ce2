/* The harness's few calls into the host C library that would clash with kernel headers
 * (struct stat, sleep): kept apart in this file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "hostio.h"

int hostio_open(const char *path, uint64_t *size)
{
  int fd = open(path, O_RDWR);
  if (fd < 0) {
    printf("kfs: %s: %s\n", path, strerror(errno));
    return -1;
  }
  *size = (uint64_t)lseek(fd, 0, SEEK_END);
  return fd;
}

int hostio_pread(int fd, void *buf, uint32_t n, uint64_t off)
{
  return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

int hostio_pwrite(int fd, const void *buf, uint32_t n, uint64_t off)
{
  return pwrite(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* KFS_WRITTEN=FILE: every write to the disk is named in FILE, "offset bytes" a line, before it
 * is made (so a write cut short by a crash is named too). The crash checker keeps one image
 * per worker and rewrites, from one state to the next, only the blocks where the states
 * differ and the blocks the repair wrote: it learns the last from this file. */
static int written_fd = -1;

void hostio_log_writes(void)
{
  const char *path = getenv("KFS_WRITTEN");
  if (path && *path) {
    written_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (written_fd < 0) {
      printf("kfs: %s: %s\n", path, strerror(errno));
      exit(2);
    }
  }
}

void hostio_wrote(uint64_t off, uint32_t n)
{
  char line[48];
  if (written_fd < 0)
    return;
  int len = snprintf(line, sizeof line, "%llu %u\n", (unsigned long long)off, n);
  if (write(written_fd, line, len) != len) {
    printf("kfs: KFS_WRITTEN: %s\n", strerror(errno));
    exit(2);
  }
}

int hostio_map(uint32_t addr, uint32_t len)
{
  void *p = mmap((void *)addr, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != (void *)addr) {
    perror("kfs: mmap");
    return -1;
  }
  return 0;
}
