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
  if (argc > 1) {
    int help = strcmp(argv[1], "-h") == 0;
    fprintf(help ? stdout : stderr,
            "usage: ps\n"
            "One row per process: PID, parent, process group, state, SIZE (bytes of user\n"
            "memory resident), PAGEIN (pages read in for it: from backing store, its\n"
            "executable or a copy-on-reference master's backing file), PAGEOUT (pages of its\n"
            "heap and stack written to backing store), NAME.\n");
    return help ? 0 : 1;
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
