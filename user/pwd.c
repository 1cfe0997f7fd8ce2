/* pwd: prints the current directory (SYS_getcwd), for scripts and for a user who has cd'd
 * about and lost track. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

int main(int argc, char **argv)
{
  static char buf[4096];   /* a path is at most a page (sys_getcwd) */
  if (argc > 1) {
    fprintf(stderr, "usage: pwd\n");
    return 1;
  }
  if (!getcwd(buf, sizeof(buf))) {
    fprintf(stderr, "pwd: %s\n", strerror(errno));
    return 1;
  }
  printf("%s\n", buf);
  return 0;
}
