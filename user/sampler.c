/* sampler: a few counters read every period and written out one line a sample, for the
 * benchmarks that put Linux beside this kernel (tools/bench/bench_linux.py, bench_linux_ecd.py).
 *
 * WHY A PROGRAM. The benchmarks sampled Linux's /proc with a function of busybox's shell, whose
 * `read` builtin makes a poll and a one-byte read per character: a sample of /proc/meminfo and
 * /proc/vmstat was some ten thousand system calls, and a `sample; sleep 1` loop took 10-25 % of
 * the guest's CPU while sort was being timed. Here a sample is one read() of each source into a
 * buffer (two when a /proc file is longer than Linux's first 4 KB), a scan of it in memory, and
 * one write() of the line: the cost the benchmark measures with and without (--sampler-cost).
 *
 * The same program runs on this kernel, which has no /proc: the source `kstat` is its counter
 * text (one kstat() call), so the cost of sampling can be measured on both kernels alike.
 *
 *   sampler [-i MS] [-n COUNT] [-q] SOURCE NAME... [SOURCE NAME...]
 *
 * SOURCE is a file (a path: /proc/meminfo, /proc/vmstat, /proc/diskstats) or `kstat`; each NAME
 * after it is read from it: the word after NAME's on the line where NAME (or NAME:) stands
 * (Cached, pswpin, fs.cache.blocks), or with NAME@K the K-th word after it (vda@1 is vda's reads
 * in /proc/diskstats, vda@5 its writes). Values are copied as the source has them, digits and
 * all, so no counter overflows here.
 *
 * Prints a header "@sampler NAME..." (not with -q), then every MS ms (1000), COUNT times (0:
 * until killed; default 1), "@UPTIME_MS VALUE..." (uptime_ms: on Linux the clock of
 * /proc/uptime). Samples keep to a schedule from the first: a late one does not shift the rest,
 * and one that fell a whole period behind is skipped, not taken twice (as vmstat -i). A NAME
 * missing from its source at the first sample is an error (exit 1); one missing later prints
 * "?", which the benchmarks' parsing refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys.h>

#define MAXSRC 8
#define MAXNAMES 32
#define BUFSZ 16384

struct source {
  const char *path;          /* a file's path, or "kstat" */
  int fd;                    /* the file, kept open: each sample seeks back to its start */
  char buf[BUFSZ];
  int len;
};

struct name {
  const char *word;          /* NAME without its @K */
  int wordlen;
  int after;                 /* K: the value is the K-th word after NAME's */
  int src;
  const char *arg;           /* as given, for the header */
};

static struct source srcs[MAXSRC];
static struct name names[MAXNAMES];
static int nsrc, nnames;

static void usage(void)
{
  fprintf(stderr, "usage: sampler [-i MS] [-n COUNT] [-q] SOURCE NAME... [SOURCE NAME...]\n"
                  "SOURCE: a file (/proc/meminfo) or kstat; NAME: a word of it, or NAME@K (the K-th word after)\n");
  exit(1);
}

/* The source's text, read afresh: one kstat(), or a seek and read()s to the file's end. */
static int refill(struct source *s)
{
  int n;
  if (s->fd < 0)
    n = kstat(s->buf, BUFSZ - 1);
  else if (lseek(s->fd, 0, 0) < 0)
    n = -1;
  else
    n = read_full(s->fd, s->buf, BUFSZ - 1);
  if (n < 0)
    return -1;
  s->len = n;
  s->buf[n] = 0;
  return 0;
}

static int space(char c)
{
  return c == ' ' || c == '\t' || c == '\n';
}

/* The value of nm in its source's text: the word after NAME's (K words after), on NAME's line;
 * *len gets its length. 0 when there is none. A word matches NAME or NAME followed by ':'. */
static const char *find(const struct name *nm, int *len)
{
  const char *p = srcs[nm->src].buf;
  while (*p) {
    while (*p == ' ' || *p == '\t')
      p++;
    const char *w = p;
    while (*p && !space(*p))
      p++;
    int wl = p - w;
    if (wl > 0 && (wl == nm->wordlen || (wl == nm->wordlen + 1 && w[wl - 1] == ':')) &&
        memcmp(w, nm->word, nm->wordlen) == 0) {
      for (int k = 0; k < nm->after; k++) {       /* the K-th word after it, on this line */
        while (*p == ' ' || *p == '\t')
          p++;
        if (*p == '\n' || !*p)
          return 0;
        w = p;
        while (*p && !space(*p))
          p++;
      }
      *len = p - w;
      return w;
    }
    if (*p == '\n')
      p++;
  }
  return 0;
}

/* Appends text to line (of room size) at *at; false when it does not fit. */
static int put(char *line, int size, int *at, const char *text, int len)
{
  if (*at + len >= size)
    return 0;
  memcpy(line + *at, text, len);
  *at += len;
  return 1;
}

int main(int argc, char **argv)
{
  long ms = 1000, count = 1;
  int quiet = 0, i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    char *end = 0;
    if (strcmp(argv[i], "-q") == 0)
      quiet = 1;
    else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
      ms = strtol(argv[++i], &end, 10);
    else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      count = strtol(argv[++i], &end, 10);
    else
      usage();
    if (end && (*end || ms < 1 || count < 0))
      usage();
  }
  for (; i < argc; i++) {
    char *a = argv[i];
    if (a[0] == '/' || strcmp(a, "kstat") == 0) {
      if (nsrc == MAXSRC)
        usage();
      struct source *s = &srcs[nsrc++];
      s->path = a;
      s->fd = -1;
      if (a[0] == '/' && (s->fd = open(a, O_RDONLY)) < 0) {
        fprintf(stderr, "sampler: %s: %s\n", a, strerror(errno));
        return 1;
      }
      continue;
    }
    if (nsrc == 0 || nnames == MAXNAMES)
      usage();
    struct name *nm = &names[nnames++];
    char *at = strchr(a, '@');
    nm->arg = a;
    nm->word = a;
    nm->wordlen = at ? at - a : (int)strlen(a);
    nm->after = at ? atoi(at + 1) : 1;
    nm->src = nsrc - 1;
    if (nm->wordlen == 0 || nm->after < 1)
      usage();
  }
  if (nnames == 0)
    usage();

  char line[2048];
  int at = 0;
  if (!quiet) {
    put(line, sizeof line, &at, "@sampler", 8);
    for (int k = 0; k < nnames; k++)
      if (!put(line, sizeof line, &at, " ", 1) || !put(line, sizeof line, &at, names[k].arg, strlen(names[k].arg)))
        usage();
    line[at++] = '\n';
    write_all(1, line, at);
  }
  unsigned next = uptime_ms();
  for (long n = 0; count == 0 || n < count; n++) {
    unsigned now = uptime_ms();
    if ((int)(next - now) > 0)
      sleep_ms(next - now);
    now = uptime_ms();
    for (int k = 0; k < nsrc; k++)
      if (refill(&srcs[k]) < 0) {
        fprintf(stderr, "sampler: %s: %s\n", srcs[k].path, strerror(errno));
        return 1;
      }
    char stamp[16];
    at = 0;
    put(line, sizeof line, &at, stamp, snprintf(stamp, sizeof stamp, "@%u", now));
    for (int k = 0; k < nnames; k++) {
      int len = 0;
      const char *v = find(&names[k], &len);
      if (!v && n == 0) {
        fprintf(stderr, "sampler: %s: no %s there\n", srcs[names[k].src].path, names[k].arg);
        return 1;
      }
      if (!v) {
        v = "?";
        len = 1;
      }
      put(line, sizeof line, &at, " ", 1);
      put(line, sizeof line, &at, v, len);
    }
    line[at++] = '\n';
    write_all(1, line, at);          /* one write: a sample line is never split by other output */
    next += ms;
    if ((int)(now - next) >= (int)ms)        /* fell behind by a whole period: skip, not catch up */
      next = now + ms - (now - next) % ms;
  }
  return 0;
}
