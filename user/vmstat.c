/* vmstat [NAME...]: prints the kernel counters, one "name value" per line; with names,
 * just the value of each. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>

static char buf[16384];

int main(int argc, char **argv)
{
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
