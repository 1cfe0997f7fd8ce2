/* ps: lists processes from SYS_ps. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys.h>

#define MAXPROCS 128

static struct procinfo procs[MAXPROCS];

static const char *state_name(int s)
{
  switch (s) {
  case 1: return "sleep";
  case 2: return "runnable";
  case 3: return "running";
  case 4: return "zombie";
  default: return "?";
  }
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "-h") == 0) {
    printf("usage: ps\n"
           "One row per process: PID, parent, process group, state, SIZE (bytes of user\n"
           "memory resident), PAGEIN (pages read in for it from backing store, its executable\n"
           "or the backing file of a page it copied on reference), PAGEOUT (pages of its heap\n"
           "and stack written to backing store, whoever needed the frame), NAME. Both count\n"
           "from the process's fork; exec keeps them.\n");
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "ps: no arguments (ps -h explains the columns)\nusage: ps\n");
    return 1;
  }
  int n = ps(procs, MAXPROCS);
  if (n < 0) {
    fprintf(stderr, "ps: %s\n", strerror(errno));
    return 1;
  }
  printf("  PID  PPID  PGID STATE        SIZE  PAGEIN PAGEOUT NAME\n");
  for (int i = 0; i < n; i++) {
    struct procinfo *p = &procs[i];
    p->name[sizeof(p->name) - 1] = 0;
    printf("%5d %5d %5d %-8s %8u %7u %7u %s\n", p->pid, p->ppid, p->pgid, state_name(p->state), p->size,
           p->pageins, p->pageouts, p->name);
  }
  return 0;
}
