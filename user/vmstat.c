/* vmstat [NAME...]: prints the kernel counters, one "name value" per line; with names,
 * just the value of each.
 * vmstat -w NAME VALUE [SECONDS]: waits (default 60 s) until the counter has that value, then
 * prints "NAME VALUE"; exit 1 on timeout. VALUE +N waits until it has grown by at least N since
 * vmstat started (vmstat -w fs.cleaner.scans +2: a whole daemon scan after this moment). Lets a test
 * wait for the cleaners by the guest's own account rather than a guess of how long they take. */
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

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "-w") == 0)
    return wait_for(argc, argv);
  int n = kstat(buf, sizeof(buf) - 1);
  if (n < 0) {
    fprintf(stderr, "vmstat: %s\n", strerror(errno));
    return 1;
  }
  buf[n] = 0;
  if (argc == 1) {
    write_all(1, buf, n);
    return 0;
  }
  int status = 0;
  for (int i = 1; i < argc; i++) {
    int len = strlen(argv[i]), found = 0;
    for (char *line = buf; *line;) {
      char *eol = strchr(line, '\n');
      int linelen = eol ? eol - line : (int)strlen(line);
      if (strncmp(line, argv[i], len) == 0 && line[len] == ' ') {
        printf("%.*s\n", linelen - len - 1, line + len + 1);
        found = 1;
        break;
      }
      if (!eol)
        break;
      line = eol + 1;
    }
    if (!found) {
      fprintf(stderr, "vmstat: %s: no such counter\n", argv[i]);
      status = 1;
    }
  }
  return status;
}
