/* audit [-q]: runs the VM's invariant checker (frames in exactly one pool, page tables and
 * the core map agreeing, resident counts and backing blocks). Prints "audit: ok" and exits 0,
 * or reports the problems (on the console) and exits 1. */
#include <stdio.h>
#include <string.h>
#include <sys.h>

int main(int argc, char **argv)
{
  int quiet = argc > 1 && strcmp(argv[1], "-q") == 0;
  int bad = vmaudit(quiet);
  if (bad < 0) {
    printf("audit: not available\n");
    return 1;
  }
  if (bad == 0) {
    printf("audit: ok\n");
    return 0;
  }
  printf("audit: %d problems\n", bad);
  return 1;
}
