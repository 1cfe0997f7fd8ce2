/* The harness's few calls into the host C library that would clash with kernel headers
 * (struct stat, sleep): kept apart in this file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
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
