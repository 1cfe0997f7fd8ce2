/* sort: an external merge sort of text lines (byte order), like the UNIX sort of the IFS
 * benchmark (WRL 90/4): it reads as many lines as fit in its memory budget, sorts them and
 * writes a run to a temporary file; then merges the runs, at most MERGE_WAY at a time, through
 * more temporary files until one is left. So a 1 MB input makes many temporary files that
 * are written, read back and deleted: work for the file cache.
 *
 *   sort [-o OUTPUT] [-m KB] [-T TMPDIR] [FILE]     (defaults: stdout, 128 KB, /tmp, stdin) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

#define MERGE_WAY 8
#define MAXLINE 4096
#define IOBUF 4096

struct reader {          /* buffered line reader over a file descriptor */
  int fd;
  char buf[IOBUF];
  int pos, len;
  char line[MAXLINE + 1];
  int linelen;           /* -1 at end of file */
};

struct writer {
  int fd;
  char buf[IOBUF];
  int len;
};

static const char *tmpdir = "/tmp";
static int nruns;        /* temporary files made so far, for unique names */

static void die(const char *what, const char *name)
{
  fprintf(stderr, "sort: %s%s%s: %s\n", what, name ? " " : "", name ? name : "", strerror(errno));
  exit(2);
}

static void wflush(struct writer *w)
{
  if (w->len > 0 && write_all(w->fd, w->buf, w->len) < 0)
    die("write", 0);
  w->len = 0;
}

static void wput(struct writer *w, const char *s, int n)
{
  while (n > 0) {
    int m = IOBUF - w->len < n ? IOBUF - w->len : n;
    memcpy(w->buf + w->len, s, m);
    w->len += m, s += m, n -= m;
    if (w->len == IOBUF)
      wflush(w);
  }
}

/* Reads the next line (without its newline) into r->line; returns 0 at end of file. */
static int rnext(struct reader *r)
{
  r->linelen = 0;
  for (;;) {
    if (r->pos == r->len) {
      r->len = read(r->fd, r->buf, IOBUF);
      r->pos = 0;
      if (r->len < 0)
        die("read", 0);
      if (r->len == 0) {
        if (r->linelen > 0)
          break;           /* a last line without a newline */
        r->linelen = -1;
        return 0;
      }
    }
    char c = r->buf[r->pos++];
    if (c == '\n')
      break;
    if (r->linelen == MAXLINE) {
      fprintf(stderr, "sort: line longer than %d bytes\n", MAXLINE);
      exit(2);
    }
    r->line[r->linelen++] = c;
  }
  r->line[r->linelen] = 0;
  return 1;
}

static int cmpline(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *runname(int i)
{
  static char names[2][128];
  static int which;
  which ^= 1;
  snprintf(names[which], sizeof names[which], "%s/sort.%d.%d", tmpdir, getpid(), i);
  return names[which];
}

static int newrun(void)
{
  int id = nruns++;
  int fd = open(runname(id), O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0)
    die("create", runname(id));
  close(fd);
  return id;
}

/* Phase 1: sorted runs of at most budget bytes each. Returns the number of runs. */
static int make_runs(int in, unsigned budget, int *ids)
{
  char *mem = malloc(budget);
  unsigned maxlines = budget / 16 + 1;
  char **lines = malloc(maxlines * sizeof *lines);
  if (!mem || !lines) {
    fprintf(stderr, "sort: out of memory for a %u-byte budget\n", budget);
    exit(2);
  }
  static struct reader r;
  r.fd = in;
  int n = 0;
  int more = rnext(&r);
  while (more) {
    unsigned used = 0, count = 0;
    while (more && used + r.linelen + 1 <= budget && count < maxlines) {
      lines[count++] = memcpy(mem + used, r.line, r.linelen + 1);
      used += r.linelen + 1;
      more = rnext(&r);
    }
    if (count == 0) {
      fprintf(stderr, "sort: a line does not fit in the %u-byte budget\n", budget);
      exit(2);
    }
    qsort(lines, count, sizeof *lines, cmpline);
    ids[n] = newrun();
    static struct writer w;
    w.fd = open(runname(ids[n]), O_WRONLY | O_TRUNC);
    if (w.fd < 0)
      die("open", runname(ids[n]));
    w.len = 0;
    for (unsigned i = 0; i < count; i++) {
      wput(&w, lines[i], strlen(lines[i]));
      wput(&w, "\n", 1);
    }
    wflush(&w);
    close(w.fd);
    n++;
    if (n == 4096) {
      fprintf(stderr, "sort: too many runs; give more memory with -m\n");
      exit(2);
    }
  }
  free(lines);
  free(mem);
  return n;
}

/* Merges runs ids[0..n) into out, deleting them. */
static void merge(int *ids, int n, int out)
{
  static struct reader rs[MERGE_WAY];
  static struct writer w;
  w.fd = out;
  w.len = 0;
  for (int i = 0; i < n; i++) {
    rs[i].fd = open(runname(ids[i]), O_RDONLY);
    if (rs[i].fd < 0)
      die("open", runname(ids[i]));
    rs[i].pos = rs[i].len = 0;
    rnext(&rs[i]);
  }
  for (;;) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (rs[i].linelen >= 0 && (best < 0 || strcmp(rs[i].line, rs[best].line) < 0))
        best = i;
    if (best < 0)
      break;
    wput(&w, rs[best].line, rs[best].linelen);
    wput(&w, "\n", 1);
    rnext(&rs[best]);
  }
  wflush(&w);
  for (int i = 0; i < n; i++) {
    close(rs[i].fd);
    unlink(runname(ids[i]));
  }
}

int main(int argc, char **argv)
{
  const char *output = 0, *input = 0;
  unsigned budget = 128 * 1024;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      output = argv[++i];
    else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
      budget = atoi(argv[++i]) * 1024;
    else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc)
      tmpdir = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "usage: sort [-o OUTPUT] [-m KB] [-T TMPDIR] [FILE]\n");
      return 2;
    } else if (!input)
      input = argv[i];
    else {
      fprintf(stderr, "sort: only one input file\n");
      return 2;
    }
  }
  if (budget < 4096 + 16) {
    fprintf(stderr, "sort: -m must be at least 5 KB\n");
    return 2;
  }
  int in = 0;
  if (input && strcmp(input, "-") != 0 && (in = open(input, O_RDONLY)) < 0)
    die("open", input);
  static int ids[4096];
  int n = make_runs(in, budget, ids);
  /* Merge passes: groups of MERGE_WAY runs become one, until at most MERGE_WAY are left. */
  while (n > MERGE_WAY) {
    int m = 0;
    for (int i = 0; i < n; i += MERGE_WAY) {
      int k = n - i < MERGE_WAY ? n - i : MERGE_WAY;
      int id = newrun();
      int fd = open(runname(id), O_WRONLY | O_TRUNC);
      if (fd < 0)
        die("open", runname(id));
      merge(ids + i, k, fd);
      close(fd);
      ids[m++] = id;
    }
    n = m;
  }
  int out = 1;
  if (output && (out = open(output, O_WRONLY | O_CREAT | O_TRUNC)) < 0)
    die("create", output);
  merge(ids, n, out);
  if (out != 1)
    close(out);
  return 0;
}
