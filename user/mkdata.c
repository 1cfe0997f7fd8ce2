/* mkdata [-s] FILE BYTES [SEED]: writes BYTES (suffix K or M for 1024s) deterministic
 * pseudo-random bytes to FILE ("-" for stdout). The same size and seed always give the same
 * content, so a test can compare cksum output with a value computed on the host:
 * the bytes are successive xorshift32 states (x ^= x<<13; x ^= x>>17; x ^= x<<5; starting
 * from SEED, default 1, 0 meaning 1), each stored little-endian, cut to BYTES. With -s the
 * file is fsync'ed before it is closed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

static unsigned buf[1024];

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
  int dosync = argc > 1 && strcmp(argv[1], "-s") == 0;
  if (dosync) {
    argv++;
    argc--;
  }
  if (argc < 3 || argc > 4 || parse_size(argv[2], &size) < 0 ||
      (argc == 4 && parse_size(argv[3], &seed) < 0)) {
    fprintf(stderr, "usage: mkdata [-s] FILE BYTES[K|M] [SEED]\n");
    return 1;
  }
  if (seed == 0)
    seed = 1;
  int fd = strcmp(argv[1], "-") == 0 ? 1 : open(argv[1], O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0) {
    fprintf(stderr, "mkdata: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  unsigned x = seed;
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
  }
  if (dosync && fsync(fd) < 0) {
    fprintf(stderr, "mkdata: fsync %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  if (fd != 1 && close(fd) < 0) {
    fprintf(stderr, "mkdata: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  return 0;
}
