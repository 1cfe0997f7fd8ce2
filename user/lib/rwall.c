/* The "all of it" helpers over read and write, the same whichever kernel runs the program
 * (this kernel's system calls in syscall.c, Linux's in linux/syscall.c). */
#include <unistd.h>
#include <errno.h>

int write_all(int fd, const void *buf, unsigned n)
{
  const char *p = buf;
  unsigned done = 0;
  while (done < n) {
    int r = write(fd, p + done, n - done);
    if (r < 0)
      return -1;
    if (r == 0) {   /* should not happen; avoid spinning forever */
      errno = EIO;
      return -1;
    }
    done += r;
  }
  return done;
}

int read_full(int fd, void *buf, unsigned n)
{
  char *p = buf;
  unsigned done = 0;
  while (done < n) {
    int r = read(fd, p + done, n - done);
    if (r < 0)
      return -1;
    if (r == 0)
      break;
    done += r;
  }
  return done;
}
