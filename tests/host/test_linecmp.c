/* The host's half of sort's tests: user/lib/linecmp.c, compiled unchanged, sorting standard
 * input in memory, so that tests/host/test_linecmp.py can hold its order against the host's
 * `LC_ALL=C sort` on thousands of small inputs (the guest's external merge only rearranges
 * work: its order is this one).
 *
 *   test_linecmp [-n] [-r] [-k SPEC] < in > out
 *   test_linecmp --parse SPEC          prints "FIELD END" or "error: WHY"
 *
 * host-test: user/lib/linecmp.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linecmp.h"

struct line {
  const char *p;
  size_t len;
};

static struct sortkey key;

static int cmp(const void *a, const void *b)
{
  const struct line *x = a, *y = b;
  return line_compare(&key, x->p, x->len, y->p, y->len);
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    const char *why;
    if (strcmp(argv[i], "-n") == 0)
      key.numeric = 1;
    else if (strcmp(argv[i], "-r") == 0)
      key.reverse = 1;
    else if ((strcmp(argv[i], "-k") == 0 || strcmp(argv[i], "--parse") == 0) && i + 1 < argc) {
      int parse_only = argv[i][1] == '-';
      if (sortkey_parse(&key, argv[++i], &why) < 0) {
        printf("error: %s\n", why);
        return parse_only ? 0 : 2;
      }
      if (parse_only) {
        printf("%u %u\n", key.field, key.endfield);
        return 0;
      }
    } else {
      fprintf(stderr, "usage: test_linecmp [-n] [-r] [-k SPEC] | --parse SPEC\n");
      return 2;
    }
  }
  size_t cap = 1 << 16, len = 0, n;
  char *buf = malloc(cap);
  while ((n = fread(buf + len, 1, cap - len, stdin)) > 0)
    if ((len += n) == cap)
      buf = realloc(buf, cap *= 2);
  size_t nlines = 0, maxlines = 1024;
  struct line *lines = malloc(maxlines * sizeof *lines);
  for (size_t at = 0; at < len;) {
    const char *nl = memchr(buf + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - buf) : len;
    if (nlines == maxlines)
      lines = realloc(lines, (maxlines *= 2) * sizeof *lines);
    lines[nlines++] = (struct line){ buf + at, end - at };
    at = end + 1;
  }
  qsort(lines, nlines, sizeof *lines, cmp);
  for (size_t i = 0; i < nlines; i++) {
    fwrite(lines[i].p, 1, lines[i].len, stdout);
    putchar('\n');
  }
  return 0;
}
