/* init: the first process. The kernel has opened the console as fds 0, 1 and 2. Runs
 * /bin/sh and, when it exits (end of input or "exit"), powers the machine off. Orphans are
 * given to init, so it reaps whatever exits meanwhile. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>

int main(void)
{
  char *argv[] = {"sh", 0};
  int pid = fork();
  if (pid < 0) {
    fprintf(stderr, "init: fork: %s\n", strerror(errno));
  } else if (pid == 0) {
    exec("/bin/sh", argv);
    fprintf(stderr, "init: exec /bin/sh: %s\n", strerror(errno));
    _exit(127);
  } else {
    for (;;) {
      int w = wait(0);
      if (w == pid || w < 0)
        break;
    }
  }
  shutdown();
  fprintf(stderr, "init: shutdown: %s\n", strerror(errno));
  for (;;)
    sleep_ms(1000000);
}
