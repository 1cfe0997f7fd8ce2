/* kill PID...: kills processes; -PGID kills every process of that group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: kill PID...\n");
    return 1;
  }
  int status = 0;
  for (int i = 1; i < argc; i++) {
    char *end;
    long pid = strtol(argv[i], &end, 10);
    if (*argv[i] == 0 || *end != 0) {
      fprintf(stderr, "kill: %s: not a process id\n", argv[i]);
      status = 1;
      continue;
    }
    if (kill(pid) < 0) {
      fprintf(stderr, "kill: %s: %s\n", argv[i], strerror(errno));
      status = 1;
    }
  }
  return status;
}
