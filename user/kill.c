/* kill PID...: kills processes; -PGID kills every process of that group, and so does %PGID:
 * the shell numbers a background job by its group ("[12]" for `sleep 100 | cat &`), and
 * kill %12 (or kill -12) ends the whole job. A %N that is no group is most often a job number
 * mistyped or one that has ended, so the message says so and points at the list of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: kill PID|-PGID|%%JOB...\n");
    return 1;
  }
  int status = 0;
  for (int i = 1; i < argc; i++) {
    char *end;
    int job = argv[i][0] == '%';
    long pid = strtol(argv[i] + job, &end, 10);
    if (argv[i][job] == 0 || *end != 0 || (job && pid <= 0)) {
      fprintf(stderr, "kill: %s: not a process id\n", argv[i]);
      status = 1;
      continue;
    }
    if (job)
      pid = -pid;
    if (kill(pid) < 0) {
      if (job && errno == ESRCH)
        fprintf(stderr, "kill: %s: no such job (jobs lists the shell's jobs)\n", argv[i]);
      else
        fprintf(stderr, "kill: %s: %s\n", argv[i], strerror(errno));
      status = 1;
    }
  }
  return status;
}
