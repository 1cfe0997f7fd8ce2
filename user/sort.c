/* sort: an external merge sort of text lines, like the UNIX sort of the IFS benchmark (WRL
 * 90/4), in the order `LC_ALL=C sort` gives (user/lib/linecmp.c: bytes, -n, -r, -k).
 *
 * Phase 1, runs: read lines into a memory budget of -m KB (default 128) until the next line
 * would not fit, sort them there (a merge sort of pointers: n log n whatever the input, and
 * duplicates cost nothing extra) and write them to a temporary file, a run; repeat to the end
 * of the input. The budget holds the lines' bytes, a 16-byte reference to each (where it is,
 * its length, where its key is) and half as many references of scratch for the merge sort,
 * nothing else: the input may be any number of times larger than it, or than the machine's
 * memory.
 *
 * Phase 2, merge passes: while more than MERGE_WAY runs are left, merge them MERGE_WAY at a
 * time into new runs, deleting each group as it is merged; then merge the last MERGE_WAY or
 * fewer into the output. A pass merges only as many groups as the passes after it need (see
 * main), so every line is read and written at most 1 + ceil(log8(runs)) times: a 1 MB input
 * makes dozens of temporary files that are written, read back and deleted, which is the file
 * cache's work in the benchmark. The merge itself is a tournament (merge, below).
 *
 * Lines are bytes up to a newline (NULs included); a last line without one gets one. A line
 * longer than MAXLINE bytes is an error: sort stops, saying so. On any error (an unreadable
 * input, a full disk, a failed write) sort prints one line, removes its temporary files and
 * exits with status 2; the output file, if begun, is left as far as it got.
 *
 *   sort [-nrv] [-k FIELD[,END]] [-o OUTPUT] [-m KB] [-T TMPDIR] [FILE...]   (sort -h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include <linecmp.h>

#define MERGE_WAY 8              /* a power of two: the leaves of the merge tournament */
#define MAXLINE 4096             /* bytes in a line, its newline not counted */
#define IOBUF 4096
#define MIN_KB 5                 /* a budget holds at least one longest line */
#define MAX_KB (256 * 1024)

#define NAMELEN 160

struct reader {                  /* buffered line reader over a file descriptor */
  int fd;
  char name[NAMELEN];            /* for messages */
  char buf[IOBUF];
  int pos, len;
  char line[MAXLINE];
  int linelen;                   /* -1 at end of file */
  struct sortline cur;           /* the line read, with its key */
};

struct writer {
  int fd;
  char name[NAMELEN];
  char buf[IOBUF];
  int len;
};

static struct sortkey key;
static const char *tmpdir = "/tmp";
static unsigned long long nlines;     /* for -v */

/* Temporary files: run i is TMPDIR/sort.PID.i; live[i] while it exists, so that an error
 * anywhere can remove every one. */
static unsigned char *live;
static int nruns, maxruns;

/* The name of run i, valid until the next call. */
static const char *runname(int i)
{
  static char name[NAMELEN];
  snprintf(name, sizeof name, "%s/sort.%d.%d", tmpdir, getpid(), i);
  return name;
}

static void remove_temporaries(void)
{
  for (int i = 0; i < nruns; i++)
    if (live[i]) {
      unlink(runname(i));
      live[i] = 0;
    }
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "sort: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  remove_temporaries();
  exit(2);
}

/* "sort: WHAT NAME: strerror(errno)" */
static void die(const char *what, const char *name) __attribute__((noreturn));
static void die(const char *what, const char *name)
{
  fail("%s %s: %s", what, name ? name : "", strerror(errno));
}

/* Creates the next temporary file as w's; returns its number. */
static int newrun(struct writer *w)
{
  if (nruns == maxruns) {
    maxruns = maxruns ? 2 * maxruns : 64;
    if (!(live = realloc(live, maxruns)))
      fail("out of memory for the temporary files' names");
  }
  int id = nruns++;
  live[id] = 1;      /* before it exists: an error while creating it still tries to remove it */
  if ((w->fd = open(runname(id), O_WRONLY | O_CREAT | O_TRUNC)) < 0)
    die("create", runname(id));
  strlcpy(w->name, runname(id), sizeof w->name);
  w->len = 0;
  return id;
}

static void droprun(int id)
{
  if (unlink(runname(id)) < 0)
    die("remove", runname(id));
  live[id] = 0;
}

static void wflush(struct writer *w)
{
  if (w->len > 0 && write_all(w->fd, w->buf, w->len) < 0)
    die("write", w->name);
  w->len = 0;
}

static void wput(struct writer *w, const char *s, unsigned n)
{
  while (n > 0) {
    unsigned room = IOBUF - w->len, m = room < n ? room : n;
    memcpy(w->buf + w->len, s, m);
    w->len += m, s += m, n -= m;
    if (w->len == IOBUF)
      wflush(w);
  }
}

/* Flushes and closes; a delayed write that failed is reported by close. */
static void wclose(struct writer *w)
{
  wflush(w);
  if (close(w->fd) < 0)
    die("write", w->name);
}

static void ropen(struct reader *r, int fd, const char *name)
{
  r->fd = fd;
  strlcpy(r->name, name, sizeof r->name);
  r->pos = r->len = 0;
  r->linelen = 0;
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
        die("read", r->name);
      if (r->len == 0) {
        if (r->linelen > 0)
          break;           /* a last line without a newline */
        r->linelen = -1;
        return 0;
      }
    }
    /* Copy up to the newline in one go: this loop is where sort spends its time. */
    char *start = r->buf + r->pos;
    char *nl = memchr(start, '\n', r->len - r->pos);
    int n = (nl ? nl : r->buf + r->len) - start;
    if (r->linelen + n > MAXLINE)
      fail("%s: a line longer than %d bytes, sort's limit", r->name, MAXLINE);
    memcpy(r->line + r->linelen, start, n);
    r->linelen += n;
    r->pos += n;
    if (nl) {
      r->pos++;
      break;
    }
  }
  r->cur = (struct sortline){ r->line, r->linelen, 0, 0 };
  sortline_key(&key, &r->cur);
  return 1;
}

/* Sorts a[0..n), using tmp[0..n/2) as scratch. */
static void msort(struct sortline *a, struct sortline *tmp, unsigned n)
{
  if (n <= 8) {
    for (unsigned i = 1; i < n; i++) {
      struct sortline x = a[i];
      unsigned j = i;
      for (; j > 0 && sortline_compare(&key, &a[j - 1], &x) > 0; j--)
        a[j] = a[j - 1];
      a[j] = x;
    }
    return;
  }
  unsigned h = n / 2;
  msort(a, tmp, h);
  msort(a + h, tmp, n - h);
  if (sortline_compare(&key, &a[h - 1], &a[h]) <= 0)
    return;                /* already in order: sorted input costs one comparison a half */
  /* The left half moves out of the way; the merge then fills a from the front, never
   * overtaking the right half's unread part. */
  memcpy(tmp, a, h * sizeof *a);
  unsigned i = 0, j = h, k = 0;
  while (i < h && j < n)
    a[k++] = sortline_compare(&key, &a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];
  while (i < h)
    a[k++] = tmp[i++];
}

/* Phase 1: the inputs become sorted runs. Returns their numbers in a malloc'ed array. */
static int *make_runs(char **inputs, int ninputs, unsigned budget, int *nout)
{
  /* Lines grow up from the bottom of the budget, their references down from the top; the
   * merge sort's scratch (half as many references) goes between them. */
  budget &= ~7u;
  char *mem = malloc(budget);
  if (!mem)
    fail("out of memory for a %u KB budget (-m)", budget / 1024);
  struct sortline *top = (struct sortline *)(mem + budget);
  static struct reader r;
  static struct writer w;
  int *ids = 0, n = 0, cap = 0;
  unsigned used = 0, count = 0;
  for (int f = 0; f <= ninputs; f++) {
    int more = 0;
    if (f < ninputs) {
      const char *name = inputs[f];
      int fd = 0;
      if (strcmp(name, "-") == 0)
        name = "standard input";
      else if ((fd = open(name, O_RDONLY)) < 0)
        die("open", name);
      ropen(&r, fd, name);
      more = rnext(&r);
    }
    for (;;) {
      /* A line costs its bytes, its reference and half a reference of scratch. */
      unsigned refs = (count + 1) + (count + 2) / 2;
      if (more && (used + r.linelen + 7) / 8 * 8 + refs * sizeof(struct sortline) <= budget) {
        memcpy(mem + used, r.line, r.linelen);
        top[-1 - (int)count] = r.cur;
        top[-1 - (int)count].text = mem + used;
        used += r.linelen;
        count++;
        nlines++;
        more = rnext(&r);
        continue;
      }
      if (!more && f < ninputs)
        break;             /* the next input may fill this run further */
      if (count == 0)
        break;
      struct sortline *lines = top - count;
      msort(lines, (struct sortline *)(mem + (used + 7) / 8 * 8), count);
      if (n == cap && !(ids = realloc(ids, (cap = cap ? 2 * cap : 64) * sizeof *ids)))
        fail("out of memory for the list of runs");
      ids[n] = newrun(&w);
      for (unsigned i = 0; i < count; i++) {
        wput(&w, lines[i].text, lines[i].len);
        wput(&w, "\n", 1);
      }
      wclose(&w);
      n++;
      used = count = 0;
      if (!more)
        break;
    }
    if (f < ninputs && r.fd != 0)
      close(r.fd);
  }
  free(mem);
  *nout = n;
  return ids;
}

/* Merging: a tournament of MERGE_WAY readers (a loser tree, Knuth 5.4.1). Each inner node
 * keeps the loser of the match played there and the root's parent the overall winner, so
 * after the winner's reader moves to its next line only the matches on its way up are played
 * again: log2(MERGE_WAY) = 3 comparisons a line, where scanning every reader would take 7. */
static struct reader rs[MERGE_WAY];
static int tree[MERGE_WAY];          /* tree[1..] losers, tree[0] the winner */

/* Does reader a's line go before reader b's? An exhausted reader loses to everyone. */
static int before(int a, int b)
{
  if (rs[a].linelen < 0 || rs[b].linelen < 0)
    return rs[b].linelen < 0 && rs[a].linelen >= 0;
  return sortline_compare(&key, &rs[a].cur, &rs[b].cur) < 0;
}

/* Plays the matches below node; returns the winner. */
static int play(int node)
{
  if (node >= MERGE_WAY)
    return node - MERGE_WAY;
  int a = play(2 * node), b = play(2 * node + 1);
  if (before(b, a)) {
    tree[node] = a;
    return b;
  }
  tree[node] = b;
  return a;
}

/* Merges runs ids[0..n) (n <= MERGE_WAY) into w, deleting them. */
static void merge(const int *ids, int n, struct writer *w)
{
  for (int i = 0; i < MERGE_WAY; i++) {
    if (i >= n) {
      rs[i].linelen = -1;
      continue;
    }
    int fd = open(runname(ids[i]), O_RDONLY);
    if (fd < 0)
      die("open", runname(ids[i]));
    ropen(&rs[i], fd, runname(ids[i]));
    rnext(&rs[i]);
  }
  tree[0] = play(1);
  for (;;) {
    int win = tree[0];
    if (rs[win].linelen < 0)
      break;                         /* the best is an exhausted reader: all are */
    wput(w, rs[win].line, rs[win].linelen);
    wput(w, "\n", 1);
    rnext(&rs[win]);
    for (int node = (win + MERGE_WAY) / 2; node > 0; node /= 2)
      if (before(tree[node], win)) {
        int t = tree[node];
        tree[node] = win;
        win = t;
      }
    tree[0] = win;
  }
  for (int i = 0; i < n; i++) {
    close(rs[i].fd);
    droprun(ids[i]);
  }
}

static void usage(FILE *f)
{
  fprintf(f, "usage: sort [-nrv] [-k FIELD[,END]] [-o OUTPUT] [-m KB] [-T TMPDIR] [FILE...]\n");
  if (f != stdout)
    return;
  fprintf(f,
          "Sorts the lines of the FILEs (standard input if none, or for -) as LC_ALL=C sort does:\n"
          "by their bytes; equal keys are ordered by the whole line's bytes.\n"
          "  -n         numeric: the key's leading number (blanks, '-', digits, '.' digits)\n"
          "  -r         reverse the order\n"
          "  -k F[,E]   the key is field F (to field E, or to the end of the line); fields\n"
          "             begin where blanks (space, tab) end\n"
          "  -o OUTPUT  write there (after all input is read: it may be an input)\n"
          "  -m KB      memory for lines (default 128, %d to %d); more input goes to\n"
          "             temporary runs in TMPDIR (/tmp), merged %d at a time\n"
          "  -v         say how many lines, runs and merge passes, and how long they took\n"
          "Lines are at most %d bytes. Errors: a message, status 2, temporaries removed.\n",
          MIN_KB, MAX_KB, MERGE_WAY, MAXLINE);
}

static void bad_usage(const char *fmt, const char *a) __attribute__((noreturn));
static void bad_usage(const char *fmt, const char *a)
{
  fprintf(stderr, "sort: ");
  fprintf(stderr, fmt, a);
  fprintf(stderr, "\n");
  usage(stderr);
  exit(2);
}

int main(int argc, char **argv)
{
  const char *output = 0;
  unsigned kb = 128;
  char **inputs = malloc((argc + 1) * sizeof *inputs);
  int ninputs = 0, options = 1, verbose = 0;
  static char *stdin_only[] = { "-" };
  for (int i = 1; i < argc; i++) {
    char *a = argv[i];
    if (!options || a[0] != '-' || a[1] == 0) {
      inputs[ninputs++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      options = 0;
      continue;
    }
    if (strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    }
    /* Letters may be grouped (-nr); one taking a value takes the rest of the word or the next. */
    for (char *p = a + 1; *p; p++) {
      char c = *p;
      if (c == 'n')
        key.numeric = 1;
      else if (c == 'r')
        key.reverse = 1;
      else if (c == 'v')
        verbose = 1;
      else if (c == 'h') {
        usage(stdout);
        return 0;
      } else if (c == 'o' || c == 'm' || c == 'T' || c == 'k') {
        char opt[3] = { '-', c, 0 };
        char *v = p[1] ? p + 1 : i + 1 < argc ? argv[++i] : 0;
        if (!v)
          bad_usage("%s needs a value", opt);
        if (c == 'o')
          output = v;
        else if (c == 'T')
          tmpdir = v;
        else if (c == 'm') {
          char *end;
          unsigned long n = strtoul(v, &end, 10);
          if (*end || end == v || n > MAX_KB)
            bad_usage("bad -m '%s': a number of KB", v);
          if (n < MIN_KB) {
            fprintf(stderr, "sort: -m must be at least %d KB (a line of %d bytes must fit)\n", MIN_KB, MAXLINE);
            return 2;
          }
          kb = n;
        } else {
          const char *why;
          if (sortkey_parse(&key, v, &why) < 0) {
            fprintf(stderr, "sort: bad -k '%s': %s\n", v, why);
            return 2;
          }
        }
        break;
      } else {
        char opt[3] = { '-', c, 0 };
        bad_usage("unknown option %s", opt);
      }
    }
  }
  unsigned t0 = uptime_ms();
  int n;
  int *ids = make_runs(ninputs ? inputs : stdin_only, ninputs ? ninputs : 1, kb * 1024, &n);
  static struct writer w;
  unsigned t1 = uptime_ms();
  int runs = n, passes = 0;
  /* Merge passes: groups of MERGE_WAY runs become one, until at most MERGE_WAY are left for
   * the last merge. A pass merges only as many groups as it takes to leave a power of
   * MERGE_WAY runs or fewer (the rest wait): 118 runs become 62 (8 groups of 8 merged, 54
   * waiting), then 8, not 15, then 2, each pass reading everything. */
  while (n > MERGE_WAY) {
    int enough = MERGE_WAY;
    while (enough * MERGE_WAY < n)
      enough *= MERGE_WAY;
    int groups = (n - enough + MERGE_WAY - 2) / (MERGE_WAY - 1);
    int m = 0, i = 0;
    for (int g = 0; g < groups && i < n; g++) {
      int k = n - i < MERGE_WAY ? n - i : MERGE_WAY;
      if (k == 1)
        break;
      int id = newrun(&w);
      merge(ids + i, k, &w);
      wclose(&w);
      ids[m++] = id;
      i += k;
    }
    while (i < n)
      ids[m++] = ids[i++];
    n = m;
    passes++;
  }
  w.fd = 1;
  strlcpy(w.name, output ? output : "standard output", sizeof w.name);
  w.len = 0;
  if (output) {
    if ((w.fd = open(output, O_WRONLY | O_CREAT | O_TRUNC)) < 0)
      die("create", output);
  }
  merge(ids, n, &w);
  if (output)
    wclose(&w);
  else
    wflush(&w);
  if (verbose)
    fprintf(stderr, "sort: %llu lines, %d runs in %u ms, %d merge passes and the last merge in %u ms\n",
            nlines, runs, t1 - t0, passes, uptime_ms() - t1);
  return 0;
}
