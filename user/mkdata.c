/* mkdata [-s] [-c] FILE BYTES [SEED]: writes BYTES (suffix K or M for 1024s) deterministic
 * pseudo-random bytes to FILE ("-" for stdout). The same size and seed always give the same
 * content, so a test can compare cksum output with a value computed on the host:
 * the bytes are successive xorshift32 states (x ^= x<<13; x ^= x>>17; x ^= x<<5; starting
 * from SEED, default 1, 0 meaning 1), each stored little-endian, cut to BYTES. With -s the
 * file is fsync'ed before it is closed. With -c it prints on standard error, after the open,
 * after each 4 KB write and after the close, "mkdata: open|write K|close data D meta M
 * flushes F": the disk writes of data and of metadata blocks and the disk flushes counted
 * since just before the open. A test thus sees a write policy's pattern from inside one
 * program: starting a program changes /swap, which blurs counts taken around it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys.h>

static unsigned buf[1024];
static int counting;
static long base[3];
static const char *const counters[3] = { "fs.disk.writes.data", "fs.disk.writes.meta", "fs.disk.flushes" };

/* what: 0 takes the base, else it names the step ("open", "write 3", "close"). */
static void count(const char *what)
{
  long v[3];
  for (int i = 0; i < 3; i++)
    v[i] = kstat_get(counters[i]);
  if (!what) {
    for (int i = 0; i < 3; i++)
      base[i] = v[i];
    return;
  }
  fprintf(stderr, "mkdata: %s data %ld meta %ld flushes %ld\n", what, v[0] - base[0],
          v[1] - base[1], v[2] - base[2]);
}

static int parse_size(const char *s, unsigned *out)
{
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (end == s)
    return -1;
  if (*end == 'K' || *end == 'k')
    v *= 1024, end++;
  else if (*end == 'M' || *end == 'm')
    v *= 1024 * 1024, end++;
  if (*end)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv)
{
  unsigned size, seed = 1;
  int dosync = 0;
  for (; argc > 1 && argv[1][0] == '-' && argv[1][1]; argv++, argc--) {
    if (strcmp(argv[1], "-s") == 0)
      dosync = 1;
    else if (strcmp(argv[1], "-c") == 0)
      counting = 1;
    else
      break;
  }
  if (argc < 3 || argc > 4 || parse_size(argv[2], &size) < 0 ||
      (argc == 4 && parse_size(argv[3], &seed) < 0)) {
    fprintf(stderr, "usage: mkdata [-s] [-c] FILE BYTES[K|M] [SEED]\n");
    return 1;
  }
  if (seed == 0)
    seed = 1;
  if (counting)
    count(0);
  int fd = strcmp(argv[1], "-") == 0 ? 1 : open(argv[1], O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0) {
    fprintf(stderr, "mkdata: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  if (counting)
    count("open");
  unsigned x = seed, k = 0;
  while (size > 0) {
    for (int i = 0; i < 1024; i++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      buf[i] = x;   /* i386 is little-endian */
    }
    unsigned n = size < sizeof(buf) ? size : sizeof(buf);
    if (write_all(fd, buf, n) < 0) {
      fprintf(stderr, "mkdata: %s: %s\n", argv[1], strerror(errno));
      return 1;
    }
    size -= n;
    if (counting) {
      char what[24];
      snprintf(what, sizeof what, "write %u", ++k);
      count(what);
    }
  }
  if (dosync && fsync(fd) < 0) {
    fprintf(stderr, "mkdata: fsync %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  if (fd != 1 && close(fd) < 0) {
    fprintf(stderr, "mkdata: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  if (counting)
    count("close");
  return 0;
}
