/* init: the first process. The kernel has opened the console as fds 0, 1 and 2. Runs
 * /bin/sh and, when it exits (end of input or "exit"), powers the machine off. Orphans are
 * given to init, so it reaps whatever exits meanwhile. When the shell cannot be started (a
 * damaged /bin/sh, no process slot) or is killed, init exits, and the kernel powers off
 * reporting failure: a machine without a shell is of no use, and a clean power-off would
 * hide why. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys.h>

/* The status of a child whose exec failed, as the shell's own for a command it cannot run.
 * An interactive shell ends with 0; 128 and above is a shell the kernel killed (a fault: a
 * damaged /bin/sh read as zeros), as a shell reports signals (128 + the signal:
 * kernel/uapi/signal.h). `exit 127` or `exit 130` typed
 * by hand power off reporting failure too. */
#define NO_SHELL 127
#define KILLED 128

int main(void)
{
  char *argv[] = {"sh", 0};
  int pid = fork();
  if (pid < 0) {
    fprintf(stderr, "init: fork: %s\n", strerror(errno));
    return 1;
  } else if (pid == 0) {
    exec("/bin/sh", argv);
    fprintf(stderr, "init: exec /bin/sh: %s\n", strerror(errno));
    _exit(NO_SHELL);
  } else {
    for (;;) {
      int status = 0;
      int w = wait(&status);
      if (w == pid && status == NO_SHELL)
        return 1;
      if (w == pid && status >= KILLED) {
        fprintf(stderr, "init: the shell was killed (status %d)\n", status);
        return 1;
      }
      if (w == pid || w < 0)
        break;
    }
  }
  shutdown();
  fprintf(stderr, "init: shutdown: %s\n", strerror(errno));
  for (;;)
    sleep_ms(1000000);
}
