/* cksum [FILE...]: the POSIX checksum, as GNU coreutils prints it: "CRC SIZE NAME", or
 * "CRC SIZE" for stdin. CRC-32 with polynomial 0x04C11DB7, most significant bit first,
 * over the data and then the length in as few bytes as it needs, least significant byte
 * first; the result complemented. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

static unsigned table[256];
static unsigned char buf[8192];

static void make_table(void)
{
  for (unsigned i = 0; i < 256; i++) {
    unsigned c = i << 24;
    for (int k = 0; k < 8; k++)
      c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
    table[i] = c;
  }
}

static unsigned step(unsigned crc, unsigned char byte)
{
  return (crc << 8) ^ table[(crc >> 24) ^ byte];
}

static int sum(int fd, const char *name)
{
  unsigned crc = 0, len = 0;
  for (;;) {
    int n = read(fd, buf, sizeof(buf));
    if (n == 0)
      break;
    if (n < 0) {
      fprintf(stderr, "cksum: %s: %s\n", name ? name : "-", strerror(errno));
      return 1;
    }
    for (int i = 0; i < n; i++)
      crc = step(crc, buf[i]);
    len += n;
  }
  for (unsigned l = len; l; l >>= 8)
    crc = step(crc, l & 0xff);
  crc = ~crc;
  if (name)
    printf("%u %u %s\n", crc, len, name);
  else
    printf("%u %u\n", crc, len);
  return 0;
}

int main(int argc, char **argv)
{
  make_table();
  if (argc < 2)
    return sum(0, 0);
  int status = 0;
  for (int i = 1; i < argc; i++) {
    int fd = open(argv[i], O_RDONLY);
    if (fd < 0) {
      fprintf(stderr, "cksum: %s: %s\n", argv[i], strerror(errno));
      status = 1;
      continue;
    }
    status |= sum(fd, argv[i]);
    close(fd);
  }
  return status;
}
