/* wc [-l] [-w] [-c] [FILE...]: counts lines, words and bytes, printed as GNU coreutils
 * does: right-aligned counts in a common width, then the name, and a total line for
 * several files. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <ctype.h>
#include <sys/stat.h>

static int show_lines, show_words, show_bytes;
static int width;
static char buf[8192];

struct counts {
  unsigned lines, words, bytes;
};

static int count(int fd, const char *name, struct counts *c)
{
  int inword = 0;
  c->lines = c->words = c->bytes = 0;
  for (;;) {
    int n = read(fd, buf, sizeof(buf));
    if (n == 0)
      return 0;
    if (n < 0) {
      fprintf(stderr, "wc: %s: %s\n", name, strerror(errno));
      return -1;
    }
    c->bytes += n;
    for (int i = 0; i < n; i++) {
      unsigned char ch = buf[i];
      if (ch == '\n')
        c->lines++;
      /* As coreutils in the C locale: white space ends a word, a printable character
       * starts one, anything else (control bytes, bytes >= 0x80) does neither. */
      if (isspace(ch)) {
        inword = 0;
      } else if (isprint(ch) && !inword) {
        inword = 1;
        c->words++;
      }
    }
  }
}

static void report(struct counts *c, const char *name)
{
  const char *sep = "";
  if (show_lines) {
    printf("%s%*u", sep, width, c->lines);
    sep = " ";
  }
  if (show_words) {
    printf("%s%*u", sep, width, c->words);
    sep = " ";
  }
  if (show_bytes)
    printf("%s%*u", sep, width, c->bytes);
  if (name)
    printf(" %s", name);
  printf("\n");
}

/* coreutils: the width of the sum of the regular files' sizes, at least 7 when any input is
 * not a regular file, and 1 when a single input gets a single count. */
static void compute_width(int nfiles, char **files)
{
  int nshown = show_lines + show_words + show_bytes;
  width = 1;
  if (nfiles <= 1 && nshown == 1)
    return;
  unsigned total = 0;
  int minimum = 1;
  for (int i = 0; i < (nfiles ? nfiles : 1); i++) {
    struct stat st;
    int r = nfiles ? stat(files[i], &st) : fstat(0, &st);
    if (r < 0) {
      if (!nfiles)
        minimum = 7;   /* a pipe, as on Linux */
      continue;
    }
    if (st.type == T_FILE)
      total += st.size;
    else
      minimum = 7;
  }
  for (; total >= 10; total /= 10)
    width++;
  if (width < minimum)
    width = minimum;
}

int main(int argc, char **argv)
{
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    for (char *o = argv[i] + 1; *o; o++) {
      if (*o == 'l')
        show_lines = 1;
      else if (*o == 'w')
        show_words = 1;
      else if (*o == 'c')
        show_bytes = 1;
      else {
        fprintf(stderr, "usage: wc [-lwc] [FILE...]\n");
        return 1;
      }
    }
  }
  if (!show_lines && !show_words && !show_bytes)
    show_lines = show_words = show_bytes = 1;

  int nfiles = argc - i, status = 0;
  compute_width(nfiles, argv + i);
  struct counts c, total = {0, 0, 0};
  if (nfiles == 0) {
    if (count(0, "stdin", &c) < 0)
      return 1;
    report(&c, 0);
    return 0;
  }
  for (; i < argc; i++) {
    int fd = open(argv[i], O_RDONLY);
    if (fd < 0) {
      fprintf(stderr, "wc: %s: %s\n", argv[i], strerror(errno));
      status = 1;
      continue;
    }
    if (count(fd, argv[i], &c) < 0) {
      status = 1;
    } else {
      report(&c, argv[i]);
      total.lines += c.lines;
      total.words += c.words;
      total.bytes += c.bytes;
    }
    close(fd);
  }
  if (nfiles > 1)
    report(&total, "total");
  return status;
}
