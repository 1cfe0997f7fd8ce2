/* grep [-v] [-c] [-n] [-i] PATTERN [FILE...]: prints the lines of the files (or stdin, also
 * named "-") that match PATTERN.
 *
 * PATTERN is a fixed string with four special characters (Kernighan and Pike's matcher, as in
 * xv6): '.' matches any character, 'c*' any run (none too) of c or of '.', '^' at the start
 * ties the match to the start of the line and '$' at the end to its end. Every other character
 * (\ [ ] + ? ...) stands for itself, so "a+b" finds "a+b".
 *
 * -v prints the lines that do not match; -c prints only how many lines were selected; -n puts
 * "NUMBER:" before each line; -i ignores the case of letters. With more than one file each line
 * (or count) starts with "FILE:". A line longer than 8 KB is matched in 8 KB pieces.
 * Exit status: 0 if a line was selected, 1 if none was, 2 on an error (as POSIX grep). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <ctype.h>

static int invert, count_only, numbered, nocase;

static int same(int p, int c)
{
  return p == '.' || p == c || (nocase && tolower(p) == tolower(c));
}

static int matchhere(const char *re, const char *text);

/* c* at the start of re: any run of c, shortest first. */
static int matchstar(int c, const char *re, const char *text)
{
  do {
    if (matchhere(re, text))
      return 1;
  } while (*text && same(c, *text++));
  return 0;
}

static int matchhere(const char *re, const char *text)
{
  if (re[0] == 0)
    return 1;
  if (re[1] == '*')
    return matchstar(re[0], re + 2, text);
  if (re[0] == '$' && re[1] == 0)
    return *text == 0;
  if (*text && same(re[0], *text))
    return matchhere(re + 1, text + 1);
  return 0;
}

static int match(const char *re, const char *text)
{
  if (re[0] == '^')
    return matchhere(re + 1, text);
  do {
    if (matchhere(re, text))
      return 1;
  } while (*text++);
  return 0;
}

/* Lines from a descriptor: each with its '\n' replaced by a NUL. */
struct reader {
  int fd, start, end, eof;
  char buf[8192 + 1];
};

/* The next line into *line: its length, -1 at the end of the input, -2 on an error. */
static int next_line(struct reader *r, char **line)
{
  for (;;) {
    char *s = r->buf + r->start;
    char *nl = memchr(s, '\n', r->end - r->start);
    int full = r->start == 0 && r->end == (int)sizeof(r->buf) - 1;
    if (nl || full || r->eof) {
      if (!nl && r->start == r->end)
        return -1;
      int len = nl ? nl - s : r->end - r->start;
      s[len] = 0;
      r->start += len + (nl != 0);
      *line = s;
      return len;
    }
    memmove(r->buf, s, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
    if (r->end == (int)sizeof(r->buf) - 1)
      continue;
    int n = read(r->fd, r->buf + r->end, sizeof(r->buf) - 1 - r->end);
    if (n < 0)
      return -2;
    if (n == 0)
      r->eof = 1;
    r->end += n;
  }
}

static struct reader rd;

/* Searches one file; returns the lines selected, or -1 after an error. */
static int grep(const char *re, int fd, const char *name, int many)
{
  memset(&rd, 0, sizeof(rd));
  rd.fd = fd;
  int selected = 0, len;
  unsigned lineno = 0;
  char *line;
  while ((len = next_line(&rd, &line)) >= 0) {
    lineno++;
    if (match(re, line) == invert)
      continue;
    selected++;
    if (count_only)
      continue;
    if (many)
      printf("%s:", name);
    if (numbered)
      printf("%u:", lineno);
    printf("%s\n", line);
  }
  if (len == -2) {
    fprintf(stderr, "grep: %s: %s\n", name, strerror(errno));
    return -1;
  }
  if (count_only) {
    if (many)
      printf("%s:", name);
    printf("%d\n", selected);
  }
  return selected;
}

int main(int argc, char **argv)
{
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    }
    for (char *o = argv[i] + 1; *o; o++) {
      if (*o == 'v')
        invert = 1;
      else if (*o == 'c')
        count_only = 1;
      else if (*o == 'n')
        numbered = 1;
      else if (*o == 'i')
        nocase = 1;
      else {
        fprintf(stderr, "usage: grep [-v] [-c] [-n] [-i] PATTERN [FILE...]\n"
                        "PATTERN: a fixed string where . * ^ $ are special (any char, any run, line start, line end)\n");
        return 2;
      }
    }
  }
  if (i == argc) {
    fprintf(stderr, "usage: grep [-v] [-c] [-n] [-i] PATTERN [FILE...]\n");
    return 2;
  }
  const char *re = argv[i++];
  if (i == argc)
    return grep(re, 0, "(standard input)", 0) > 0 ? 0 : 1;
  int many = argc - i > 1, found = 0, failed = 0;
  for (; i < argc; i++) {
    int fd = strcmp(argv[i], "-") == 0 ? 0 : open(argv[i], O_RDONLY);
    if (fd < 0) {
      fprintf(stderr, "grep: %s: %s\n", argv[i], strerror(errno));
      failed = 1;
      continue;
    }
    int n = grep(re, fd, argv[i], many);
    if (n < 0)
      failed = 1;
    else if (n > 0)
      found = 1;
    if (fd != 0)
      close(fd);
  }
  return failed ? 2 : found ? 0 : 1;
}
