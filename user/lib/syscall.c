/* System-call wrappers: int 0x80, number in eax, arguments in ebx, ecx, edx, esi, edi.
 * A negative result is -errno: the wrapper stores it in errno and returns -1. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>
#include <string.h>
#include <sys.h>
#include "uapi/syscall.h"

int errno;

static inline int sys5(int num, int a, int b, int c, int d, int e)
{
  int ret;
  /* The kernel may write user memory through the pointers we pass: "memory" clobber. */
  __asm__ volatile("int $0x80"
                   : "=a"(ret)
                   : "a"(num), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                   : "memory", "cc");
  return ret;
}

static int check(int r)
{
  if (r < 0) {
    errno = -r;
    return -1;
  }
  return r;
}

#define SYS0(n)             check(sys5((n), 0, 0, 0, 0, 0))
#define SYS1(n, a)          check(sys5((n), (int)(a), 0, 0, 0, 0))
#define SYS2(n, a, b)       check(sys5((n), (int)(a), (int)(b), 0, 0, 0))
#define SYS3(n, a, b, c)    check(sys5((n), (int)(a), (int)(b), (int)(c), 0, 0))
#define SYS4(n, a, b, c, d) check(sys5((n), (int)(a), (int)(b), (int)(c), (int)(d), 0))

int fork(void)
{
  /* Otherwise the child would inherit, and later print, the parent's pending output. */
  fflush(0);
  return SYS0(SYS_fork);
}

void _exit(int status)
{
  for (;;)
    sys5(SYS_exit, status, 0, 0, 0, 0);
}

int wait(int *status) { return SYS1(SYS_wait, status); }

int exec(const char *path, char **argv)
{
  fflush(0);   /* a successful exec would discard the buffer */
  return SYS2(SYS_exec, path, argv);
}

int execv(const char *path, char **argv) { return exec(path, argv); }
int getpid(void) { return SYS0(SYS_getpid); }
int kill(int pid) { return SYS1(SYS_kill, pid); }
int setpgid(int pid, int pgid) { return SYS2(SYS_setpgid, pid, pgid); }
int setfg(int pgid) { return SYS1(SYS_setfg, pgid); }
int consmode(int fd, int mode) { return SYS2(SYS_consmode, fd, mode); }
int incore(int fd, unsigned char *vec, unsigned n) { return SYS3(SYS_incore, fd, vec, n); }

void *sbrk(int increment)
{
  /* The old break may lie above 2 GB and look negative, so test only the errno range. */
  int r = sys5(SYS_sbrk, increment, 0, 0, 0, 0);
  if (r < 0 && r >= -4095) {
    errno = -r;
    return (void *)-1;
  }
  return (void *)r;
}

int sleep_ms(unsigned ms) { return SYS1(SYS_sleep, ms); }

unsigned sleep(unsigned seconds)
{
  sleep_ms(seconds * 1000);
  return 0;
}

unsigned uptime_ms(void) { return (unsigned)sys5(SYS_uptime, 0, 0, 0, 0, 0); }
int open(const char *path, int flags) { return SYS2(SYS_open, path, flags); }
int close(int fd) { return SYS1(SYS_close, fd); }
int read(int fd, void *buf, unsigned n) { return SYS3(SYS_read, fd, buf, n); }
int write(int fd, const void *buf, unsigned n) { return SYS3(SYS_write, fd, buf, n); }
int lseek(int fd, int offset, int whence) { return SYS3(SYS_lseek, fd, offset, whence); }
int fstat(int fd, struct stat *st) { return SYS2(SYS_fstat, fd, st); }
int stat(const char *path, struct stat *st) { return SYS2(SYS_stat, path, st); }
int unlink(const char *path) { return SYS1(SYS_unlink, path); }
int mkdir(const char *path) { return SYS1(SYS_mkdir, path); }
int rmdir(const char *path) { return SYS1(SYS_rmdir, path); }
int readdir(int fd, struct dirent *de) { return SYS2(SYS_readdir, fd, de); }
int rename(const char *from, const char *to) { return SYS2(SYS_rename, from, to); }
int dup(int fd) { return SYS1(SYS_dup, fd); }
int dup2(int fd, int newfd) { return SYS2(SYS_dup2, fd, newfd); }
int pipe(int fds[2]) { return SYS1(SYS_pipe, fds); }
int chdir(const char *path) { return SYS1(SYS_chdir, path); }
int fsync(int fd) { return SYS1(SYS_fsync, fd); }
int kstat(char *buf, unsigned len) { return SYS2(SYS_kstat, buf, len); }
int shutdown(void) { fflush(0); return SYS0(SYS_shutdown); }
int ps(struct procinfo *buf, int max) { return SYS2(SYS_ps, buf, max); }

int getprocinfo(int pid, struct procinfo *out)
{
  static struct procinfo rows[64];   /* NPROC */
  int n = ps(rows, 64);
  for (int i = 0; i < n; i++)
    if (rows[i].pid == pid) {
      *out = rows[i];
      return 0;
    }
  if (n >= 0)
    errno = ESRCH;
  return -1;
}
void sync(void) { sys5(SYS_sync, 0, 0, 0, 0, 0); }

char *getcwd(char *buf, unsigned len)
{
  if (SYS2(SYS_getcwd, buf, len) < 0)
    return 0;
  return buf;
}

int sysctl(const char *name, const char *value, char *out, unsigned outlen)
{
  return SYS4(SYS_sysctl, name, value, out, outlen);
}
