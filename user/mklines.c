/* mklines FILE BYTES[K|M] [SEED]: writes lines of random lower-case words, about BYTES in all
 * (whole lines, the last one cut to fit), the input for sort. Deterministic: the same size and
 * seed give the same file, from xorshift32 as in mkdata. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

static unsigned state;

static unsigned next(void)
{
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

int main(int argc, char **argv)
{
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: mklines FILE BYTES[K|M] [SEED]\n");
    return 1;
  }
  char *end;
  unsigned long size = strtoul(argv[2], &end, 10);
  if (*end == 'K' || *end == 'k')
    size *= 1024, end++;
  else if (*end == 'M' || *end == 'm')
    size *= 1024 * 1024, end++;
  if (*end || end == argv[2]) {
    fprintf(stderr, "mklines: bad size '%s'\n", argv[2]);
    return 1;
  }
  state = argc == 4 ? strtoul(argv[3], 0, 10) : 1;
  if (state == 0)
    state = 1;
  int fd = strcmp(argv[1], "-") == 0 ? 1 : open(argv[1], O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0) {
    fprintf(stderr, "mklines: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  static char buf[4096];
  unsigned long done = 0;
  int len = 0;
  while (done < size) {
    char line[80];
    int n = 0, words = 1 + next() % 6;
    for (int w = 0; w < words; w++) {
      int letters = 1 + next() % 9;
      for (int i = 0; i < letters; i++)
        line[n++] = 'a' + next() % 26;
      line[n++] = w + 1 < words ? ' ' : '\n';
    }
    if (done + n > size)
      n = size - done;
    for (int i = 0; i < n; i++) {
      buf[len++] = line[i];
      if (len == sizeof buf) {
        if (write_all(fd, buf, len) < 0)
          goto fail;
        len = 0;
      }
    }
    done += n;
  }
  if (len > 0 && write_all(fd, buf, len) < 0)
    goto fail;
  return 0;
fail:
  fprintf(stderr, "mklines: write: %s\n", strerror(errno));
  return 1;
}
