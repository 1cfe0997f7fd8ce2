/* One counter out of kstat's text, the same whichever kernel runs the program: under Linux
 * kstat fails (linux/syscall.c), and so does this. */
#include <stdlib.h>
#include <string.h>
#include <sys.h>

long kstat_get(const char *name)
{
  /* The counter text is small; a few KB covers it, and a static buffer keeps the call cheap. */
  static char buf[8192];
  int n = kstat(buf, sizeof(buf) - 1);
  if (n < 0)
    return -1;
  buf[n] = 0;
  int len = strlen(name);
  char *line = buf;
  while (*line) {
    char *eol = strchr(line, '\n');
    if (strncmp(line, name, len) == 0 && (line[len] == ' ' || line[len] == '\t'))
      return strtol(line + len + 1, 0, 10);
    if (!eol)
      break;
    line = eol + 1;
  }
  return -1;
}
