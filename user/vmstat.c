/* vmstat [-n] [NAME...]: prints the kernel counters, one "name value" per line. With names,
 * just those: a NAME that is a counter prints its line; one that is not but begins the names
 * of some (vmstat neg, vmstat fs.cache) prints each of theirs, in the kernel's order; a NAME
 * that begins no counter's name is an error (status 1, the others are still printed). -n
 * prints the values alone, one a line, in the order asked: for scripts and tests that name
 * the counters they want (vmstat -n fs.cache.hits fs.cache.misses).
 * vmstat -w NAME VALUE [SECONDS]: waits (default 60 s) until the counter has that value, then
 * prints "NAME VALUE"; exit 1 on timeout. VALUE +N waits until it has grown by at least N since
 * vmstat started (vmstat -w fs.cleaner.scans +2: a whole daemon scan after this moment). Lets a test
 * wait for the cleaners by the guest's own account rather than a guess of how long they take.
 * vmstat -i MS COUNT NAME...: samples the counters every MS ms, COUNT times (0: until killed),
 * one line each: "@UPTIME_MS VALUE..." after a header "@ms NAME...". The '@' marks the lines
 * as samples wherever they land among other programs' output (the IFS benchmark draws the file
 * cache's size over time from them while sort and the toucher print too). Samples are taken
 * on a schedule from the first, so a late one does not shift all the rest; one that fell
 * more than a period behind is skipped rather than taken twice. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>
#include <stdlib.h>

static char buf[16384];

static int wait_for(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: vmstat -w NAME VALUE|+N [SECONDS]\n");
    return 1;
  }
  long v = kstat_get(argv[2]);
  if (v == -1) {
    fprintf(stderr, "vmstat: %s: no such counter\n", argv[2]);
    return 1;
  }
  /* Relative: "at least", since a counter may move by more than one between two looks. */
  int grow = argv[3][0] == '+';
  long want = strtol(argv[3], 0, 10) + (grow ? v : 0);
  unsigned limit = argc > 4 ? (unsigned)strtol(argv[4], 0, 10) * 1000 : 60000;
  unsigned t0 = uptime_ms();
  while ((v = kstat_get(argv[2])) != want && !(grow && v > want)) {
    if (uptime_ms() - t0 >= limit) {
      printf("vmstat: %s is %ld after %u ms, not %ld\n", argv[2], v, limit, want);
      return 1;
    }
    sleep_ms(50);
  }
  printf("%s %ld\n", argv[2], v);
  return 0;
}

/* The value of name in the counter text buf ("name value" lines), into *v; 0 if none. */
static int lookup(const char *buf, const char *name, long *v)
{
  int len = strlen(name);
  for (const char *line = buf; *line;) {
    const char *eol = strchr(line, '\n');
    if (strncmp(line, name, len) == 0 && line[len] == ' ') {
      *v = strtol(line + len + 1, 0, 10);
      return 1;
    }
    if (!eol)
      break;
    line = eol + 1;
  }
  return 0;
}

/* Prints the lines of buf whose name is name (exact) or begins with it: whole, or (bare)
 * the value alone. Returns how many. */
static int print_matching(const char *name, int exact, int bare)
{
  int len = strlen(name), found = 0;
  for (const char *line = buf; *line;) {
    const char *eol = strchr(line, '\n');
    int linelen = eol ? eol - line : (int)strlen(line);
    const char *sp = memchr(line, ' ', linelen);
    if (len > 0 && sp && strncmp(line, name, len) == 0 && (!exact || sp == line + len)) {
      if (bare)
        printf("%.*s\n", linelen - (int)(sp + 1 - line), sp + 1);
      else
        printf("%.*s\n", linelen, line);
      found++;
    }
    if (!eol)
      break;
    line = eol + 1;
  }
  return found;
}

static int snapshot(void)
{
  int n = kstat(buf, sizeof(buf) - 1);
  if (n < 0) {
    fprintf(stderr, "vmstat: %s\n", strerror(errno));
    return -1;
  }
  buf[n] = 0;
  return n;
}

static int sample(int argc, char **argv)
{
  char *end1, *end2;
  long ms = argc > 3 ? strtol(argv[2], &end1, 10) : 0;
  long count = argc > 3 ? strtol(argv[3], &end2, 10) : 0;
  if (argc < 5 || *end1 || *end2 || ms < 1 || count < 0) {
    fprintf(stderr, "usage: vmstat -i MS COUNT NAME... (MS >= 1; COUNT 0: until killed)\n");
    return 1;
  }
  if (snapshot() < 0)
    return 1;
  long v;
  for (int i = 4; i < argc; i++)
    if (!lookup(buf, argv[i], &v)) {
      fprintf(stderr, "vmstat: %s: no such counter\n", argv[i]);
      return 1;
    }
  char line[1024];
  int len = snprintf(line, sizeof line, "@ms");
  for (int i = 4; i < argc && len < (int)sizeof line; i++)
    len += snprintf(line + len, sizeof line - len, " %s", argv[i]);
  printf("%s\n", line);
  unsigned next = uptime_ms();
  for (long k = 0; count == 0 || k < count; k++) {
    unsigned now = uptime_ms();
    if ((int)(next - now) > 0)
      sleep_ms(next - now);
    if (snapshot() < 0)
      return 1;
    now = uptime_ms();
    len = snprintf(line, sizeof line, "@%u", now);
    for (int i = 4; i < argc && len < (int)sizeof line; i++) {
      v = 0;
      lookup(buf, argv[i], &v);
      len += snprintf(line + len, sizeof line - len, " %ld", v);
    }
    printf("%s\n", line);      /* one write: a sample line is never split by other output */
    next += ms;
    if ((int)(now - next) >= (int)ms)      /* fell behind by a whole period: skip, not catch up */
      next = now + ms - (now - next) % ms;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "-w") == 0)
    return wait_for(argc, argv);
  if (argc > 1 && strcmp(argv[1], "-i") == 0)
    return sample(argc, argv);
  if (argc > 1 && strcmp(argv[1], "-h") == 0) {
    printf("usage: vmstat [-n] [NAME...] | vmstat -w NAME VALUE|+N [SECONDS] | vmstat -i MS COUNT NAME...\n"
           "Prints the kernel's counters (\"name value\" lines), or those NAMEd: a NAME that is no counter\n"
           "but begins some counters' names (neg, fs.cache) prints them all. -n: the values alone.\n"
           "-w: waits until counter NAME has VALUE (or has grown by N), at most SECONDS (60).\n"
           "-i: every MS ms, COUNT times (0: until killed), prints \"@UPTIME_MS VALUE...\" for the\n"
           "    NAMEs, after a header \"@ms NAME...\".\n");
    return 0;
  }
  int first = 1, bare = 0;
  if (argc > 1 && strcmp(argv[1], "-n") == 0) {
    bare = 1;
    first = 2;
  }
  int n = snapshot();
  if (n < 0)
    return 1;
  if (argc == first) {
    write_all(1, buf, n);
    return 0;
  }
  int status = 0;
  for (int i = first; i < argc; i++) {
    /* An exact name first ("vm.frames" also begins "vm.frames.x"), else a prefix. */
    if (print_matching(argv[i], 1, bare) == 0 && print_matching(argv[i], 0, bare) == 0) {
      fprintf(stderr, "vmstat: %s: no such counter\n", argv[i]);
      status = 1;
    }
  }
  return status;
}
